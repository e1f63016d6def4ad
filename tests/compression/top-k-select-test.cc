// SelectTopK against a brute-force reference: exactly the k largest magnitudes, ties to the
// lower index, on both strategies and on data built to defeat the sample.

#include "compression/internal/top-k-select.h"
#include "compression/rng.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <numeric>
#include <vector>

namespace fedran::internal
{
namespace
{

/// All indices by (magnitude key desc, index asc): the first k of it are the reference top-k.
std::vector<uint32_t>
ReferenceOrder(const std::vector<float>& x)
{
    std::vector<uint32_t> order(x.size());
    std::iota(order.begin(), order.end(), 0u);
    auto key = [&](uint32_t i) {
        return std::bit_cast<uint32_t>(x[i]) & 0x7fffffffu;
    };
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return key(a) > key(b);
    });
    return order;
}

enum class Kind
{
    Normal,
    FewValues, // many ties, zeros and signed zeros
    Special,   // normal plus NaN, inf, denormals, -0.0
};

std::vector<float>
Data(size_t n, Kind kind, uint64_t seed)
{
    Rng rng(seed, 9);
    std::vector<float> x(n);
    for (float& v : x)
    {
        switch (kind)
        {
            case Kind::Normal:
                v = static_cast<float>(rng.Normal());
                break;
            case Kind::FewValues: {
                const float values[] = {0.0f, -0.0f, 1.0f, -1.0f, 2.0f, 0.5f, -2.0f};
                v = values[rng.UniformInt(7)];
                break;
            }
            case Kind::Special: {
                const uint64_t r = rng.UniformInt(20);
                v = r == 0   ? std::numeric_limits<float>::quiet_NaN()
                    : r == 1 ? -std::numeric_limits<float>::infinity()
                    : r == 2 ? std::numeric_limits<float>::denorm_min()
                    : r == 3 ? -0.0f
                             : static_cast<float>(rng.Normal());
                break;
            }
        }
    }
    return x;
}

void
ExpectExact(const std::vector<float>& x,
            const std::vector<uint32_t>& order,
            size_t k,
            TopKStrategy strategy)
{
    std::vector<uint32_t> indices = {42}; // replaced, not appended to
    std::vector<float> values = {1.0f};
    SelectTopK(x, k, indices, values, strategy);
    std::vector<uint32_t> expected(order.begin(), order.begin() + std::min(k, x.size()));
    std::sort(expected.begin(), expected.end());
    ASSERT_EQ(indices, expected) << "n " << x.size() << " k " << k;
    ASSERT_EQ(values.size(), indices.size());
    for (size_t j = 0; j < indices.size(); ++j)
    {
        ASSERT_EQ(std::bit_cast<uint32_t>(values[j]), std::bit_cast<uint32_t>(x[indices[j]]));
    }
}

void
ExpectExact(const std::vector<float>& x, size_t k, TopKStrategy strategy)
{
    ExpectExact(x, ReferenceOrder(x), k, strategy);
}

TEST(SelectTopK, MatchesBruteForceOnSmallInputs)
{
    Rng rng(1, 1);
    uint64_t seed = 0;
    for (int trial = 0; trial < 300; ++trial)
    {
        const size_t n = rng.UniformInt(trial < 150 ? 70 : 9000);
        const Kind kind = static_cast<Kind>(trial % 3);
        const std::vector<float> x = Data(n, kind, ++seed);
        const std::vector<uint32_t> order = ReferenceOrder(x);
        for (const size_t k : {size_t{0},
                               size_t{1},
                               n / 2,
                               n > 0 ? n - 1 : 0,
                               n,
                               n + 5,
                               static_cast<size_t>(rng.UniformInt(n + 1))})
        {
            ExpectExact(x, order, k, TopKStrategy::Auto);
            ExpectExact(x, order, k, TopKStrategy::Histogram);
        }
    }
}

TEST(SelectTopK, MatchesBruteForceOnLargeInputs)
{
    // Large enough for the sampled path (n >= 2^18).
    uint64_t seed = 100;
    for (const size_t n : {size_t{1} << 18, size_t{300007}})
    {
        for (const Kind kind : {Kind::Normal, Kind::FewValues, Kind::Special})
        {
            const std::vector<float> x = Data(n, kind, ++seed);
            const std::vector<uint32_t> order = ReferenceOrder(x);
            for (const size_t k : {size_t{1}, n / 1000, n / 100, n / 10, n / 2, n - 1})
            {
                ExpectExact(x, order, k, TopKStrategy::Auto);
            }
            ExpectExact(x, order, n / 100, TopKStrategy::Histogram);
        }
    }
}

