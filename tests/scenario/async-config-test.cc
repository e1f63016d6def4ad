// server.mode and server.async from JSON: typed settings, and the refusals that name the key.

#include "scenario-test-util.h"

namespace fedran::test
{
namespace
{

using nlohmann::json;

json
AsyncQuickstart()
{
    json scenario = Quickstart(); // 20 clients
    scenario["server"]["mode"] = "async";
    scenario["server"]["async"] = {{"buffer", 5}, {"concurrency", 8}};
    return scenario;
}

TEST(AsyncConfig, SyncByDefaultWithoutAsyncSettings)
{
    const ScenarioConfig config = ToConfig(Quickstart());
    EXPECT_FALSE(config.server.async);
    EXPECT_EQ(config.resolved["server"]["mode"], "sync");
    EXPECT_FALSE(config.resolved["server"].contains("async"));
}

TEST(AsyncConfig, ReadsEverySettingWithStalenessDefaults)
{
    json scenario = AsyncQuickstart();
    ScenarioConfig config = ToConfig(scenario);
    EXPECT_TRUE(config.server.async);
    EXPECT_EQ(config.server.asyncConfig.buffer, 5u);
    EXPECT_EQ(config.server.asyncConfig.concurrency, 8u);
    EXPECT_EQ(config.server.asyncConfig.staleness.kind, StalenessKind::Polynomial);
    EXPECT_EQ(config.server.asyncConfig.staleness.a, 0.5);
    EXPECT_FALSE(config.server.asyncConfig.maxStaleness.has_value());
    EXPECT_EQ(config.resolved["server"]["async"]["staleness"]["type"], "polynomial");

    scenario["server"]["async"]["staleness"] = {{"type", "hinge"}, {"a", 10}, {"b", 2}};
    scenario["server"]["async"]["max_staleness"] = 6;
    config = ToConfig(scenario);
    EXPECT_EQ(config.server.asyncConfig.staleness.kind, StalenessKind::Hinge);
    EXPECT_EQ(config.server.asyncConfig.staleness.b, 2.0);
    EXPECT_EQ(config.server.asyncConfig.maxStaleness, 6u);
}

TEST(AsyncConfig, RefusesWhatAsyncModeCannotDoNamingTheKey)
{
    json scenario = AsyncQuickstart();
    scenario["server"]["over_select"] = 1.5;
    std::string message = ScenarioErrorOf([&] { ToConfig(scenario); });
    EXPECT_EQ(message.rfind("server.over_select:", 0), 0u) << message;

    scenario = AsyncQuickstart();
    scenario["compression"]["uplink"] = {{"type", "power_sgd"}, {"rank", 2}};
    message = ScenarioErrorOf([&] { ToConfig(scenario); });
    EXPECT_EQ(message.rfind("compression.uplink.type: power_sgd needs a synchronous round", 0), 0u)
        << message;

    scenario = AsyncQuickstart();
    scenario["compression"]["downlink_reference"] = "client_view";
    message = ScenarioErrorOf([&] { ToConfig(scenario); });
    EXPECT_EQ(message.rfind("compression.downlink_reference:", 0), 0u) << message;

    scenario = AsyncQuickstart();
    scenario["server"]["async"]["concurrency"] = 21;
    message = ScenarioErrorOf([&] { ToConfig(scenario); });
    EXPECT_EQ(message.rfind("server.async.concurrency: 21", 0), 0u) << message;

    scenario = AsyncQuickstart();
    scenario["server"].erase("async");
    message = ScenarioErrorOf([&] { ToConfig(scenario); });
    EXPECT_EQ(message.rfind("server.async: missing", 0), 0u) << message;

    scenario = AsyncQuickstart();
    scenario["server"]["async"]["staleness"] = {{"type", "linear"}};
    EXPECT_NE(ValidationErrorOf(scenario).find("server.async.staleness.type"), std::string::npos);
}

} // namespace
} // namespace fedran::test
