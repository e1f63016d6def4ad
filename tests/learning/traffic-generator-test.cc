// GenerateTraffic: the documented periodicity (a spectral peak at one day), the lognormal
// scale spread, spatial correlation of neighbouring scales, determinism.

#include "models/learning/traffic-generator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

namespace fedran
{
namespace
{

/// The DFT bin (cycles per series) with the largest power, the mean removed.
size_t
PeakBin(const std::vector<double>& x)
{
    const size_t n = x.size();
    double mean = 0.0;
    for (double v : x)
    {
        mean += v / double(n);
    }
    std::vector<double> cosines(n);
    std::vector<double> sines(n);
    for (size_t i = 0; i < n; ++i)
    {
        cosines[i] = std::cos(2.0 * std::numbers::pi * double(i) / double(n));
        sines[i] = std::sin(2.0 * std::numbers::pi * double(i) / double(n));
    }
    size_t best = 0;
    double bestPower = -1.0;
    for (size_t j = 1; j <= n / 2; ++j)
    {
        double re = 0.0;
        double im = 0.0;
        for (size_t t = 0; t < n; ++t)
        {
            const size_t k = (j * t) % n;
            re += (x[t] - mean) * cosines[k];
            im += (x[t] - mean) * sines[k];
        }
        const double power = re * re + im * im;
        if (power > bestPower)
        {
            bestPower = power;
            best = j;
        }
    }
    return best;
}

TEST(TrafficGeneratorTest, SpectralPeakAtOneDay)
{
    TrafficGeneratorConfig config;
    config.cells = 6;
    config.days = 14;
    Rng rng(7, 1);
    const TrafficSeries series = GenerateTraffic(config, rng);
    ASSERT_EQ(series.values.size(), 6u);
    ASSERT_EQ(series.Steps(), 14u * 144u);
    for (const std::vector<double>& values : series.values)
    {
        EXPECT_EQ(PeakBin(values), 14u); // 14 cycles in 14 days: a period of one day
    }
}

double
LogMean(const std::vector<double>& values)
{
    double sum = 0.0;
    for (double v : values)
    {
        sum += v;
    }
    return std::log(sum / double(values.size()));
}

TEST(TrafficGeneratorTest, LognormalScaleSpread)
{
    TrafficGeneratorConfig config;
    config.cells = 900;
    config.days = 7;
    config.correlationCells = 0.0; // independent scales: the sample sd estimates sigma
    Rng rng(3, 1);
    const TrafficSeries series = GenerateTraffic(config, rng);
    double sum = 0.0;
    double squares = 0.0;
    for (const std::vector<double>& values : series.values)
    {
        const double l = LogMean(values);
        sum += l;
        squares += l * l;
    }
    const double mean = sum / 900.0;
    const double sd = std::sqrt(squares / 900.0 - mean * mean);
    // sigma = 1.211 (Milan's per-cell totals); the daily shapes and weekend ratios add a little.
    EXPECT_NEAR(sd, 1.211, 0.12);
    EXPECT_NEAR(mean, 3.40, 0.2);
    for (const std::vector<double>& values : series.values)
    {
        for (double v : values)
        {
            ASSERT_TRUE(std::isfinite(v) && v > 0.0);
        }
    }
}

TEST(TrafficGeneratorTest, NeighbouringScalesAreCorrelatedAndRunsRepeat)
{
    TrafficGeneratorConfig config;
    config.cells = 400; // 20 x 20
    config.days = 2;
    Rng rng(5, 1);
    const TrafficSeries series = GenerateTraffic(config, rng);
    std::vector<double> logs;
    for (const std::vector<double>& values : series.values)
    {
        logs.push_back(LogMean(values));
    }
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    double n = 0;
    for (uint32_t k = 0; k < 400; ++k)
    {
        if (k % 20 == 19)
        {
            continue;
        }
        const double a = logs[k];
        const double b = logs[k + 1]; // the right-hand neighbour
        sx += a, sy += b, sxx += a * a, syy += b * b, sxy += a * b, n += 1;
    }
    const double cov = sxy / n - sx / n * sy / n;
    const double corr = cov / std::sqrt((sxx / n - sx * sx / n / n) * (syy / n - sy * sy / n / n));
    EXPECT_GT(corr, 0.7);

    Rng again(5, 1);
    EXPECT_EQ(GenerateTraffic(config, again).values, series.values);
    config.cells = 0;
    EXPECT_THROW(GenerateTraffic(config, again), std::invalid_argument);
}

} // namespace
} // namespace fedran
