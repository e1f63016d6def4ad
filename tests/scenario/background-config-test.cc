// backhaul.background: defaults, what each key means, and errors that name the key.

#include "scenario-test-util.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

using nlohmann::json;

ScenarioConfig
WithBackground(const json& backhaul)
{
    json scenario = MinimalScenario();
    scenario["clients"]["groups"][0]["backhaul"] = backhaul;
    ValidateScenario(scenario);
    return ToConfig(scenario);
}

TEST(BackgroundConfig, AbsentMeansNoneAndDefaultsAreConstantBothWays)
{
    EXPECT_FALSE(WithBackground({{"type", "p2p"}}).groups[0].backhaul.background);
    const auto bg = WithBackground({{"type", "p2p"}, {"background", {{"load", 0.3}}}})
                        .groups[0]
                        .backhaul.background;
    ASSERT_TRUE(bg);
    EXPECT_DOUBLE_EQ(bg->load, 0.3);
    EXPECT_FALSE(bg->onOff);
    EXPECT_TRUE(bg->uplink);
    EXPECT_TRUE(bg->downlink);
    EXPECT_EQ(bg->packetBytes, 1400u);
    EXPECT_DOUBLE_EQ(bg->PeakFraction(), 0.3);
}

TEST(BackgroundConfig, EveryLinkTypeTakesItAndOnOffPeaksAboveTheMean)
{
    const json background = {{"load", 0.2},
                             {"pattern", "on_off"},
                             {"mean_on_s", 0.5},
                             {"mean_off_s", 1.5},
                             {"direction", "downlink"},
                             {"packet_bytes", 500}};
    for (const json& link : {json{{"type", "p2p"}},
                             json{{"type", "microwave"}},
                             json{{"type", "trace"}, {"file", "t.csv"}}})
    {
        json backhaul = link;
        backhaul["background"] = background;
        const auto bg = WithBackground(backhaul).groups[0].backhaul.background;
        ASSERT_TRUE(bg) << link.dump();
        EXPECT_TRUE(bg->onOff);
        EXPECT_FALSE(bg->uplink);
        EXPECT_TRUE(bg->downlink);
        EXPECT_EQ(bg->packetBytes, 500u);
        EXPECT_DOUBLE_EQ(bg->PeakFraction(), 0.8); // 0.2 x (0.5 + 1.5) / 0.5
    }
}

TEST(BackgroundConfig, BadKeysAndValuesNameTheirPath)
{
    const std::string base = "clients.groups.0.backhaul.background";
    EXPECT_NE(ScenarioErrorOf([] {
                  WithBackground({{"background", {{"lod", 0.3}}}});
              }).find(base + ".lod"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf([] {
                  WithBackground({{"background", json::object()}});
              }).find(base + ".load"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf([] {
                  WithBackground({{"background", {{"load", 1.5}}}});
              }).find(base + ".load"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf([] {
                  WithBackground({{"background", {{"load", 0.3}, {"pattern", "bursty"}}}});
              }).find(base + ".pattern"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf([] {
                  WithBackground({{"background", {{"load", 0.3}, {"packet_bytes", 9000}}}});
              }).find(base + ".packet_bytes"),
              std::string::npos);
    // 0.6 on half the time would need 1.2 x the capacity while on.
    const std::string peak = ScenarioErrorOf([] {
        WithBackground({{"background", {{"load", 0.6}, {"pattern", "on_off"}}}});
    });
    EXPECT_NE(peak.find(base + ".load"), std::string::npos) << peak;
    EXPECT_NE(peak.find("capacity"), std::string::npos) << peak;
}

} // namespace
} // namespace fedran::test
