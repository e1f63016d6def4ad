// MakeForecastData, PartitionByCell and ComputeBaselines on a tiny hand-made series whose
// every value is known: 4 steps a day, 5 days, cell 0 counts 0, 1, 2, ..., cell 1 is 100 + 2t.

#include "models/learning/forecast-baselines.h"
#include "models/learning/partition.h"
#include "models/learning/traffic-windows.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace fedran
{
namespace
{

TrafficSeries
HandSeries(uint32_t cells = 2)
{
    TrafficSeries s;
    s.stepsPerDay = 4;
    for (uint32_t k = 0; k < cells; ++k)
    {
        std::vector<double> values;
        for (uint32_t t = 0; t < 20; ++t)
        {
            values.push_back(k == 0 ? double(t) : 100.0 + (k + 1) * double(t));
        }
        s.cells.push_back(10 + k);
        s.values.push_back(values);
    }
    return s;
}

ForecastWindows
HandWindows()
{
    ForecastWindows w;
    w.window = 2;
    w.periodDays = 1;
    w.horizon = 1;
    w.testDays = 2;
    return w;
}

TEST(TrafficWindowsTest, RowsTargetsSplitAndScales)
{
    const TrainTestData data = MakeForecastData(HandSeries(), HandWindows());
    // Targets from step 4 (a day of period history) to 11 train, 12..19 test, per cell.
    ASSERT_TRUE(data.train.Forecasting());
    EXPECT_EQ(data.train.features, 3u);
    EXPECT_EQ(data.train.sequence, 2u);
    EXPECT_EQ(data.train.outputs, 1u);
    EXPECT_EQ(data.train.classes, 0u);
    EXPECT_EQ(data.train.Size(), 16u);
    EXPECT_EQ(data.test.Size(), 16u);
    ASSERT_EQ(data.train.scales.size(), 2u);
    // Cell 0's training steps are 0..11: mean 5.5, population sd sqrt(143 / 12).
    EXPECT_DOUBLE_EQ(data.train.scales[0].offset, 5.5);
    EXPECT_NEAR(data.train.scales[0].scale, std::sqrt(143.0 / 12.0), 1e-12);
    EXPECT_DOUBLE_EQ(data.train.scales[1].offset, 100.0 + 2 * 5.5);
    EXPECT_EQ(data.test.scales[1].scale, data.train.scales[1].scale);

    auto original = [&](const Dataset& d, size_t i, size_t f) {
        const SeriesScale& s = d.scales[d.series[i]];
        return d.Row(i)[f] * s.scale + s.offset;
    };
    auto target = [&](const Dataset& d, size_t i) {
        const SeriesScale& s = d.scales[d.series[i]];
        return d.targets[i] * s.scale + s.offset;
    };
    // First training example of cell 0: window steps 2, 3; period step 0; target step 4.
    EXPECT_NEAR(original(data.train, 0, 0), 2.0, 1e-5);
    EXPECT_NEAR(original(data.train, 0, 1), 3.0, 1e-5);
    EXPECT_NEAR(original(data.train, 0, 2), 0.0, 1e-5);
    EXPECT_NEAR(target(data.train, 0), 4.0, 1e-5);
    EXPECT_EQ(data.train.series[7], 0u);
    EXPECT_EQ(data.train.series[8], 1u);
    EXPECT_NEAR(target(data.train, 8), 108.0, 1e-4); // cell 1, step 4
    // First test example of cell 1 (index 8): target step 12 = 124, window 10, 11 -> 120, 122.
    EXPECT_NEAR(target(data.test, 8), 124.0, 1e-4);
    EXPECT_NEAR(original(data.test, 8, 0), 120.0, 1e-4);
    EXPECT_NEAR(original(data.test, 8, 1), 122.0, 1e-4);
    EXPECT_NEAR(original(data.test, 8, 2), 116.0, 1e-4);
    EXPECT_NEAR(target(data.test, 15), 138.0, 1e-4); // last step, 19

    ForecastWindows longer = HandWindows();
    longer.horizon = 2;
    longer.periodDays = 0;
    const TrainTestData h2 = MakeForecastData(HandSeries(), longer);
    // Targets from step 3 (window 2 ending at t - 2 = 1): window steps 0, 1 -> target 3.
    EXPECT_EQ(h2.train.Size(), 2u * 9u);
    EXPECT_NEAR(original(h2.train, 0, 1), 1.0, 1e-5);
    EXPECT_NEAR(target(h2.train, 0), 3.0, 1e-5);
}

TEST(TrafficWindowsTest, RejectsSettingsTheSeriesCannotTake)
{
    ForecastWindows w = HandWindows();
    w.testDays = 4; // leaves 4 steps: no full day before the test
    EXPECT_THROW(MakeForecastData(HandSeries(), w), DataError);
    w = HandWindows();
    w.horizon = 5; // more than a day with a period input
    EXPECT_THROW(MakeForecastData(HandSeries(), w), std::invalid_argument);
    w = HandWindows();
    w.window = 0;
    EXPECT_THROW(MakeForecastData(HandSeries(), w), std::invalid_argument);
}

TEST(TrafficWindowsTest, ByCellDealsCellsRoundRobinInIdOrder)
{
    const TrainTestData data = MakeForecastData(HandSeries(3), HandWindows());
    const auto parts = PartitionByCell(data.train.series, 3, 2);
    ASSERT_EQ(parts.size(), 2u);
    // 8 examples per cell: client 0 holds cells 0 and 2, client 1 cell 1.
    ASSERT_EQ(parts[0].size(), 16u);
    ASSERT_EQ(parts[1].size(), 8u);
    for (uint32_t i : parts[0])
    {
        EXPECT_NE(data.train.series[i], 1u);
    }
    for (uint32_t i : parts[1])
    {
        EXPECT_EQ(data.train.series[i], 1u);
    }
    EXPECT_EQ(parts[0].front(), 0u);
    EXPECT_EQ(parts[0][8], 16u);
    EXPECT_EQ(parts[1].front(), 8u);
    EXPECT_EQ(PartitionByCell(data.train.series, 3, 3)[2].size(), 8u);
    EXPECT_THROW(PartitionByCell(data.train.series, 3, 4), DataError);
    EXPECT_THROW(PartitionByCell(data.train.series, 3, 0), std::invalid_argument);
}

TEST(TrafficWindowsTest, BaselinesMatchAHandComputation)
{
    const ForecastBaselines b = ComputeBaselines(HandSeries(), HandWindows());
    // Test steps 12..19 of both cells. Seasonal-naive misses by one day of slope: 4 for cell
    // 0, 8 for cell 1; persistence by one step: 1 and 2. Mean truth (15.5 + 131) / 2.
    EXPECT_EQ(b.points, 16u);
    EXPECT_NEAR(b.seasonalNaive.rmse, std::sqrt(40.0), 1e-12);
    EXPECT_NEAR(b.seasonalNaive.mae, 6.0, 1e-12);
    EXPECT_NEAR(b.seasonalNaive.nrmse, std::sqrt(40.0) / 73.25, 1e-12);
    EXPECT_NEAR(b.persistence.rmse, std::sqrt(2.5), 1e-12);
    EXPECT_NEAR(b.persistence.mae, 1.5, 1e-12);
    EXPECT_NEAR(b.persistence.nrmse, std::sqrt(2.5) / 73.25, 1e-12);
    const nlohmann::json j = BaselinesJson(b);
    EXPECT_DOUBLE_EQ(j["seasonal_naive"]["mae"].get<double>(), 6.0);
    EXPECT_EQ(j["points"].get<uint64_t>(), 16u);
    EXPECT_TRUE(j["persistence"].contains("nrmse"));
}

} // namespace
} // namespace fedran
