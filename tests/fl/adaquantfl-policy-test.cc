// AdaQuantFL's level rule (adaquantfl-policy.h) against a hand computation. No ns-3.

#include "models/fl/adaquantfl-policy.h"

#include <gtest/gtest.h>

#include <vector>

namespace fedran::control
{
namespace
{

TEST(AdaquantflScheduleTest, LevelRisesAsTheSquareRootOfTheLossRatio)
{
    // s_0 = 2, F_0 = 2.0. By hand, s_k = ceil(sqrt(2.0 / F_k) x 2):
    //   F_k  2.0 -> ceil(2)        = 2
    //        1.5 -> ceil(2.3094)   = 3
    //        0.5 -> ceil(4)        = 4
    //        0.3 -> ceil(5.1640)   = 6
    //        0.6 -> ceil(3.6515)   = 4   (the loss rose: the level falls back)
    //        0.02 -> ceil(20)      = 20
    //        0.001 -> ceil(89.44)  = 64  (the cap)
    AdaquantflSchedule schedule(2, 64);
    const std::vector<double> losses = {2.0, 1.5, 0.5, 0.3, 0.6, 0.02, 0.001};
    const std::vector<uint32_t> expected = {2, 3, 4, 6, 4, 20, 64};
    std::vector<uint32_t> levels;
    for (const double loss : losses)
    {
        levels.push_back(schedule.Next(loss));
    }
    EXPECT_EQ(levels, expected);
}

TEST(AdaquantflScheduleTest, UnusableLossKeepsTheLevel)
{
    AdaquantflSchedule schedule(2, 64);
    EXPECT_EQ(schedule.Next(0.0), 2u); // no F_0 yet
    EXPECT_EQ(schedule.Next(1.0), 2u); // F_0
    EXPECT_EQ(schedule.Next(0.25), 4u);
    EXPECT_EQ(schedule.Next(-1.0), 4u);
}

} // namespace
} // namespace fedran::control
