// network.hubs and clients.groups[].hub: families, chains, a group spread over a family, and
// the errors that name their path (loop, unknown parent or hub, duplicate name, lte).

#include "scenario-test-util.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

using nlohmann::json;

/// MinimalScenario with `hubs` and the group hanging off `hub` (none if empty).
ScenarioConfig
WithHubs(const json& hubs, const std::string& hub = "")
{
    json scenario = MinimalScenario();
    scenario["network"]["hubs"] = hubs;
    if (!hub.empty())
    {
        scenario["clients"]["groups"][0]["hub"] = hub;
    }
    ValidateScenario(scenario);
    return ToConfig(scenario);
}

std::string
ErrorOf(const json& hubs, const std::string& hub = "")
{
    return ScenarioErrorOf([&] { WithHubs(hubs, hub); });
}

TEST(HubConfig, NoHubsIsTheStarAsBefore)
{
    json scenario = MinimalScenario();
    ValidateScenario(scenario);
    const ScenarioConfig config = ToConfig(scenario);
    EXPECT_TRUE(config.network.hubs.empty());
    EXPECT_TRUE(config.groups[0].hubs.empty());
    EXPECT_EQ(config.resolved["network"]["hubs"], json::array());
}

TEST(HubConfig, OneHubWithItsLink)
{
    const ScenarioConfig config =
        WithHubs(json::parse(R"([{"name": "h", "backhaul": {"type": "p2p", "rate": "10Mbps",
                                                    "delay": "3ms"}}])"),
                 "h");
    ASSERT_EQ(config.network.hubs.size(), 1u);
    const HubConfig& hub = config.network.hubs[0];
    EXPECT_EQ(hub.name, "h");
    EXPECT_EQ(hub.parent, HubConfig::kCore);
    EXPECT_EQ(hub.backhaul.type, "p2p");
    EXPECT_EQ(hub.backhaul.rateBps, 10'000'000u);
    EXPECT_DOUBLE_EQ(hub.backhaul.delayS, 0.003);
    EXPECT_EQ(hub.backhaul.path, "network.hubs.0.backhaul");
    EXPECT_EQ(config.groups[0].hubs, std::vector<uint32_t>{0});
}

TEST(HubConfig, AFamilyAndAChain)
{
    const ScenarioConfig config = WithHubs(json::parse(R"([
        {"name": "agg", "count": 2},
        {"name": "c", "parent": "agg-1", "count": 3, "chain": true},
        {"name": "t", "parent": "agg", "count": 3}
    ])"),
                                           "c");
    const std::vector<HubConfig>& hubs = config.network.hubs;
    ASSERT_EQ(hubs.size(), 8u);
    const std::vector<std::string> names =
        {"agg-0", "agg-1", "c-0", "c-1", "c-2", "t-0", "t-1", "t-2"};
    const std::vector<int32_t> parents = {-1, -1, 1, 2, 3, 0, 1, 0};
    for (size_t h = 0; h < hubs.size(); ++h)
    {
        EXPECT_EQ(hubs[h].name, names[h]);
        EXPECT_EQ(hubs[h].parent, parents[h]) << names[h];
    }
    EXPECT_EQ(hubs[3].family, "c");
    // A family name: the group's clients take the members in turn.
    EXPECT_EQ(config.groups[0].hubs, (std::vector<uint32_t>{2, 3, 4}));
}

TEST(HubConfig, AParentMayComeLater)
{
    const ScenarioConfig config =
        WithHubs(json::parse(R"([{"name": "leaf", "parent": "top"}, {"name": "top"}])"), "leaf");
    EXPECT_EQ(config.network.hubs[0].parent, 1);
}

