// dgc's mode "step" (the default) is accepted only as the sites' own uplink codec, and refused,
// naming the key, where no local training reaches it or where a setting cannot go with it.

#include "scenario-test-util.h"

namespace fedran::test
{
namespace
{

using nlohmann::json;

std::string
ErrorWith(const std::function<void(json&)>& edit)
{
    json scenario = Quickstart();
    edit(scenario);
    return ScenarioErrorOf([&] { ToConfig(scenario); });
}

TEST(DgcStepConfig, TheUplinkTakesEitherModeAndOtherPlacesOnlyRound)
{
    json scenario = Quickstart();
    scenario["compression"]["uplink"] = {{"type", "dgc"}, {"ratio", 0.01}};
    EXPECT_NO_THROW(ToConfig(scenario));
    scenario["compression"]["downlink"] = {{"type", "dgc"}, {"mode", "round"}};
    EXPECT_NO_THROW(ToConfig(scenario));

    std::string message = ErrorWith([](json& s) {
        s["compression"]["downlink"] = {{"type", "dgc"}};
    });
    EXPECT_EQ(message.rfind("compression.downlink.mode: dgc's \"step\" mode (the default) acts "
                            "at every step of a site's local training, which the downlink",
                            0),
              0u)
        << message;
    message = ErrorWith([](json& s) {
        s["compression"]["uplink"] = {{"type", "error_feedback"}, {"base", {{"type", "dgc"}}}};
    });
    EXPECT_EQ(message.rfind("compression.uplink.base.mode:", 0), 0u) << message;
    message = ErrorWith([](json& s) {
        s["compression"]["uplink"] = {
            {"type", "adaptive"},
            {"ladder", {{{"type", "none"}}, {{"type", "dgc"}, {"mode", "step"}}}}};
    });
    EXPECT_EQ(message.rfind("compression.uplink.ladder[1].mode:", 0), 0u) << message;
}

TEST(DgcStepConfig, RefusesWhatCannotGoWithTheStepMode)
{
    const auto stepDgc = [](json& s) {
        s["compression"]["uplink"] = {{"type", "dgc"}};
    };
    std::string message = ErrorWith([&](json& s) {
        stepDgc(s);
        s["training"]["momentum"] = 0.9;
    });
    EXPECT_EQ(message.rfind("training.momentum: compression.uplink dgc in mode \"step\" brings "
                            "its own momentum",
                            0),
              0u)
        << message;
    message = ErrorWith([&](json& s) {
        stepDgc(s);
        s["training"]["pipelining"] = {{"mode", "layerwise"}};
    });
    EXPECT_NE(message.find("training.pipelining.mode: \"layerwise\" cannot split "
                           "compression.uplink dgc in mode \"step\""),
              std::string::npos)
        << message;
    message = ErrorWith([&](json& s) {
        stepDgc(s);
        s["clients"]["groups"][0]["attack"] = {{"type", "sign_flip"}};
    });
    EXPECT_NE(message.find("clients.groups.0.attack.type: \"sign_flip\" corrupts the finished "
                           "update"),
              std::string::npos)
        << message;

    // The same settings with mode round, or label_flip (it poisons the data the steps see).
    json scenario = Quickstart();
    scenario["compression"]["uplink"] = {{"type", "dgc"}, {"mode", "round"}};
    scenario["training"]["momentum"] = 0.9;
    scenario["clients"]["groups"][0]["attack"] = {{"type", "sign_flip"}};
    EXPECT_NO_THROW(ToConfig(scenario));
    scenario["compression"]["uplink"] = {{"type", "dgc"}};
    scenario["training"]["momentum"] = 0.0;
    scenario["clients"]["groups"][0]["attack"] = {{"type", "label_flip"}};
    EXPECT_NO_THROW(ToConfig(scenario));
}

} // namespace
} // namespace fedran::test
