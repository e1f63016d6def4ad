// ApplyOverride: "--set path=value" with dotted paths, indices and JSON-typed values.

#include "scenario-test-util.h"

#include <gtest/gtest.h>

#include <string>

namespace fedran
{
namespace
{

using nlohmann::json;
using test::MinimalScenario;
using test::ScenarioErrorOf;

TEST(ApplyOverride, ValuesAreTypedAsJson)
{
    json scenario = MinimalScenario();
    ApplyOverride(scenario, "rounds=12");
    ApplyOverride(scenario, "training.lr=0.1");
    ApplyOverride(scenario, "flag=true");
    ApplyOverride(scenario, "name=\"quoted\"");
    ApplyOverride(scenario, "nothing=null");
    ApplyOverride(scenario, "list=[1, 2]");
    EXPECT_EQ(scenario["rounds"], 12);
    EXPECT_TRUE(scenario["rounds"].is_number_integer());
    EXPECT_DOUBLE_EQ(scenario["training"]["lr"].get<double>(), 0.1);
    EXPECT_EQ(scenario["flag"], true);
    EXPECT_EQ(scenario["name"], "quoted");
    EXPECT_TRUE(scenario["nothing"].is_null());
    EXPECT_EQ(scenario["list"], json({1, 2}));
}

TEST(ApplyOverride, NonJsonTextIsAString)
{
    json scenario = MinimalScenario();
    ApplyOverride(scenario, "clients.groups.0.backhaul.rate=10Mbps");
    ApplyOverride(scenario, "name=my run");
    ApplyOverride(scenario, "output.dir=");
    ApplyOverride(scenario, "data.path=/a=b"); // only the first '=' separates
    EXPECT_EQ(scenario["clients"]["groups"][0]["backhaul"]["rate"], "10Mbps");
    EXPECT_EQ(scenario["name"], "my run");
    EXPECT_EQ(scenario["output"]["dir"], "");
    EXPECT_EQ(scenario["data"]["path"], "/a=b");
}

TEST(ApplyOverride, ObjectValuesReplaceWholeSubtrees)
{
    json scenario = MinimalScenario();
    ApplyOverride(scenario, R"(compression.uplink={"type": "fp16", "x": 1})");
    EXPECT_EQ(scenario["compression"]["uplink"], json({{"type", "fp16"}, {"x", 1}}));
    ValidateScenario(scenario);
    EXPECT_EQ(scenario["compression"]["downlink"]["type"], "none");
}

TEST(ApplyOverride, ArrayIndicesAndAppend)
{
    json scenario = MinimalScenario();
    ApplyOverride(scenario, "clients.groups.0.count=7");
    EXPECT_EQ(scenario["clients"]["groups"][0]["count"], 7);
    // Index == size appends; the new group is then filled key by key.
    ApplyOverride(scenario, "clients.groups.1.name=rural");
    ApplyOverride(scenario, "clients.groups.1.count=3");
    ASSERT_EQ(scenario["clients"]["groups"].size(), 2u);
    EXPECT_EQ(scenario["clients"]["groups"][1], json({{"name", "rural"}, {"count", 3}}));
    ApplyOverride(scenario, "clients.groups.2={\"name\": \"x\", \"count\": 1}");
    EXPECT_EQ(scenario["clients"]["groups"].size(), 3u);
    const ScenarioConfig config = ToConfig(scenario);
    EXPECT_EQ(config.TotalClients(), 11u);
}

TEST(ApplyOverride, IndexOutOfRangeNamesThePath)
{
    json scenario = MinimalScenario();
    const json before = scenario;
    const std::string message =
        ScenarioErrorOf([&] { ApplyOverride(scenario, "clients.groups.5.count=1"); });
    EXPECT_EQ(message,
              "clients.groups.5: index 5 is out of range (the array has 1 element; "
              "index 1 appends)");
    EXPECT_EQ(scenario, before); // a failed override changes nothing
}

TEST(ApplyOverride, MalformedAssignments)
{
    json scenario = MinimalScenario();
    struct Case
    {
        std::string assignment;
        std::string start;
    };
    const Case cases[] = {
        {"rounds", "--set rounds: expected PATH=VALUE"},
        {"=5", "--set =5: empty path"},
        {"a..b=1", "--set a..b=1: empty key"},
        {".a=1", "--set .a=1: empty key"},
        {"rounds.x=1", "rounds.x: key \"x\" used on a number, not an object"},
        {"rounds.0=1", "rounds.0: index 0 used on a number, not an array"},
        {"server.0=1", "server.0: index 0 used on an object, not an array"},
        {"clients.groups.first=1", "clients.groups.first: \"first\" is not an array index"},
        {"clients.groups.-1=1", "clients.groups.-1: \"-1\" is not an array index"},
        {"clients.groups.01=1", "clients.groups.01: \"01\" is not an array index"},
        {"clients.groups.99999999999999999999=1", "clients.groups.99999999999999999999: "},
    };
    for (const Case& c : cases)
    {
        const std::string message = ScenarioErrorOf([&] { ApplyOverride(scenario, c.assignment); });
        EXPECT_EQ(message.rfind(c.start, 0), 0u) << c.assignment << " -> " << message;
    }
}

TEST(ApplyOverride, RootMustBeAnObjectForKeys)
{
    json scenario = json::array();
    EXPECT_EQ(ScenarioErrorOf([&] { ApplyOverride(scenario, "rounds=1"); }),
              "rounds: \"rounds\" is not an array index");
    json empty; // null: an empty scenario being built from overrides alone
    ApplyOverride(empty, "rounds=1");
    EXPECT_EQ(empty, json({{"rounds", 1}}));
}

TEST(ApplyOverride, ThenValidationCatchesBadValues)
{
    json scenario = MinimalScenario();
    ApplyOverride(scenario, "training.lr=fast");
    EXPECT_EQ(test::ValidationErrorOf(scenario),
              "training.lr: expected number, got string \"fast\"");
}

} // namespace
} // namespace fedran
