// DrawComputeSpeeds: per-client training speeds drawn from a group's distribution.

#include "models/learning/compute-speed.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

namespace fedran
{
namespace
{

std::vector<double>
Draw(const ComputeSpeedSpec& spec, uint32_t count, uint64_t seed)
{
    Rng rng(seed, 99);
    return DrawComputeSpeeds(spec, count, rng);
}

double
Median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

ComputeSpeedSpec
Lognormal(double median, double sigma)
{
    ComputeSpeedSpec spec;
    spec.kind = ComputeSpeedSpec::Kind::Lognormal;
    spec.median = median;
    spec.sigma = sigma;
    return spec;
}

TEST(ComputeSpeed, SameSeedSameDrawsOtherSeedOtherDraws)
{
    const ComputeSpeedSpec spec = Lognormal(1000, 0.8);
    EXPECT_EQ(Draw(spec, 50, 3), Draw(spec, 50, 3));
    EXPECT_NE(Draw(spec, 50, 3), Draw(spec, 50, 4));
}

TEST(ComputeSpeed, LognormalHasItsMedianAndLogSpread)
{
    const std::vector<double> speeds = Draw(Lognormal(1000, 0.5), 4000, 11);
    // The sample median of n lognormal draws has a relative standard error of about
    // sigma·sqrt(pi/2)/sqrt(n) = 1.2% here; 5% is four standard errors.
    EXPECT_NEAR(Median(speeds), 1000.0, 50.0);
    double sum = 0.0, squares = 0.0;
    for (double s : speeds)
    {
        ASSERT_GT(s, 0.0);
        sum += std::log(s);
        squares += std::log(s) * std::log(s);
    }
    const double mean = sum / speeds.size();
    const double sd = std::sqrt(squares / speeds.size() - mean * mean);
    EXPECT_NEAR(sd, 0.5, 0.03); // standard error of sd: 0.5/sqrt(2n) = 0.0056
}

TEST(ComputeSpeed, UniformStaysWithinBoundsAndFillsThem)
{
    ComputeSpeedSpec spec;
    spec.kind = ComputeSpeedSpec::Kind::Uniform;
    spec.min = 200;
    spec.max = 600;
    const std::vector<double> speeds = Draw(spec, 2000, 5);
    const auto [lo, hi] = std::minmax_element(speeds.begin(), speeds.end());
    EXPECT_GE(*lo, 200.0);
    EXPECT_LT(*hi, 600.0);
    EXPECT_LT(*lo, 210.0);
    EXPECT_GT(*hi, 590.0);
    EXPECT_NEAR(Median(speeds), 400.0, 20.0);
}

TEST(ComputeSpeed, TiersGetTheirExactShareInShuffledOrder)
{
    ComputeSpeedSpec spec;
    spec.kind = ComputeSpeedSpec::Kind::Tiers;
    spec.tiers = {{4000, 0.2}, {1000, 0.5}, {250, 0.3}};
    const std::vector<double> speeds = Draw(spec, 10, 8);
    std::map<double, int> counts;
    for (double s : speeds)
    {
        ++counts[s];
    }
    EXPECT_EQ(counts[4000], 2);
    EXPECT_EQ(counts[1000], 5);
    EXPECT_EQ(counts[250], 3);
    // Largest remainder: 7 clients at 0.2/0.5/0.3 -> 1.4/3.5/2.1 -> 1/4/2.
    const std::vector<double> seven = Draw(spec, 7, 8);
    EXPECT_EQ(std::count(seven.begin(), seven.end(), 4000.0), 1);
    EXPECT_EQ(std::count(seven.begin(), seven.end(), 1000.0), 4);
    EXPECT_EQ(std::count(seven.begin(), seven.end(), 250.0), 2);
    // Which clients are fast is random, not the first ones in order.
    bool differs = false;
    for (uint64_t seed = 1; seed < 6; ++seed)
    {
        differs |= Draw(spec, 10, seed) != speeds;
    }
    EXPECT_TRUE(differs);
}

TEST(ComputeSpeed, FixedGivesEveryClientTheValue)
{
    ComputeSpeedSpec spec;
    spec.value = 1234.5;
    EXPECT_EQ(Draw(spec, 4, 1), std::vector<double>(4, 1234.5));
}

} // namespace
} // namespace fedran
