// output.pcap and output.flowmon: which link directions a scenario captures.

#include "scenario-test-util.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

using nlohmann::json;

ScenarioConfig
WithOutput(const json& output)
{
    json scenario = MinimalScenario(); // 4 clients
    scenario["output"] = output;
    ValidateScenario(scenario);
    return ToConfig(scenario);
}

TEST(CaptureConfig, OffByDefaultTrueIsEveryDirectionInLinksCsvOrder)
{
    const ScenarioConfig off = WithOutput(json::object());
    EXPECT_TRUE(off.pcapLinks.empty());
    EXPECT_FALSE(off.flowmon);
    const ScenarioConfig all = WithOutput({{"pcap", true}, {"flowmon", true}});
    EXPECT_TRUE(all.flowmon);
    ASSERT_EQ(all.pcapLinks.size(), 2u + 2 * 4);
    EXPECT_EQ(all.pcapLinks[0], "core-up");
    EXPECT_EQ(all.pcapLinks[1], "core-down");
    EXPECT_EQ(all.pcapLinks[9], "client-3-down");
}

TEST(CaptureConfig, ListNamesDirectionsOrLinksOnceEachInLinksCsvOrder)
{
    const ScenarioConfig config =
        WithOutput({{"pcap", {"client-3", "core-down", "client-0-up", "client-3-up"}}});
    EXPECT_EQ(
        config.pcapLinks,
        (std::vector<std::string>{"core-down", "client-0-up", "client-3-up", "client-3-down"}));
}

TEST(CaptureConfig, BadNamesAreReportedWithTheirIndex)
{
    const std::string range = ScenarioErrorOf([] { WithOutput({{"pcap", {"core", "client-4"}}}); });
    EXPECT_EQ(range.rfind("output.pcap.1: \"client-4\": there are 4 clients", 0), 0u) << range;
    for (const char* bad : {"client-01-up",
                            "client-1-left",
                            "router",
                            "client--1",
                            "client-",
                            "core-up-down",
                            "client-12345678901",
                            "-up",
                            "Core"})
    {
        const std::string message = ScenarioErrorOf([&] { WithOutput({{"pcap", {bad}}}); });
        EXPECT_EQ(message.rfind("output.pcap.0: \"" + std::string(bad) + "\" is not", 0), 0u)
            << message;
    }
    EXPECT_NE(ScenarioErrorOf([] {
                  WithOutput({{"pcap", "all"}});
              }).find("output.pcap"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf([] {
                  WithOutput({{"flowmon", 1}});
              }).find("output.flowmon"),
              std::string::npos);
}

} // namespace
} // namespace fedran::test
