// data.dataset "cell-traffic": its keys, the by_cell default, and the refusal by name of the
// features defined on class labels.

#include "scenario-test-util.h"
#include "simulator/scenario/scenario.h"

#include <gtest/gtest.h>

#include <string>

namespace fedran::test
{
namespace
{

using nlohmann::json;

json
TrafficScenario()
{
    json scenario = Quickstart();
    scenario["data"] = {{"dataset", "cell-traffic"}};
    return scenario;
}

TEST(CellTrafficConfigTest, DefaultsAndByCellPartition)
{
    const ScenarioConfig config = ToConfig(TrafficScenario());
    EXPECT_EQ(config.data.partition, "by_cell");
    const ScenarioConfig::Data::CellTraffic& c = config.data.cellTraffic;
    EXPECT_EQ(c.format, "synthetic");
    EXPECT_EQ(c.signal, "internet");
    EXPECT_EQ(c.cells, 16u);
    EXPECT_EQ(c.days, 28u);
    EXPECT_EQ(c.windows.window, 36u);
    EXPECT_EQ(c.windows.periodDays, 3u);
    EXPECT_EQ(c.windows.horizon, 1u);
    EXPECT_EQ(c.windows.testDays, 7u);
    EXPECT_TRUE(config.resolved["data"].contains("cell_traffic"));
    EXPECT_FALSE(config.resolved["data"].contains("synthetic"));

    json iid = TrafficScenario();
    iid["data"]["partition"] = {{"type", "iid"}};
    iid["data"]["cell_traffic"] = {{"format", "milan"}, {"path", "/data/milan"}, {"signal", "sms"}};
    const ScenarioConfig milan = ToConfig(iid);
    EXPECT_EQ(milan.data.partition, "iid");
    EXPECT_EQ(milan.data.cellTraffic.path, "/data/milan");
    EXPECT_EQ(milan.data.cellTraffic.signal, "sms");

    // Other datasets keep the schema's iid default and do not record the block.
    const ScenarioConfig images = ToConfig(Quickstart());
    EXPECT_EQ(images.data.partition, "iid");
    EXPECT_FALSE(images.resolved["data"].contains("cell_traffic"));
}

TEST(CellTrafficConfigTest, RefusesWhatItCannotTake)
{
    json scenario = TrafficScenario();
    scenario["data"]["partition"] = {{"type", "dirichlet"}};
    std::string message = ScenarioErrorOf([&] { ToConfig(scenario); });
    EXPECT_NE(message.find("data.partition.type: \"dirichlet\" splits by label"), std::string::npos)
        << message;

    scenario = TrafficScenario();
    scenario["clients"]["groups"][0]["attack"] = {{"type", "label_flip"}};
    message = ScenarioErrorOf([&] { ToConfig(scenario); });
    EXPECT_NE(message.find("clients.groups.0.attack.type: \"label_flip\""), std::string::npos)
        << message;

    scenario = TrafficScenario();
    scenario["data"]["cell_traffic"] = {{"format", "milan"}};
    message = ScenarioErrorOf([&] { ToConfig(scenario); });
    EXPECT_NE(message.find("data.cell_traffic.path: required"), std::string::npos) << message;

    scenario = TrafficScenario();
    scenario["data"]["cell_traffic"] = {{"horizon", 145}};
    message = ScenarioErrorOf([&] { ToConfig(scenario); });
    EXPECT_NE(message.find("data.cell_traffic.horizon"), std::string::npos) << message;

    scenario = TrafficScenario();
    scenario["data"]["cell_traffic"] = {{"windw", 12}};
    message = ScenarioErrorOf([&] { ToConfig(scenario); });
    EXPECT_NE(message.find("data.cell_traffic"), std::string::npos) << message;
    EXPECT_NE(message.find("windw"), std::string::npos) << message;

    scenario = Quickstart();
    scenario["data"]["partition"] = {{"type", "by_cell"}};
    message = ScenarioErrorOf([&] { ToConfig(scenario); });
    EXPECT_NE(message.find("\"by_cell\" needs dataset \"cell-traffic\""), std::string::npos)
        << message;
}

} // namespace
} // namespace fedran::test
