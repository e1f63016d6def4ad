// ClientSizes (a fixed total split with quantity skew) and DrawClientSizes (free per-client
// sizes, as LEAF's Synthetic draws them).

#include "models/learning/client-sizes.h"
#include "models/learning/dataset.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace fedran
{
namespace
{

uint64_t
Sum(const std::vector<uint32_t>& sizes)
{
    return std::accumulate(sizes.begin(), sizes.end(), uint64_t{0});
}

/// Standard deviation over mean of the sizes.
double
CoefficientOfVariation(const std::vector<uint32_t>& sizes)
{
    const double mean = static_cast<double>(Sum(sizes)) / sizes.size();
    double squares = 0.0;
    for (uint32_t s : sizes)
    {
        squares += (s - mean) * (s - mean);
    }
    return std::sqrt(squares / sizes.size()) / mean;
}

TEST(ClientSizes, EqualSplitsNearEvenly)
{
    Rng rng(1);
    const auto sizes = ClientSizes(7, 100, SizeSpec::Equal(), 0, rng);
    EXPECT_EQ(sizes, (std::vector<uint32_t>{15, 15, 14, 14, 14, 14, 14}));
}

TEST(ClientSizes, LognormalSumsExactlyAndRespectsTheMinimum)
{
    for (double sigma : {0.0, 0.5, 1.0, 2.0, 4.0, 50.0})
    {
        for (uint64_t seed = 1; seed <= 5; ++seed)
        {
            Rng rng(seed);
            const auto sizes = ClientSizes(100, 60000, SizeSpec::Lognormal(sigma), 100, rng);
            ASSERT_EQ(sizes.size(), 100u);
            EXPECT_EQ(Sum(sizes), 60000u) << "sigma " << sigma << " seed " << seed;
            EXPECT_GE(*std::min_element(sizes.begin(), sizes.end()), 100u)
                << "sigma " << sigma << " seed " << seed;
        }
    }
}

TEST(ClientSizes, TightMinimumLeavesEveryClientAtTheFloorOrAbove)
{
    // 10 x 99 of 1000: only 10 examples are free to follow the lognormal weights.
    Rng rng(3);
    const auto sizes = ClientSizes(10, 1000, SizeSpec::Lognormal(2.0), 99, rng);
    EXPECT_EQ(Sum(sizes), 1000u);
    EXPECT_GE(*std::min_element(sizes.begin(), sizes.end()), 99u);
    // The exact-fit case: everyone gets the minimum.
    Rng exact(3);
    EXPECT_EQ(ClientSizes(10, 990, SizeSpec::Lognormal(2.0), 99, exact),
              std::vector<uint32_t>(10, 99));
}

TEST(ClientSizes, SpreadGrowsWithSigma)
{
    double previous = -1.0;
    for (double sigma : {0.0, 0.3, 1.0, 2.0})
    {
        Rng rng(7);
        const double cv =
            CoefficientOfVariation(ClientSizes(200, 100000, SizeSpec::Lognormal(sigma), 10, rng));
        EXPECT_GT(cv, previous) << "sigma " << sigma;
        previous = cv;
    }
    Rng zero(7);
    // sigma 0 is an equal split up to rounding.
    const auto flat = ClientSizes(200, 100000, SizeSpec::Lognormal(0.0), 10, zero);
    EXPECT_EQ(*std::max_element(flat.begin(), flat.end()), 500u);
    EXPECT_EQ(*std::min_element(flat.begin(), flat.end()), 500u);
}

TEST(ClientSizes, DeterministicForASeed)
{
    Rng a(11);
    Rng b(11);
    Rng c(12);
    const auto first = ClientSizes(50, 5000, SizeSpec::Lognormal(1.0), 5, a);
    EXPECT_EQ(first, ClientSizes(50, 5000, SizeSpec::Lognormal(1.0), 5, b));
    EXPECT_NE(first, ClientSizes(50, 5000, SizeSpec::Lognormal(1.0), 5, c));
}

TEST(ClientSizes, ImpossibleMinimumThrowsDataError)
{
    Rng rng(1);
    try
    {
        ClientSizes(10, 999, SizeSpec::Lognormal(1.0), 100, rng);
        ADD_FAILURE() << "no DataError";
    }
    catch (const DataError& e)
    {
        EXPECT_NE(std::string(e.what()).find("min_samples"), std::string::npos) << e.what();
    }
    EXPECT_THROW(ClientSizes(10, 999, SizeSpec::Equal(), 100, rng), DataError);
}

TEST(ClientSizes, RejectsInvalidArguments)
{
    Rng rng(1);
    EXPECT_THROW(ClientSizes(0, 10, SizeSpec::Equal(), 0, rng), std::invalid_argument);
    EXPECT_THROW(ClientSizes(2, 10, SizeSpec::Lognormal(-1.0), 0, rng), std::invalid_argument);
    EXPECT_THROW(ClientSizes(2, 10, SizeSpec::Lognormal(NAN), 0, rng), std::invalid_argument);
}

TEST(DrawClientSizes, LeafSizesStartAtFiftyAndRespectTheCap)
{
    Rng rng(2);
    const auto sizes = DrawClientSizes(1000, SizeSpec::Leaf(2000), rng);
    ASSERT_EQ(sizes.size(), 1000u);
    EXPECT_GE(*std::min_element(sizes.begin(), sizes.end()), 50u);
    EXPECT_EQ(*std::max_element(sizes.begin(), sizes.end()), 2000u); // lognormal(4, 2) reaches it
    // The median of 50 + lognormal(4, 2) is 50 + e^4 ~ 105.
    auto sorted = sizes;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_NEAR(sorted[500], 105.0, 15.0);
}

TEST(DrawClientSizes, EqualGivesEveryClientTheBase)
{
    Rng rng(2);
    EXPECT_EQ(DrawClientSizes(4, SizeSpec::Equal(30), rng), std::vector<uint32_t>(4, 30));
    SizeSpec capped = SizeSpec::Equal(30);
    capped.cap = 20;
    EXPECT_EQ(DrawClientSizes(4, capped, rng), std::vector<uint32_t>(4, 20));
}

TEST(DrawClientSizes, DeterministicForASeed)
{
    Rng a(5);
    Rng b(5);
    EXPECT_EQ(DrawClientSizes(100, SizeSpec::Leaf(), a), DrawClientSizes(100, SizeSpec::Leaf(), b));
}

TEST(DrawClientSizes, TooManyExamplesThrowsDataError)
{
    // e^30 ~ 1e13 per client saturates at uint32_t max; two such clients overflow the indices.
    Rng rng(1);
    EXPECT_THROW(DrawClientSizes(2, SizeSpec::Lognormal(0.0, 30.0), rng), DataError);
    EXPECT_THROW(DrawClientSizes(2, SizeSpec::Lognormal(-1.0, 4.0), rng), std::invalid_argument);
}

} // namespace
} // namespace fedran