TEST(SelectTopK, ExactWhenTheSampleIsUnrepresentative)
{
    // The sampled path reads 2^15 keys at stride n / 2^15 = 8, offset 4. Distinct large
    // values at exactly those positions make it put the cut far too high (only a few hundred
    // elements reach it): the histogram fallback must take over.
    const size_t n = size_t{1} << 18;
    std::vector<float> x = Data(n, Kind::Normal, 3);
    for (size_t i = 4; i < n; i += 8)
    {
        x[i] = -50.0f - static_cast<float>(i) * 1e-4f;
    }
    const std::vector<uint32_t> order = ReferenceOrder(x);
    for (const size_t k : {n / 100, n / 20, n / 8})
    {
        ExpectExact(x, order, k, TopKStrategy::Auto);
    }
    // Large values the sample never sees: far more candidates than k, still exact.
    std::vector<float> y = Data(n, Kind::Normal, 4);
    for (size_t i = 0; i < n; i += 8)
    {
        y[i] = 100.0f + static_cast<float>(i % 1000);
    }
    ExpectExact(y, n / 100, TopKStrategy::Auto);
}

TEST(SelectTopK, TiesGoToTheLowerIndex)
{
    const std::vector<float> x = {1, -3, 3, 2, -3, 3, 0, -0.0f};
    std::vector<uint32_t> indices;
    SelectTopK(x, 3, indices);
    EXPECT_EQ(indices, (std::vector<uint32_t>{1, 2, 4}));
    SelectTopK(x, 7, indices);
    EXPECT_EQ(indices, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6}));

    // All equal on the sampled path: the first k.
    const std::vector<float> flat(size_t{1} << 19, -0.25f);
    SelectTopK(flat, 12345, indices);
    ASSERT_EQ(indices.size(), 12345u);
    EXPECT_EQ(indices.front(), 0u);
    EXPECT_EQ(indices.back(), 12344u);
}

TEST(SelectTopK, NanRanksAboveInfinity)
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<float> x = {1e30f, -inf, 5, nan, 7};
    std::vector<uint32_t> indices;
    SelectTopK(x, 1, indices);
    EXPECT_EQ(indices, (std::vector<uint32_t>{3}));
    SelectTopK(x, 2, indices);
    EXPECT_EQ(indices, (std::vector<uint32_t>{1, 3}));
}

/// SelectTopKCompensated against forming e first and then SelectTopK: the same e and the same
/// selection, bit for bit.
void
ExpectCompensatedMatches(const std::vector<float>& g,
                         const std::vector<float>& residual,
                         float beta,
                         bool fresh,
                         size_t k)
{
    std::vector<float> expectedE = residual;
    const Compensation compensation{g, beta, fresh};
    compensation.Apply(expectedE, 0, expectedE.size());
    std::vector<uint32_t> expectedIndices;
    std::vector<float> expectedValues;
    SelectTopK(expectedE, k, expectedIndices, expectedValues);

    std::vector<float> e = residual;
    std::vector<uint32_t> indices = {7};
    std::vector<float> values = {7.0f};
    SelectTopKCompensated(compensation, e, k, indices, values);
    ASSERT_EQ(indices, expectedIndices) << "n " << g.size() << " k " << k << " fresh " << fresh;
    ASSERT_EQ(values.size(), expectedValues.size());
    for (size_t j = 0; j < values.size(); ++j)
    {
        ASSERT_EQ(std::bit_cast<uint32_t>(values[j]), std::bit_cast<uint32_t>(expectedValues[j]));
    }
    for (size_t i = 0; i < e.size(); ++i)
    {
        ASSERT_EQ(std::bit_cast<uint32_t>(e[i]), std::bit_cast<uint32_t>(expectedE[i]))
            << "e[" << i << "]";
    }
}

TEST(SelectTopK, CompensatedFormsTheSameResidualAndSelection)
{
    uint64_t seed = 500;
    // Below the sampled path, on it (with a tail that is not a whole block), and a fresh
    // residual whose memory holds garbage that must not be read.
    for (const size_t n : {size_t{1000}, size_t{1} << 18, size_t{300007}})
    {
        for (const Kind kind : {Kind::Normal, Kind::FewValues, Kind::Special})
        {
            const std::vector<float> g = Data(n, kind, ++seed);
            const std::vector<float> residual = Data(n, Kind::Normal, ++seed);
            for (const size_t k : {size_t{0}, size_t{1}, n / 100, n / 2, n})
            {
                ExpectCompensatedMatches(g, residual, 1.0f, false, k);
                ExpectCompensatedMatches(g, residual, 0.5f, false, k);
                std::vector<float> garbage(n, std::numeric_limits<float>::quiet_NaN());
                ExpectCompensatedMatches(g, garbage, 1.0f, true, k);
            }
        }
    }
    // A sample that misjudges the data (see ExactWhenTheSampleIsUnrepresentative): the fused
    // pass collects too few and the exact path runs on the formed residual.
    const size_t n = size_t{1} << 18;
    std::vector<float> g = Data(n, Kind::Normal, 3);
    for (size_t i = 4; i < n; i += 8)
    {
        g[i] = -50.0f - static_cast<float>(i) * 1e-4f;
    }
    const std::vector<float> zeros(n, 0.0f);
    for (const size_t k : {n / 100, n / 8})
    {
        ExpectCompensatedMatches(g, zeros, 1.0f, false, k);
        ExpectCompensatedMatches(g, zeros, 1.0f, true, k);
    }
}

} // namespace
} // namespace fedran::internal
