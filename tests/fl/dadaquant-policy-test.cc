// DAdaQuant's level rules (dadaquant-policy.h) against hand computations. No ns-3.

#include "models/fl/dadaquant-policy.h"

#include <gtest/gtest.h>

#include <vector>

namespace fedran::control
{
namespace
{

TEST(DadaquantScheduleTest, DoublesWhenTheSmoothedLossStopsFallingThenHolds)
{
    // psi = 0.9, phi = 2, q from 1 to 8. By hand (E_t = 0.9 E_{t-1} + 0.1 G_t, E_1 = G_1):
    //  t  G    E_t        test (t - last >= 2: E_t - E_{t-2} > 0?)  q
    //  1  1.0  1.0        -                                          1
    //  2  0.8  0.98       hold                                       1
    //  3  0.7  0.952      -0.048: no                                 1
    //  4  1.3  0.9868     +0.0068: double                            2
    //  5  1.5  1.03812    hold (one round since the doubling)        2
    //  6  1.5  1.084308   +0.0975: double                            4
    //  7  0.1  0.98588    hold                                       4
    //  8  0.1  0.89729    -0.187: no                                 4
    //  9  2.0  1.00756    E_9 - E_7 = +0.0217: double                8
    // 10  5.0  1.40680    hold                                       8
    // 11  5.0  1.76612    rising, but q_max                          8
    DadaquantSchedule schedule(DadaquantConfig{0.9, 2, 1, 8});
    const std::vector<double> losses = {1.0, 0.8, 0.7, 1.3, 1.5, 1.5, 0.1, 0.1, 2.0, 5.0, 5.0};
    const std::vector<uint32_t> expected = {1, 1, 1, 2, 2, 4, 4, 4, 8, 8, 8};
    std::vector<uint32_t> levels;
    for (const double loss : losses)
    {
        levels.push_back(schedule.Next(loss));
    }
    EXPECT_EQ(levels, expected);
    EXPECT_NEAR(schedule.Smoothed(), 1.76612, 1e-5);
}

TEST(DadaquantScheduleTest, FallingLossKeepsTheFirstLevel)
{
    DadaquantSchedule schedule(DadaquantConfig{0.9, 3, 2, 16});
    for (int t = 0; t < 30; ++t)
    {
        EXPECT_EQ(schedule.Next(1.0 / (1.0 + t)), 2u);
    }
}

TEST(DadaquantScheduleTest, DefaultPhiIsATenthOfTheRounds)
{
    EXPECT_EQ(DadaquantDefaultPhi(500), 50u);
    EXPECT_EQ(DadaquantDefaultPhi(5), 1u);
}

TEST(DadaquantClientLevelsTest, SplitsByTheTwoThirdsPowerOfTheWeights)
{
    // w = 0.1, 0.2, 0.7 at q = 4: a = sum w^(2/3) = 1.345812, b = sum w^2 / 16 = 0.03375,
    // sqrt(a / b) = 6.31474, levels 1.3605, 2.1596, 4.9784 -> 1, 2, 5.
    const std::vector<double> weights = {0.1, 0.2, 0.7};
    EXPECT_EQ(DadaquantClientLevels(weights, 4, 1024), (std::vector<uint32_t>{1, 2, 5}));
    // Scale-free: sample counts give the same split as shares.
    const std::vector<double> counts = {100.0, 200.0, 700.0};
    EXPECT_EQ(DadaquantClientLevels(counts, 4, 1024), (std::vector<uint32_t>{1, 2, 5}));
    // Equal weights keep the static level; the cap bounds the largest.
    const std::vector<double> equal = {0.25, 0.25, 0.25, 0.25};
    EXPECT_EQ(DadaquantClientLevels(equal, 8, 1024), (std::vector<uint32_t>(4, 8)));
    EXPECT_EQ(DadaquantClientLevels(weights, 4, 3), (std::vector<uint32_t>{1, 2, 3}));
}

} // namespace
} // namespace fedran::control
