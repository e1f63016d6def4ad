// Adaptive clipping (models/fl/adaptive-clip.h): the noise split z_Delta, the clip norm's
// geometric update over scripted bits against a hand computation, the count's noise from its
// own stream, the bit on the wire and C in the model frame, and the central rule clipping at
// the estimator's C.

#include "compression/codec.h"
#include "models/fl/adaptive-clip.h"
#include "models/fl/dp-aggregation.h"
#include "models/fl/federated-task.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace fedran::test
{
namespace
{

DpConfig
Adaptive(double clip, double z, double countStddev)
{
    DpConfig config;
    config.mode = "central";
    config.clipNorm = clip;
    config.noiseMultiplier = z;
    config.adaptive.enabled = true;
    config.adaptive.countStddev = countStddev;
    return config;
}

TEST(AdaptiveClip, SumNoiseMultiplierKeepsTheTotal)
{
    // z_Delta = (z^-2 - (2 sigma_b)^-2)^-1/2: z = 0.5, sigma_b = 0.5 gives (4 - 1)^-1/2.
    EXPECT_NEAR(AdaptiveSumNoiseMultiplier(0.5, 0.5), 1.0 / std::sqrt(3.0), 1e-15);
    // The two Gaussian releases (sensitivities 1 and 1/2) compose to multiplier z again.
    for (double z : {0.3, 1.0, 2.5})
    {
        const double sigmaB = 2.0 * z; // well above z / 2
        const double zDelta = AdaptiveSumNoiseMultiplier(z, sigmaB);
        EXPECT_GT(zDelta, z);
        EXPECT_NEAR(1.0 / (zDelta * zDelta) + 1.0 / (4.0 * sigmaB * sigmaB), 1.0 / (z * z), 1e-12);
    }
    EXPECT_EQ(AdaptiveSumNoiseMultiplier(0.0, 0.5), 0.0); // no noise anywhere
    // The count's noise alone would cost z or more: refused.
    EXPECT_THROW(AdaptiveSumNoiseMultiplier(1.0, 0.5), std::invalid_argument);
    EXPECT_THROW(AdaptiveSumNoiseMultiplier(1.5, 0.5), std::invalid_argument);
}

TEST(AdaptiveClip, FollowsAHandComputationOverScriptedBits)
{
    // m = 10, gamma = 0.5, eta = 0.2, no count noise: b = (sum of (b_i - 1/2)) / m + 1/2.
    // Round 1: 7 of 10 unclipped, b = 0.7, C = 0.5 exp(-0.04)
    // Round 2: 2 of 8 unclipped (two never arrived), b = (1 - 3) / 10 + 0.5 = 0.3, C x exp(0.04)
    // Round 3: 0 of 10 unclipped, b = 0, C x exp(0.1)
    // Values by hand, each rounded to float32 as C travels: 0.48039472103118896, 0.5,
    // 0.5525854825973511.
    const DpConfig config = Adaptive(0.5, 0.0, 0.0); // no count noise: the script moves C
    AdaptiveClip clip(config, 10, Rng(1, kDpClipCountStream));
    EXPECT_EQ(clip.Current(), 0.5);
    const std::vector<std::vector<bool>> rounds{
        {true, true, true, true, true, true, true, false, false, false},
        {true, true, false, false, false, false, false, false},
        {false, false, false, false, false, false, false, false, false, false},
    };
    const double expected[] = {0.48039472103118896, 0.5, 0.5525854825973511};
    for (size_t r = 0; r < rounds.size(); ++r)
    {
        for (bool bit : rounds[r])
        {
            clip.Report(bit);
        }
        EXPECT_EQ(clip.Reports(), rounds[r].size());
        clip.EndRound();
        EXPECT_EQ(clip.Current(), expected[r]) << "round " << r + 1;
        EXPECT_EQ(clip.Reports(), 0u);
    }
    // Independently of the class: the same step from the formula in libm.
    EXPECT_NEAR(NextClipNorm(0.5, 2.0, 0.0, 10.0, config.adaptive),
                0.5 * std::exp(-0.2 * (0.7 - 0.5)),
                1e-7);
    // The noisy fraction is clamped to [0, 1].
    EXPECT_EQ(NextClipNorm(1.0, 5.0, 100.0, 10.0, config.adaptive),
              double(float(std::exp(-0.2 * 0.5))));
    EXPECT_EQ(NextClipNorm(1.0, -5.0, -100.0, 10.0, config.adaptive),
              double(float(std::exp(0.2 * 0.5))));
}

TEST(AdaptiveClip, CountNoiseComesFromItsOwnStream)
{
    // sigma_b = 0.5 (10 / 20): each round draws one N(0, sigma_b^2) from kDpClipCountStream,
    // also when no bit arrived.
    const DpConfig config = Adaptive(0.05, 0.5, 0.5);
    AdaptiveClip clip(config, 10, Rng(9, kDpClipCountStream));
    Rng replay(9, kDpClipCountStream);
    double c = double(float(0.05));
    for (int round = 0; round < 3; ++round)
    {
        for (int k = 0; k < 10; ++k)
        {
            clip.Report(false); // every update clipped: C grows
        }
        clip.EndRound();
        c = NextClipNorm(c, -5.0, 0.5 * replay.Normal(), 10.0, config.adaptive);
        EXPECT_EQ(clip.Current(), c) << round;
    }
    EXPECT_GT(clip.Current(), 0.05);
    clip.EndRound(); // nobody reported
    c = NextClipNorm(c, 0.0, 0.5 * replay.Normal(), 10.0, config.adaptive);
    EXPECT_EQ(clip.Current(), c);
    EXPECT_EQ(clip.SumNoiseMultiplier(), AdaptiveSumNoiseMultiplier(0.5, 0.5));
}

TEST(AdaptiveClip, TheBitAndTheClipNormTravel)
{
    std::vector<uint8_t> payload{7, 8, 9};
    AppendClipReport(payload, true);
    EXPECT_EQ(payload.size(), 4u); // one byte on the uplink
    bool unclipped = false;
    const std::span<const uint8_t> codec = TakeClipReport(payload, unclipped);
    EXPECT_TRUE(unclipped);
    EXPECT_EQ(codec.size(), 3u);
    AppendClipReport(payload, false);
    TakeClipReport(payload, unclipped);
    EXPECT_FALSE(unclipped);
    EXPECT_THROW(TakeClipReport(std::span<const uint8_t>(), unclipped), DecodeError);
    const std::vector<uint8_t> bad{2};
    EXPECT_THROW(TakeClipReport(bad, unclipped), DecodeError);
    EXPECT_EQ(ClipNormFromField(ClipNormField(0.48039472103118896)), 0.48039472103118896);
    EXPECT_EQ(ClipNormFromField(ClipNormField(0.05)), double(float(0.05)));
}

TEST(AdaptiveClip, TheCentralRuleClipsAtTheEstimatorsNorm)
{
    // z = 0: no noise on the sum, so the result is the clipped sum / m exactly.
    auto clip = std::make_shared<AdaptiveClip>(Adaptive(1.0, 0.0, 0.5), 2, Rng(1, 6));
    auto rule = MakeCentralDpRule(Adaptive(1.0, 0.0, 0.5), 2, Rng(1, kDpNoiseStream), clip);
    const std::vector<float> update{3.0f, 4.0f}; // norm 5
    std::vector<float> out(2);
    rule->Reset(2);
    rule->Add(update, 1.0);
    rule->Result(out);
    EXPECT_FLOAT_EQ(out[0], 0.6f / 2); // clipped to 1, over m = 2
    clip->Report(false);
    clip->EndRound();
    const double c = clip->Current();
    EXPECT_GT(c, 1.0);
    rule->Reset(2); // the next round's C
    rule->Add(update, 1.0);
    rule->Result(out);
    EXPECT_NEAR(out[0], 3.0 * c / 5.0 / 2.0, 1e-7);
    EXPECT_NEAR(rule->AggregateWeights()[0], c / 5.0 / 2.0, 1e-12);
}

} // namespace
} // namespace fedran::test