TEST(HubConfig, ErrorsNameTheirPath)
{
    EXPECT_EQ(ErrorOf(json::parse(R"([{"name": "a", "parent": "b"}])")),
              "network.hubs.0.parent: no hub \"b\" (\"core\" or a name from network.hubs)");
    EXPECT_EQ(ErrorOf(json::parse(R"([{"name": "a"}])"), "x"),
              "clients.groups.0.hub: no hub \"x\" in network.hubs");
    EXPECT_EQ(ErrorOf(json::parse(R"([{"name": "a"}, {"name": "a"}])")),
              "network.hubs.1.name: \"a\" is already the name of a hub (network.hubs.0.name)");
    // A family's member names count too.
    EXPECT_EQ(ErrorOf(json::parse(R"([{"name": "a", "count": 2}, {"name": "a-1"}])")),
              "network.hubs.1.name: \"a-1\" is already the name of a hub (network.hubs.0.name)");
    EXPECT_EQ(
        ErrorOf(json::parse(R"([{"name": "a", "parent": "b"}, {"name": "b", "parent": "a"}])")),
        "network.hubs.1.parent: the hubs' parents make a loop (a -> b -> a); every chain "
        "of parents must end at \"core\"");
    EXPECT_EQ(ErrorOf(json::parse(R"([{"name": "s", "parent": "s"}])")),
              "network.hubs.0.parent: the hubs' parents make a loop (s -> s); every chain of "
              "parents must end at \"core\"");
    // A chain whose first member hangs off its own last one.
    EXPECT_EQ(
        ErrorOf(json::parse(R"([{"name": "c", "count": 3, "chain": true, "parent": "c-2"}])")),
        "network.hubs.0.parent: the hubs' parents make a loop (c-0 -> c-2 -> c-1 -> c-0); "
        "every chain of parents must end at \"core\"");
    EXPECT_NE(ErrorOf(json::parse(R"([{"name": "core"}])")).find("network.hubs.0.name: \"core\""),
              std::string::npos);
    for (const char* bad : {"x-up", "x-down", "a/b", "a b", "\u00e9t\u00e9"})
    {
        json hubs = json::array({{{"name", bad}}});
        EXPECT_NE(ErrorOf(hubs).find("network.hubs.0.name"), std::string::npos) << bad;
    }
    EXPECT_EQ(WithHubs(json::parse(R"([{"name": "Hub_1.a-b"}])")).network.hubs.at(0).name,
              "Hub_1.a-b");
    EXPECT_NE(
        ErrorOf(json::parse(R"([{"name": "a", "backhaul": {"type": "lte", "distance_m": 100}}])"))
            .find("network.hubs.0.backhaul.type: \"lte\" cannot be a hub's link"),
        std::string::npos);
    EXPECT_NE(
        ErrorOf(json::parse(R"([{"name": "a", "backhaul": {"type": "p2p", "rat": "1Mbps"}}])"))
            .find("network.hubs.0.backhaul.rat: unknown key"),
        std::string::npos);
}

TEST(HubConfig, AnLteGroupCannotHangOffAHub)
{
    json scenario = MinimalScenario();
    scenario["network"]["hubs"] = json::parse(R"([{"name": "a"}])");
    scenario["clients"]["groups"][0]["hub"] = "a";
    scenario["clients"]["groups"][0]["backhaul"] = {{"type", "lte"}, {"distance_m", 100}};
    EXPECT_NE(ScenarioErrorOf([&] {
                  ValidateScenario(scenario);
                  ToConfig(scenario);
              }).find("clients.groups.0.hub: the sites of a \"lte\" group"),
              std::string::npos);
}

TEST(HubConfig, PcapNamesHubLinks)
{
    json scenario = MinimalScenario();
    scenario["network"]["hubs"] = json::parse(R"([{"name": "a", "count": 2}])");
    scenario["output"]["pcap"] = {"client-1-up", "hub-a-1", "hub-a-0-down", "core-up"};
    ValidateScenario(scenario);
    const ScenarioConfig config = ToConfig(scenario);
    EXPECT_EQ(config.pcapLinks,
              (std::vector<std::string>{"core-up",
                                        "hub-a-0-down",
                                        "hub-a-1-up",
                                        "hub-a-1-down",
                                        "client-1-up"}));
    scenario["output"]["pcap"] = {"hub-b-up"};
    EXPECT_EQ(ScenarioErrorOf([&] { ToConfig(scenario); }),
              "output.pcap.0: \"hub-b-up\" is not a hub link direction (hub-<name>-up, "
              "hub-<name>-down or hub-<name> for a hub of network.hubs)");
    scenario["output"]["pcap"] = true;
    EXPECT_EQ(ToConfig(scenario).pcapLinks.size(), 2u + 4u + 8u);
}

} // namespace
} // namespace fedran::test
