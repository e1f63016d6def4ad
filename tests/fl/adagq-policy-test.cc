// AdaGQ's bit-width rules (adagq-policy.h) against hand computations. No ns-3.

#include "models/fl/adagq-policy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace fedran::control
{
namespace
{

TEST(AdagqMeanBitsTest, SignSearchWithTheHalfLevelProbeAndTheNormAdjustment)
{
    // Round 1 at 8 bits: R = (2.0 - 1.8) / 10 = 0.02; the probe at 7 bits saves 1/8 of the
    // 4 s upload, T' = 9.5, R' = (2.0 - 1.805) / 9.5 = 0.020526 > R: one bit less. No previous
    // norm: 7.
    AdagqRound round{8.0, 2.0, 1.8, 1.805, 10.0, 4.0, 1.0, 0.0};
    const double b2 = AdagqNextMeanBits(round, 1.0, 32.0);
    EXPECT_DOUBLE_EQ(b2, 7.0);
    // Round 2 at 7 bits: R = 0.1 / 9 = 0.0111; T' = 9 - 3.5 / 7 = 8.5, R' = 0.15 / 8.5 =
    // 0.0176 > R: 6; the norm halved: log2(0.5) = -1: 5.
    round = AdagqRound{b2, 1.8, 1.7, 1.65, 9.0, 3.5, 0.5, 1.0};
    const double b3 = AdagqNextMeanBits(round, 1.0, 32.0);
    EXPECT_DOUBLE_EQ(b3, 5.0);
    // Round 3 at 5 bits: R = 0.1 / 8 = 0.0125; T' = 8 - 2 / 5 = 7.6, R' = 0.08 / 7.6 =
    // 0.0105 < R: 6; the norm grew by sqrt(2): +0.5: 6.5.
    round = AdagqRound{b3, 1.7, 1.6, 1.62, 8.0, 2.0, 0.5 * std::sqrt(2.0), 0.5};
    EXPECT_NEAR(AdagqNextMeanBits(round, 1.0, 32.0), 6.5, 1e-12);
    // lambda_g = 0 ignores the norm; the width stays in [1, maxBits].
    EXPECT_DOUBLE_EQ(AdagqNextMeanBits(round, 0.0, 32.0), 6.0);
    EXPECT_DOUBLE_EQ(AdagqNextMeanBits(round, 1.0, 6.0), 6.0);
    round = AdagqRound{1.0, 1.0, 0.9, 0.8, 5.0, 1.0, 0.1, 1.0};
    EXPECT_DOUBLE_EQ(AdagqNextMeanBits(round, 1.0, 32.0), 1.0);
}

TEST(AdagqMeanBitsTest, MeasuredSignFromTheLastTwoRates)
{
    // No rate known: no step, only the norm term (halved norm: -1).
    AdagqMeasured round;
    round.bits = 8.0;
    round.gradNorm = 0.5;
    round.previousGradNorm = 1.0;
    EXPECT_DOUBLE_EQ(AdagqNextMeanBitsMeasured(round, 1.0, 8.0), 7.0);
    // One rate (or two at one width): one bit less, the probe's direction; at 1 bit, one more.
    round = AdagqMeasured{6.0, 6.0, 0.02, 0.0, NAN, 1.0, 1.0};
    EXPECT_DOUBLE_EQ(AdagqNextMeanBitsMeasured(round, 1.0, 8.0), 5.0);
    round = AdagqMeasured{6.0, 6.0, 0.02, 6.0, 0.03, 1.0, 1.0};
    EXPECT_DOUBLE_EQ(AdagqNextMeanBitsMeasured(round, 1.0, 8.0), 5.0);
    round = AdagqMeasured{1.0, 1.0, 0.02, 0.0, NAN, 1.0, 1.0};
    EXPECT_DOUBLE_EQ(AdagqNextMeanBitsMeasured(round, 1.0, 8.0), 2.0);
    // R = 0.015 at 6 bits, 0.005 at 8: (0.015 - 0.005) / (6 - 8) < 0, fewer bits went
    // faster: one bit less from the current 5, and the norm grew by sqrt(2): 4.5.
    round = AdagqMeasured{5.0, 6.0, 0.015, 8.0, 0.005, std::sqrt(2.0), 1.0};
    EXPECT_NEAR(AdagqNextMeanBitsMeasured(round, 1.0, 8.0), 4.5, 1e-12);
    // R = 0.01 at 5 bits, 0.015 at 6: more bits went faster, one bit more; capped at 8.
    round = AdagqMeasured{3.0, 5.0, 0.01, 6.0, 0.015, 1.0, 1.0};
    EXPECT_DOUBLE_EQ(AdagqNextMeanBitsMeasured(round, 1.0, 8.0), 4.0);
    round.bits = 8.0;
    EXPECT_DOUBLE_EQ(AdagqNextMeanBitsMeasured(round, 1.0, 8.0), 8.0);
}

TEST(AdagqClientBitsTest, EqualFinishAtTheMeanLevel)
{
    // Compute 1 s each, 0.1 and 0.2 s per bit of width. Finishing together at 1.6 s gives
    // 6 and 3 bits, levels 63 and 7, mean 35 = 2^b - 1 for b = log2(36).
    const std::vector<AdagqClientTimes> clients = {{1.0, 0.1}, {1.0, 0.2}};
    EXPECT_EQ(AdagqClientBits(clients, std::log2(36.0), 32), (std::vector<uint32_t>{6, 3}));
    // A slower compute leaves less time for the upload: 1 s, 1.3 s at 0.1 s per bit finish
    // together at 1 + 0.1 b_1 = 1.3 + 0.1 b_2, so b_1 = b_2 + 3: 5 and 2 give mean level
    // (31 + 3) / 2 = 17.
    const std::vector<AdagqClientTimes> skewed = {{1.0, 0.1}, {1.3, 0.1}};
    EXPECT_EQ(AdagqClientBits(skewed, std::log2(18.0), 32), (std::vector<uint32_t>{5, 2}));
    // Equal clients all get the mean width.
    const std::vector<AdagqClientTimes> equal(4, AdagqClientTimes{2.0, 0.5});
    EXPECT_EQ(AdagqClientBits(equal, 8.0, 32), (std::vector<uint32_t>(4, 8)));
}

} // namespace
} // namespace fedran::control
