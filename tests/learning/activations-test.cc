// The recurrent cells' float logistic and tanh: accuracy against long double over the range
// the cells see and beyond, and the saturated ends.

#include "models/learning/activations.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace fedran
{
namespace
{

/// Inputs from -100 to 100: a dense grid near 0 and a coarse one out to saturation.
std::vector<float>
Inputs()
{
    std::vector<float> x;
    for (int k = -200000; k <= 200000; ++k)
    {
        x.push_back(static_cast<float>(k) * 1e-4f); // [-20, 20]
    }
    for (int k = -1000; k <= 1000; ++k)
    {
        x.push_back(static_cast<float>(k) * 0.1f); // [-100, 100]
    }
    x.push_back(1e-30f);
    x.push_back(-1e-30f);
    return x;
}

TEST(Activations, SigmoidIsWithinFourUlps)
{
    const std::vector<float> x = Inputs();
    std::vector<float> y = x;
    SigmoidInPlace(y.data(), y.size());
    for (size_t k = 0; k < x.size(); ++k)
    {
        const long double exact = 1.0L / (1.0L + std::exp(-static_cast<long double>(x[k])));
        // Relative where the result is a normal float; below e^-87 the clamp leaves it tiny.
        const long double tolerance =
            std::max(4.0L * std::numeric_limits<float>::epsilon() * exact, 1e-37L);
        ASSERT_LE(std::abs(y[k] - exact), tolerance) << "x = " << x[k];
    }
    EXPECT_EQ(y.back(), 0.5f);
}

TEST(Activations, TanhIsWithinAFewUlpsOfOne)
{
    const std::vector<float> x = Inputs();
    std::vector<float> y(x.size());
    Tanh(x.data(), y.data(), x.size());
    for (size_t k = 0; k < x.size(); ++k)
    {
        const long double exact = std::tanh(static_cast<long double>(x[k]));
        // 1 - 2 / (e^{2x} + 1): the error is about an ulp of 1 near 0, relative elsewhere.
        const long double tolerance =
            4.0L * std::numeric_limits<float>::epsilon() * std::max(std::abs(exact), 0.5L);
        ASSERT_LE(std::abs(y[k] - exact), tolerance) << "x = " << x[k];
    }
    std::vector<float> same = x;
    TanhInPlace(same.data(), same.size());
    EXPECT_EQ(same, y);
    EXPECT_EQ(y[0], -1.0f);     // x = -20
    EXPECT_EQ(y[400000], 1.0f); // x = 20
}

} // namespace
} // namespace fedran
