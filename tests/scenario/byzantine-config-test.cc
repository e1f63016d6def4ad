// server.robust (and, with attacks, clients.groups[].attack) from JSON: typed settings, and
// the checks that name the path.

#include "scenario-test-util.h"

namespace fedran::test
{
namespace
{

using nlohmann::json;

TEST(RobustConfig, AbsentIsTheCodecMeanAndResolvesUnchanged)
{
    const ScenarioConfig config = ToConfig(Quickstart());
    EXPECT_EQ(config.server.robust.type, "mean");
    EXPECT_FALSE(config.resolved["server"].contains("robust"));
}

TEST(RobustConfig, ReadsEverySetting)
{
    json scenario = Quickstart();
    scenario["server"]["robust"] = {{"type", "multi_krum"}, {"f", 3}, {"m", 5}};
    ScenarioConfig config = ToConfig(scenario);
    EXPECT_EQ(config.server.robust.type, "multi_krum");
    EXPECT_EQ(config.server.robust.json.at("f"), 3);
    EXPECT_EQ(config.server.robust.json.at("m"), 5);
    EXPECT_EQ(config.server.robust.path, "server.robust");
    scenario["server"]["robust"] = {{"type", "centered_clipping"}, {"tau", 0.5}, {"iters", 3}};
    config = ToConfig(scenario);
    EXPECT_EQ(config.server.robust.json.at("tau"), 0.5);
    EXPECT_EQ(config.server.robust.json.at("iters"), 3);
}

TEST(RobustConfig, InadmissibleRulesNameThePathAgainstClientsPerRound)
{
    json scenario = Quickstart(); // clients_per_round 10
    scenario["server"]["robust"] = {{"type", "krum"}, {"f", 4}};
    std::string message = ScenarioErrorOf([&] { ToConfig(scenario); });
    EXPECT_EQ(message.rfind("server.robust.f: krum needs clients_per_round n > 2f + 2", 0), 0u)
        << message;
    scenario["server"]["robust"] = {{"type", "trimmed_mean"}, {"beta", 0.05}};
    message = ScenarioErrorOf([&] { ToConfig(scenario); });
    EXPECT_EQ(message.rfind("server.robust.beta:", 0), 0u) << message;
    scenario["server"]["robust"] = {{"type", "median"}, {"max_norm", 2}};
    message = ScenarioErrorOf([&] { ToConfig(scenario); });
    EXPECT_EQ(message.rfind("server.robust.max_norm: not a setting", 0), 0u) << message;
    scenario["server"]["robust"] = {{"type", "median"}};
    scenario["compression"]["uplink"] = {{"type", "sign"}, {"aggregation", "majority_vote"}};
    message = ScenarioErrorOf([&] { ToConfig(scenario); });
    EXPECT_EQ(message.rfind("server.robust.type:", 0), 0u) << message;
    // The type is the registry's to check (the schema lists no names), so is a key no rule reads.
    scenario["server"]["robust"] = {{"type", "krum?"}};
    message = ScenarioErrorOf([&] { ToConfig(scenario); });
    EXPECT_EQ(
        message.rfind("server.robust.type: unknown aggregation rule \"krum?\" (one of mean, ", 0),
        0u)
        << message;
    scenario["server"]["robust"] = {{"type", "median"}, {"tua", 1.0}};
    message = ScenarioErrorOf([&] { ToConfig(scenario); });
    EXPECT_EQ(message.rfind("server.robust.tua: not a setting of type \"median\"", 0), 0u)
        << message;
}

} // namespace
} // namespace fedran::test
