// PowerSGD building blocks: reshaping, the compression test, orthonormalization, and the
// power iteration's reconstruction quality.

#include "compression/internal/power-sgd.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace fedran::internal
{
namespace
{

std::vector<float>
Random(size_t n, Rng& rng)
{
    std::vector<float> x(n);
    for (float& value : x)
    {
        value = static_cast<float>(rng.Normal());
    }
    return x;
}

/// max |P^T P - I| over the columns that are not zero; counts the zero columns.
double
OrthonormalityError(const std::vector<float>& p, size_t n, size_t r, size_t* zeroColumns)
{
    double worst = 0.0;
    *zeroColumns = 0;
    for (size_t a = 0; a < r; ++a)
    {
        for (size_t b = 0; b < r; ++b)
        {
            double dot = 0.0;
            for (size_t k = 0; k < n; ++k)
            {
                dot += static_cast<double>(p[k * r + a]) * p[k * r + b];
            }
            if (a == b && dot == 0.0)
            {
                ++*zeroColumns;
                continue;
            }
            worst = std::max(worst, std::abs(dot - (a == b ? 1.0 : 0.0)));
        }
    }
    return worst;
}

double
FrobeniusDistance(const std::vector<float>& a, const std::vector<float>& b)
{
    double sum = 0.0;
    for (size_t i = 0; i < a.size(); ++i)
    {
        sum += (static_cast<double>(a[i]) - b[i]) * (static_cast<double>(a[i]) - b[i]);
    }
    return std::sqrt(sum);
}

/// One PowerSGD step from `q` (updated in place, as the warm start keeps it): returns M_hat.
std::vector<float>
PowerStep(const std::vector<float>& m, size_t n, size_t cols, size_t r, std::vector<float>& q)
{
    std::vector<float> p(n * r);
    ComputeP({std::span<const float>(m), n, cols}, {std::span<const float>(q), cols, r}, {p, n, r});
    Orthonormalize({p, n, r});
    ComputeQ({std::span<const float>(m), n, cols}, {std::span<const float>(p), n, r}, {q, cols, r});
    std::vector<float> mHat(n * cols);
    Reconstruct({std::span<const float>(p), n, r},
                {std::span<const float>(q), cols, r},
                {mHat, n, cols});
    return mHat;
}

TEST(PowerSgd, ReshapesTensorsAsMatrices)
{
    const auto dense = ReshapeAsMatrix({"w", {10, 784}});
    ASSERT_TRUE(dense);
    EXPECT_EQ(dense->rows, 10u);
    EXPECT_EQ(dense->cols, 784u);
    const auto conv = ReshapeAsMatrix({"conv", {64, 3, 3, 3}});
    ASSERT_TRUE(conv);
    EXPECT_EQ(conv->rows, 64u);
    EXPECT_EQ(conv->cols, 27u);
    EXPECT_FALSE(ReshapeAsMatrix({"b", {10}}));
    EXPECT_FALSE(ReshapeAsMatrix({"scalar", {}}));
    EXPECT_FALSE(ReshapeAsMatrix({"empty", {0, 5}}));
    EXPECT_FALSE(ReshapeAsMatrix({"empty", {5, 0}}));
}

TEST(PowerSgd, CompressesOnlyWhenTheFactorsAreSmallEnough)
{
    EXPECT_TRUE(WorthCompressing(10, 784, 1, 2.0));    // 1588 < 7840
    EXPECT_FALSE(WorthCompressing(4, 4, 2, 2.0));      // 32 > 16
    EXPECT_FALSE(WorthCompressing(4, 4, 1, 2.0));      // 16 == 16: not strictly smaller
    EXPECT_TRUE(WorthCompressing(4, 4, 1, 1.9));       // 15.2 < 16
    EXPECT_FALSE(WorthCompressing(100, 100, 50, 1.0)); // 10000 == 10000
}

TEST(PowerSgd, ViewsCheckTheirShapes)
{
    std::vector<float> data(6);
    EXPECT_THROW(MutableMatrixView(data, 2, 4), std::invalid_argument);
    EXPECT_THROW(MutableMatrixView(data, size_t(1) << 62, 4), std::invalid_argument);
    std::vector<float> p(6);
    std::vector<float> q(4);
    EXPECT_THROW(ComputeP({std::span<const float>(data), 2, 3},
                          {std::span<const float>(q), 2, 2},
                          {p, 3, 2}),
                 std::invalid_argument);
}

TEST(PowerSgd, OrthonormalizesColumns)
{
    Rng rng(1, 0);
    for (const size_t r : {size_t(1), size_t(2), size_t(4), size_t(8)})
    {
        const size_t n = 500;
        auto p = Random(n * r, rng);
        Orthonormalize({p, n, r});
        size_t zeros = 0;
        EXPECT_LT(OrthonormalityError(p, n, r, &zeros), 1e-5) << "rank " << r;
        EXPECT_EQ(zeros, 0u);
    }
}

TEST(PowerSgd, ZeroesDependentColumnsInsteadOfDividingByZero)
{
    const size_t n = 100;
    const size_t r = 4;
    Rng rng(2, 0);
    auto p = Random(n * r, rng);
    for (size_t k = 0; k < n; ++k)
    {
        p[k * r + 2] = 2.0f * p[k * r + 0] - 3.0f * p[k * r + 1]; // in span of columns 0, 1
        p[k * r + 3] = 0.0f;
    }
    Orthonormalize({p, n, r});
    size_t zeros = 0;
    EXPECT_LT(OrthonormalityError(p, n, r, &zeros), 1e-5);
    EXPECT_EQ(zeros, 2u);
    for (const float value : p)
    {
        EXPECT_TRUE(std::isfinite(value));
    }
    p.assign(n * r, std::numeric_limits<float>::quiet_NaN());
    Orthonormalize({p, n, r});
    EXPECT_EQ(p, std::vector<float>(n * r, 0.0f));
}

TEST(PowerSgd, RecoversARankRMatrixInOneIteration)
{
    const size_t n = 60;
    const size_t m = 40;
    const size_t r = 3;
    Rng rng(3, 0);
    const auto a = Random(n * r, rng);
    const auto b = Random(m * r, rng);
    std::vector<float> matrix(n * m);
    Reconstruct({std::span<const float>(a), n, r},
                {std::span<const float>(b), m, r},
                {matrix, n, m}); // A B^T, rank 3
    auto q = Random(m * r, rng);
    const auto mHat = PowerStep(matrix, n, m, r, q);
    double norm = 0.0;
    for (const float x : matrix)
    {
        norm += static_cast<double>(x) * x;
    }
    EXPECT_LT(FrobeniusDistance(mHat, matrix), 1e-5 * std::sqrt(norm));
}

TEST(PowerSgd, WarmStartIterationsApproachTheBestRankRApproximation)
{
    // M = U diag(s) V^T with orthonormal U, V and s_i = 0.8^i: the best rank-r error is
    // sqrt(sum_{i >= r} s_i^2) (Eckart-Young). Reusing Q each step is subspace iteration.
    const size_t n = 80;
    const size_t m = 50;
    const size_t full = 50;
    const size_t r = 2;
    Rng rng(4, 0);
    auto u = Random(n * full, rng);
    auto v = Random(m * full, rng);
    Orthonormalize({u, n, full});
    Orthonormalize({v, m, full});
    double optimal = 0.0;
    for (size_t i = 0; i < full; ++i)
    {
        const auto s = static_cast<float>(std::pow(0.8, i));
        for (size_t k = 0; k < n; ++k)
        {
            u[k * full + i] *= s;
        }
        optimal += i >= r ? static_cast<double>(s) * s : 0.0;
    }
    optimal = std::sqrt(optimal);
    std::vector<float> matrix(n * m);
    Reconstruct({std::span<const float>(u), n, full},
                {std::span<const float>(v), m, full},
                {matrix, n, m});

    auto q = Random(m * r, rng);
    std::vector<double> errors;
    for (int step = 0; step < 40; ++step)
    {
        errors.push_back(FrobeniusDistance(PowerStep(matrix, n, m, r, q), matrix));
    }
    for (size_t t = 1; t < errors.size(); ++t)
    {
        EXPECT_LE(errors[t], errors[t - 1] * (1 + 1e-5)) << "step " << t;
    }
    EXPECT_GT(errors.front(), 1.02 * optimal); // a random start is not already optimal
    EXPECT_LT(errors.back(), 1.001 * optimal);
    EXPECT_GE(errors.back(), optimal * (1 - 1e-4));
}

} // namespace
} // namespace fedran::internal
