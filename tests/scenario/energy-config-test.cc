// clients.groups[].energy and server.energy from JSON: presets resolved and overridden, run.json
// recording the powers used, and bad keys and values refused by name.

#include "scenario-test-util.h"

namespace fedran::test
{
namespace
{

using nlohmann::json;

TEST(EnergyConfig, AbsentIsNoEnergyAndResolvesUnchanged)
{
    const ScenarioConfig config = ToConfig(Quickstart());
    for (const ClientGroupConfig& group : config.groups)
    {
        EXPECT_FALSE(group.energy.has_value());
    }
    EXPECT_FALSE(config.server.energyComputeW.has_value());
    EXPECT_FALSE(config.resolved["server"].contains("energy"));
    EXPECT_FALSE(config.resolved["clients"]["groups"][0].contains("energy"));
}

TEST(EnergyConfig, ReadsExplicitPowersAndTheServers)
{
    json scenario = Quickstart();
    scenario["clients"]["groups"][0]["energy"] = {{"compute_w", 12.5}, {"tx_w", 3}, {"rx_w", 1}};
    scenario["server"]["energy"] = {{"compute_w", 250}};
    const ScenarioConfig config = ToConfig(scenario);
    ASSERT_TRUE(config.groups[0].energy.has_value());
    EXPECT_DOUBLE_EQ(config.groups[0].energy->computeW, 12.5);
    EXPECT_DOUBLE_EQ(config.groups[0].energy->txW, 3.0);
    EXPECT_DOUBLE_EQ(config.groups[0].energy->rxW, 1.0);
    EXPECT_FALSE(config.groups[0].energy->Idle());
    EXPECT_EQ(config.server.energyComputeW, 250.0);
    EXPECT_EQ(config.resolved["server"]["energy"]["compute_w"], 250);
}

TEST(EnergyConfig, PresetsResolveAndExplicitKeysOverrideThem)
{
    json scenario = Quickstart();
    scenario["clients"]["groups"][0]["energy"] = {{"preset", "jetson_nano_10w"}, {"tx_w", 2.5}};
    const ScenarioConfig config = ToConfig(scenario);
    ASSERT_TRUE(config.groups[0].energy.has_value());
    EXPECT_DOUBLE_EQ(config.groups[0].energy->computeW, 10.0);
    EXPECT_DOUBLE_EQ(config.groups[0].energy->txW, 2.5);
    EXPECT_DOUBLE_EQ(config.groups[0].energy->rxW, 0.0);
    // run.json records the values used, and reads back to the same ones.
    const json& recorded = config.resolved["clients"]["groups"][0]["energy"];
    EXPECT_EQ(recorded["preset"], "jetson_nano_10w");
    EXPECT_EQ(recorded["compute_w"], 10.0);
    EXPECT_EQ(recorded["tx_w"], 2.5);
    const ScenarioConfig again = ToConfig(config.resolved);
    EXPECT_DOUBLE_EQ(again.groups[0].energy->txW, 2.5);

    scenario["clients"]["groups"][0]["energy"] = {{"preset", "raspberry_pi_4"}};
    const ScenarioConfig pi = ToConfig(scenario);
    EXPECT_TRUE(pi.groups[0].energy->Idle());
    EXPECT_DOUBLE_EQ(pi.groups[0].energy->idleW, 2.8);
}

TEST(EnergyConfig, RefusesBadKeysAndValuesByName)
{
    json scenario = Quickstart();
    scenario["clients"]["groups"][0]["energy"] = {{"preset", "jetson"}};
    std::string message = ScenarioErrorOf([&] { ToConfig(scenario); });
    EXPECT_EQ(message.rfind("clients.groups.0.energy.preset: unknown preset \"jetson\"", 0), 0u)
        << message;
    scenario["clients"]["groups"][0]["energy"] = {{"compute_w", 1}, {"tx_w", 1}};
    message = ScenarioErrorOf([&] { ToConfig(scenario); });
    EXPECT_EQ(message.rfind("clients.groups.0.energy.rx_w: missing", 0), 0u) << message;
    scenario["clients"]["groups"][0]["energy"] = {{"preset", "lte_ue"}, {"tx_watts", 1}};
    message = ValidationErrorOf(scenario);
    EXPECT_NE(message.find("clients.groups.0.energy.tx_watts"), std::string::npos) << message;
    scenario["clients"]["groups"][0]["energy"] = {{"compute_w", -1}, {"tx_w", 1}, {"rx_w", 1}};
    message = ValidationErrorOf(scenario);
    EXPECT_NE(message.find("clients.groups.0.energy.compute_w"), std::string::npos) << message;
    scenario["clients"]["groups"][0].erase("energy");
    scenario["server"]["energy"] = json::object();
    message = ValidationErrorOf(scenario);
    EXPECT_NE(message.find("server.energy"), std::string::npos) << message;
    scenario["server"]["energy"] = {{"compute_w", "10W"}};
    message = ValidationErrorOf(scenario);
    EXPECT_NE(message.find("server.energy.compute_w"), std::string::npos) << message;
}

TEST(EnergyConfig, RefusesWhatItCannotCharge)
{
    json async = ReadScenarioFile(SourcePath("scenarios/async.json"));
    async["clients"]["groups"][0]["energy"] = {{"preset", "raspberry_pi_4"}};
    std::string message = ScenarioErrorOf([&] { ToConfig(async); });
    EXPECT_NE(message.find("clients.groups.0.energy.idle_w: server.mode \"async\""),
              std::string::npos)
        << message;
    async["clients"]["groups"][0]["energy"] = {{"preset", "jetson_nano_5w"}};
    EXPECT_NO_THROW(ToConfig(async));

    json tree = ReadScenarioFile(SourcePath("scenarios/hierarchical.json"));
    tree["clients"]["groups"][0]["energy"] = {{"preset", "jetson_nano_10w"}};
    message = ScenarioErrorOf([&] { ToConfig(tree); });
    EXPECT_NE(message.find("clients.groups.0.energy: the group's sites report to an edge"),
              std::string::npos)
        << message;
}

} // namespace
} // namespace fedran::test
