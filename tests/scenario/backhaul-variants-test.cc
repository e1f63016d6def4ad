// clients.groups[].backhaul is one object per link type (a oneOf chosen by "type"): each
// variant gets its own defaults and its own path-named errors.

#include "scenario-test-util.h"

#include <gtest/gtest.h>

namespace fedran
{
namespace
{

using nlohmann::json;
using test::MinimalScenario;
using test::ValidationErrorOf;

json
WithBackhaul(const json& backhaul)
{
    json scenario = MinimalScenario();
    scenario["clients"]["groups"][0]["backhaul"] = backhaul;
    return scenario;
}

TEST(BackhaulVariants, AbsentTypeIsP2pWithItsDefaults)
{
    json scenario = WithBackhaul({{"rate", "10Mbps"}});
    ValidateScenario(scenario);
    EXPECT_EQ(scenario["clients"]["groups"][0]["backhaul"],
              json({{"type", "p2p"}, {"rate", "10Mbps"}, {"delay", "5ms"}, {"loss", 0}}));
}

TEST(BackhaulVariants, EachTypeAcceptsOnlyItsOwnKeys)
{
    json microwave = WithBackhaul({{"type", "microwave"}, {"preset", "e_band"}});
    ValidateScenario(microwave);
    EXPECT_EQ(microwave["clients"]["groups"][0]["backhaul"]["ber_at_threshold"], 1e-6);

    const std::string rateOnRadio =
        ValidationErrorOf(WithBackhaul({{"type", "microwave"}, {"rate", "10Mbps"}}));
    EXPECT_NE(rateOnRadio.find("clients.groups.0.backhaul.rate: unknown key"), std::string::npos)
        << rateOnRadio;
    const std::string typo =
        ValidationErrorOf(WithBackhaul({{"type", "microwave"}, {"snr_bd", 30}}));
    EXPECT_NE(typo.find("did you mean \"snr_db\"?"), std::string::npos) << typo;
    const std::string radioOnP2p = ValidationErrorOf(WithBackhaul({{"snr_db", 30}}));
    EXPECT_NE(radioOnP2p.find("clients.groups.0.backhaul.snr_db: unknown key"), std::string::npos)
        << radioOnP2p;
}

TEST(BackhaulVariants, UnknownTypeAndMissingKeysAreNamed)
{
    const std::string unknown = ValidationErrorOf(WithBackhaul({{"type", "microwaev"}}));
    EXPECT_NE(unknown.find("clients.groups.0.backhaul.type: \"microwaev\" is not one of"),
              std::string::npos)
        << unknown;
    EXPECT_NE(unknown.find("did you mean \"microwave\"?"), std::string::npos) << unknown;
    // (A trace link's file or uplink is checked by the link model: tests/sim.)
    const std::string noDistance = ValidationErrorOf(WithBackhaul({{"type", "lte"}}));
    EXPECT_NE(noDistance.find("clients.groups.0.backhaul.distance_m: missing required key"),
              std::string::npos)
        << noDistance;
    const std::string notObject = ValidationErrorOf(WithBackhaul("p2p"));
    EXPECT_NE(notObject.find("clients.groups.0.backhaul: expected object"), std::string::npos)
        << notObject;
}

} // namespace
} // namespace fedran
