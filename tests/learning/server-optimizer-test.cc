#include "models/learning/server-optimizer.h"

#include <gtest/gtest.h>

#include <cmath>

namespace fedran
{
namespace
{

std::vector<float>
Step(ServerOptimizer& opt, std::vector<float> params, const std::vector<float>& delta)
{
    opt.Apply(delta, params);
    return params;
}

TEST(ServerOptimizer, FedAvgAddsTheScaledUpdate)
{
    auto opt = MakeServerOptimizer({.method = "fedavg", .lr = 0.5});
    EXPECT_EQ(Step(*opt, {1.0f, 2.0f}, {2.0f, -4.0f}), (std::vector<float>{2.0f, 0.0f}));
}

TEST(ServerOptimizer, FedAvgMAccumulatesVelocity)
{
    auto opt = MakeServerOptimizer({.method = "fedavgm", .lr = 1.0, .momentum = 0.5});
    std::vector<float> w{0.0f};
    opt->Apply(std::vector<float>{1.0f}, w); // v = 1
    EXPECT_FLOAT_EQ(w[0], 1.0f);
    opt->Apply(std::vector<float>{1.0f}, w); // v = 1.5
    EXPECT_FLOAT_EQ(w[0], 2.5f);
    opt->Apply(std::vector<float>{0.0f}, w); // v = 0.75: momentum keeps moving
    EXPECT_FLOAT_EQ(w[0], 3.25f);
}

TEST(ServerOptimizer, FedAdamFollowsReddiEtAl)
{
    ServerOptimizerConfig c{.method = "fedadam",
                            .lr = 0.1,
                            .beta1 = 0.9,
                            .beta2 = 0.99,
                            .tau = 1e-3};
    auto opt = MakeServerOptimizer(c);
    std::vector<float> w{0.0f, 0.0f};
    opt->Apply(std::vector<float>{2.0f, -0.5f}, w);
    // m = 0.1·Δ, v = 0.01·Δ², step = η·m/(√v+τ) = 0.1·0.1Δ/(0.1|Δ|+τ)
    EXPECT_NEAR(w[0], 0.1 * 0.2 / (0.2 + 1e-3), 1e-6);
    EXPECT_NEAR(w[1], 0.1 * -0.05 / (0.05 + 1e-3), 1e-6);
    // Adaptive: the step is nearly independent of the update's scale.
    EXPECT_NEAR(std::abs(w[0]), std::abs(w[1]), 0.01);
}

TEST(ServerOptimizer, RejectsBadSettings)
{
    EXPECT_THROW(MakeServerOptimizer({.method = "sgd"}), std::invalid_argument);
    EXPECT_THROW(MakeServerOptimizer({.method = "fedavg", .lr = 0.0}), std::invalid_argument);
    EXPECT_THROW(MakeServerOptimizer({.method = "fedavgm", .momentum = 1.0}),
                 std::invalid_argument);
    EXPECT_THROW(MakeServerOptimizer({.method = "fedadam", .tau = 0.0}), std::invalid_argument);
}

} // namespace
} // namespace fedran
