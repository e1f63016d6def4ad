// The sum of squares behind grad_variance and update_norm (sgd-step.h) keeps the order every
// trace was recorded with: that of Eigen 3.4's vectorised sum, which computed it before.

#include "models/learning/eigen-config.h"
#include "models/learning/sgd-step.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>

namespace fedran
{
namespace
{

float
EigenSquares(const float* d, size_t n)
{
    return Eigen::Map<const Eigen::ArrayXf>(d, static_cast<Eigen::Index>(n)).square().sum();
}

TEST(ChunkSquares, HasEigensSumsBitsAtEverySizeAndOffset)
{
    std::mt19937 rng(7);
    // Magnitudes over many binades, so that a changed order shows in the last bits.
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_int_distribution<int> exponent(-12, 12);
    alignas(64) static float data[300 + 16];
    size_t differingFromPlainLoop = 0;
    for (int repeat = 0; repeat < 4; ++repeat)
    {
        for (float& v : data)
        {
            v = std::ldexp(normal(rng), exponent(rng));
        }
        for (size_t offset = 0; offset < 5; ++offset)
        {
            for (size_t n = 0; n <= 300; ++n)
            {
                const float* d = data + offset;
                const float ours = sgd::ChunkSquares(d, n);
                ASSERT_EQ(std::bit_cast<uint32_t>(ours),
                          std::bit_cast<uint32_t>(EigenSquares(d, n)))
                    << "n " << n << " offset " << offset;
                float plain = 0.0f;
                for (size_t k = 0; k < n; ++k)
                {
                    plain += d[k] * d[k];
                }
                differingFromPlainLoop += plain != ours;
            }
        }
    }
    // The check above could not tell orders apart if every order gave the same sums.
    EXPECT_GT(differingFromPlainLoop, 1000u);
}

} // namespace
} // namespace fedran
