// Cell-traffic forecasting end to end, on the shipped scenarios/traffic-forecast.json (32
// synthetic cells, one per site, an LSTM, FedAvg over ns-3 TCP): rounds.csv carries the
// forecast errors and no accuracy, run.json the two baselines on the same test split, and the
// federated LSTM beats both; refusals of what a forecasting task cannot do.

#include "sim-test-util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace fedran::test
{
namespace
{

std::string
Scenario()
{
    return std::string(FEDRAN_SOURCE_DIR) + "/scenarios/traffic-forecast.json";
}

TEST(SlowTrafficForecast, FederatedLstmBeatsSeasonalNaiveAndPersistence)
{
    TempDir dir("traffic-forecast");
    const CommandResult r = RunFedran("run " + Scenario() + " --out f --quiet", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    const auto rounds = ReadCsv(dir.Path() / "f" / "rounds.csv");
    ASSERT_EQ(rounds.size(), 30u);
    for (const auto& row : rounds)
    {
        EXPECT_EQ(row.at("test_accuracy"), "") << "a forecasting task has no accuracy";
        EXPECT_NE(row.at("test_rmse"), "");
        EXPECT_NE(row.at("test_mae"), "");
    }
    const double first = std::stod(rounds.front().at("test_nrmse"));
    const double last = std::stod(rounds.back().at("test_nrmse"));
    EXPECT_LT(last, first) << "training lowers the forecast error";

    const auto run = nlohmann::json::parse(ReadFile(dir.Path() / "f" / "run.json"));
    const double seasonal = run.at("baselines").at("seasonal_naive").at("nrmse");
    const double persistence = run.at("baselines").at("persistence").at("nrmse");
    EXPECT_NEAR(run.at("result").at("final_test_nrmse").get<double>(), last, 1e-5); // 6 digits
    EXPECT_TRUE(run.at("result").at("final_test_accuracy").is_null());
    // Seed 1 of the generator: seasonal-naive 0.99, persistence 0.252, the LSTM 0.249 after 30
    // rounds (bursts in the test week keep persistence strong at 10-minute steps).
    EXPECT_LT(last, seasonal);
    EXPECT_LT(last, persistence);
}

TEST(TrafficForecast, LabelFlipIsRefusedByName)
{
    TempDir dir("traffic-forecast-refusal");
    const CommandResult r =
        RunFedran("run " + Scenario() +
                      " --out f --quiet --set rounds=1 "
                      "--set 'clients.groups.0.attack={\"type\":\"label_flip\"}'",
                  dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("label_flip"), std::string::npos) << r.stderrText;
    EXPECT_FALSE(std::filesystem::exists(dir.Path() / "f" / "rounds.csv"));
}

} // namespace
} // namespace fedran::test
