// The `time` policy (time-policy.h) and its round clock (round-clock.h). No ns-3.

#include "models/fl/rate-controller.h"
#include "models/fl/round-clock.h"
#include "models/fl/time-policy.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace fedran::control
{
namespace
{

TransferSample
AtBps(double bps, double bytes = 1e5)
{
    return TransferSample{bytes, 8.0 * bytes / bps, 0.01};
}

TEST(RoundClockTest, TellsTheOthersEndOnlyWhenTheRoundWaitedForThem)
{
    RoundClock clock;
    EXPECT_FALSE(clock.Estimate().othersEndS);
    // Round 1 starts at 100 s; this client's update is in at 102 s; round 2 leaves at 102.1 s:
    // it closed the round (gap 0.1 s = the smallest seen, the turnaround).
    clock.RoundStarted(1, 100.0);
    clock.UpdateArrived(1, 102.0);
    clock.RoundStarted(2, 102.1);
    EXPECT_FALSE(clock.Estimate().othersEndS);
    EXPECT_NEAR(clock.Estimate().turnaroundS, 0.1, 1e-9);
    // Round 2: in at 103.1 s, round 3 leaves at 107.1 s: the others' end was at
    // 5 s - 0.1 s from the round's start.
    clock.UpdateArrived(2, 103.1);
    clock.RoundStarted(3, 107.1);
    ASSERT_TRUE(clock.Estimate().othersEndS);
    EXPECT_NEAR(*clock.Estimate().othersEndS, 4.9, 1e-9);
    // Not selected in round 4: round 5 keeps the estimate.
    clock.UpdateArrived(3, 108.0);
    clock.RoundStarted(5, 120.0);
    EXPECT_NEAR(*clock.Estimate().othersEndS, 4.9, 1e-9);
}

/// none / 8-bit / sign for a 1M-parameter model: sizes and relative errors.
std::vector<RungProfile>
Ladder()
{
    return {{4'000'000, 0.0}, {1'000'000, 1e-4}, {125'000, 0.5}};
}

TimeInputs
Inputs(double bps)
{
    TimeInputs in;
    in.startToModelS = 1.0;
    in.computeS = 2.0;
    in.bps = bps;
    in.noiseRatio = 1.0;
    return in;
}

TEST(TimePolicyTest, FastClientsSendFaithfulRungsLaggingOnesCoarse)
{
    const std::vector<RungProfile> rungs = Ladder();
    auto measure = [&](size_t r) {
        return rungs[r];
    };
    // 20 Mbit/s: none (1 + 0) x 4.6 s, 8-bit (1 + 1e-4) x 3.4 s, sign 1.5 x 3.05 s.
    EXPECT_EQ(ChooseForTime(Inputs(20e6), measure, {0, 2}).rung, 1u);
    // 1 Mbit/s: none 35 s, 8-bit 11 s, sign 1.5 x 4 s = 6 s.
    EXPECT_EQ(ChooseForTime(Inputs(1e6), measure, {0, 2}).rung, 2u);
    // The same fast client when the round waits for the slow one until 6 s: none arrives
    // before then and costs no round time.
    TimeInputs fast = Inputs(20e6);
    fast.roundEnd.othersEndS = 6.0;
    const TimeChoice choice = ChooseForTime(fast, measure, {0, 2});
    EXPECT_EQ(choice.rung, 0u);
    EXPECT_DOUBLE_EQ(choice.roundS, 6.0);
    EXPECT_DOUBLE_EQ(choice.multiplier, 1.0);
}

TEST(TimePolicyTest, NoisyUpdatesTolerateCoarseRungs)
{
    const std::vector<RungProfile> rungs = Ladder();
    auto measure = [&](size_t r) {
        return rungs[r];
    };
    TimeInputs in = Inputs(20e6);
    in.noiseRatio = 100.0; // sign's 0.5 error adds 0.5% to the rounds
    const TimeChoice noisy = ChooseForTime(in, measure, {0, 2});
    EXPECT_EQ(noisy.rung, 2u);
    EXPECT_DOUBLE_EQ(noisy.multiplier, 1.005);
    // A clean update (eta -> 0) is mostly signal: the error is weighed against its whole
    // second moment, not against the little noise it has, so 8-bit's 1e-4 stays 1e-4.
    in.noiseRatio = 1e-5;
    const TimeChoice clean = ChooseForTime(in, measure, {0, 1});
    EXPECT_EQ(clean.rung, 1u);
    EXPECT_NEAR(clean.multiplier, 1.0001, 1e-9);
}

TEST(TimePolicyTest, TheAveragedSignalDilutesAnUnbiasedRungsError)
{
    // Ten updates averaged, a tenth of each one sampling noise: the average's second moment
    // is 0.9 (signal) + 0.1 / 10 (noise) of one update's; an unbiased rung adds omega / 10,
    // a biased one omega. rho = omega / (10 x 0.9 + 0.1), ten times that when biased.
    RungProfile sign{125'000, 0.5};
    sign.biased = true;
    RungProfile stochastic{125'000, 0.5};
    TimeInputs in = Inputs(1e6);
    in.averagedUpdates = 10;
    in.noiseRatio = 0.1;
    const TimeChoice unbiased = ChooseForTime(in, [&](size_t) { return stochastic; }, {0, 0});
    EXPECT_NEAR(unbiased.multiplier, 1.0 + 0.5 / 9.1, 1e-12);
    const TimeChoice biased = ChooseForTime(in, [&](size_t) { return sign; }, {0, 0});
    EXPECT_NEAR(biased.multiplier, 1.0 + 5.0 / 9.1, 1e-12);
    // Without a noise estimate: the full-batch form 1 + omega / m.
    in.noiseRatio = 0.0;
    EXPECT_NEAR(ChooseForTime(in, [&](size_t) { return stochastic; }, {0, 0}).multiplier,
                1.05,
                1e-12);
    // All noise (eta >= 1): the noise averages as the error does, rho = omega / eta.
    in.noiseRatio = 2.0;
    EXPECT_NEAR(ChooseForTime(in, [&](size_t) { return stochastic; }, {0, 0}).multiplier,
                1.25,
                1e-12);
}

TEST(TimePolicyTest, BiasedRungsCountTheirErrorOncePerAveragedUpdate)
{
    // 4-bit stochastic (unbiased) and sign (biased) for a 1M-parameter model.
    RungProfile sign{125'000, 0.5};
    sign.biased = true;
    const std::vector<RungProfile> rungs = {{4'000'000, 0.0}, {500'000, 0.05}, sign};
    auto measure = [&](size_t r) {
        return rungs[r];
    };
    // 1 Mbit/s, one update averaged: 4-bit 1.05 x 7 s = 7.35, sign 1.5 x 4 s = 6: sign.
    TimeInputs in = Inputs(1e6);
    EXPECT_EQ(ChooseForTime(in, measure, {0, 2}).rung, 2u);
    // Ten averaged: sign's error stays while the noise and 4-bit's error fall tenfold, so
    // sign costs (1 + 10 x 0.5) x 4 s = 24: 4-bit.
    in.averagedUpdates = 10;
    const TimeChoice choice = ChooseForTime(in, measure, {0, 2});
    EXPECT_EQ(choice.rung, 1u);
    EXPECT_DOUBLE_EQ(choice.multiplier, 1.05);
    // The same error on an unbiased rung is not weighted.
    std::vector<RungProfile> unbiased = rungs;
    unbiased[2].biased = false;
    EXPECT_EQ(ChooseForTime(in, [&](size_t r) { return unbiased[r]; }, {0, 2}).rung, 2u);
}

TEST(TimePolicyTest, RungsThatMissTheDeadlineAreChosenOnlyIfAllDo)
{
    // Errors large enough that none wins on progress: 8-bit (1 + 3) x 11 s = 44 s and sign
    // (1 + 20) x 4 s = 84 s against none's 35 s.
    const std::vector<RungProfile> rungs = {{4'000'000, 0.0}, {1'000'000, 3.0}, {125'000, 20.0}};
    auto measure = [&](size_t r) {
        return rungs[r];
    };
    TimeInputs in = Inputs(1e6);
    EXPECT_EQ(ChooseForTime(in, measure, {0, 2}).rung, 0u);
    in.deadlineS = 20.0; // ...but none arrives after the deadline (35 s); 8-bit (11 s) does not
    EXPECT_EQ(ChooseForTime(in, measure, {0, 2}).rung, 1u);
    in.deadlineS = 2.0; // nothing arrives in time: the first to arrive
    EXPECT_EQ(ChooseForTime(in, measure, {0, 2}).rung, 2u);
}

TEST(TimePolicyTest, ControllerPlansWithTheRobustPredictorAndTheRoundEnd)
{
    const nlohmann::json spec = {{"type", "adaptive"}, {"policy", "time"}};
    RateController controller(ParseControllerConfig(spec, "uplink", 3));
    EXPECT_TRUE(controller.NeedsError());
    const std::vector<RungProfile> rungs = Ladder();
    for (double bps : {1e6, 1e6, 1e6, 20e6}) // a recovery: planned at 20 Mbit/s at once
    {
        controller.AddTransfer(AtBps(bps));
    }
    RoundInputs in;
    in.computeS = 2.0;
    in.elapsedS = 1.0;
    in.predictedBps = controller.PredictBps();
    in.updateNorm = 1.0;
    in.gradVariance = 1.0;
    in.learningRate = 1.0;
    in.steps = 1; // eta = 1
    EXPECT_EQ(controller.Decide(in, rungs).rung, 1u);
    in.roundEnd.othersEndS = 6.0;
    EXPECT_EQ(controller.Decide(in, rungs).rung, 0u);
    EXPECT_THROW(ParseControllerConfig({{"policy", "time"}, {"estimator", "x"}}, "uplink", 3),
                 CodecConfigError);
}

TEST(TimePolicyTest, IsTheDefaultPolicyWithTheRobustPredictor)
{
    const ControllerConfig config =
        ParseControllerConfig({{"type", "adaptive"}, {"ladder", {1, 2}}}, "uplink", 2);
    EXPECT_EQ(config.policy, Policy::Time);
    EXPECT_FALSE(config.estimator); // robust_harmonic_mean, chosen by the controller
    RateController controller(config);
    controller.AddTransfer(AtBps(1e6));
    controller.AddTransfer(AtBps(1e7)); // a level shift: followed at once
    EXPECT_NEAR(*controller.PredictBps(), 1e7, 1e-3);
}

} // namespace
} // namespace fedran::control
