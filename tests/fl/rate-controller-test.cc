#include "models/fl/rate-controller.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
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

TEST(BandwidthEstimatorTest, HarmonicMeanOfTheLastWindow)
{
    HarmonicMeanEstimator estimator(3);
    EXPECT_FALSE(estimator.PredictBps());
    estimator.Add(AtBps(1e6));
    estimator.Add(AtBps(4e6));
    estimator.Add(AtBps(4e6));
    // 3 / (1/1 + 1/4 + 1/4) Mbps
    EXPECT_NEAR(*estimator.PredictBps(), 2e6, 1e-3);
    estimator.Add(AtBps(4e6)); // the 1 Mbps sample leaves the window
    EXPECT_NEAR(*estimator.PredictBps(), 4e6, 1e-3);
    estimator.Add(TransferSample{0.0, 1.0, 0.0}); // no bytes: ignored
    EXPECT_NEAR(*estimator.PredictBps(), 4e6, 1e-3);
}

TEST(BandwidthEstimatorTest, EwmaWeightsTheNewestSample)
{
    EwmaEstimator estimator(0.5);
    EXPECT_FALSE(estimator.PredictBps());
    estimator.Add(AtBps(8e6));
    EXPECT_NEAR(*estimator.PredictBps(), 8e6, 1e-3);
    estimator.Add(AtBps(4e6));
    EXPECT_NEAR(*estimator.PredictBps(), 6e6, 1e-3);
    estimator.Add(AtBps(2e6));
    EXPECT_NEAR(*estimator.PredictBps(), 4e6, 1e-3);
}

TEST(BandwidthEstimatorTest, BpsIsBitsOverDuration)
{
    EXPECT_DOUBLE_EQ((TransferSample{1000.0, 0.5, 0.0}).Bps(), 16000.0);
    EXPECT_THROW(HarmonicMeanEstimator(0), std::invalid_argument);
    EXPECT_THROW(EwmaEstimator(0.0), std::invalid_argument);
}

TEST(RobustEstimatorTest, ReactsToARecoveryWithinOneUpload)
{
    // The abr study's fading link: 200 kbit/s, 90% lost for a while, then back.
    RobustHarmonicMeanEstimator robust(5);
    HarmonicMeanEstimator plain(5);
    for (double bps : {200e3, 200e3, 20e3, 20e3, 20e3, 20e3, 20e3})
    {
        robust.Add(AtBps(bps));
        plain.Add(AtBps(bps));
    }
    EXPECT_NEAR(*robust.PredictBps(), 20e3, 0.2 * 20e3);
    robust.Add(AtBps(200e3));
    plain.Add(AtBps(200e3));
    // One upload after the step back up: within 20% of the new rate; the plain harmonic mean
    // of the window is still near the old one (24.7 kbit/s).
    EXPECT_NEAR(*robust.PredictBps(), 200e3, 0.2 * 200e3);
    EXPECT_LT(*plain.PredictBps(), 0.2 * 200e3);
}

TEST(RobustEstimatorTest, DropsWithinOneUploadToo)
{
    RobustHarmonicMeanEstimator robust(5);
    for (int i = 0; i < 5; ++i)
    {
        robust.Add(AtBps(1e6));
    }
    robust.Add(AtBps(1e5));
    EXPECT_NEAR(*robust.PredictBps(), 1e5, 0.2 * 1e5);
}

TEST(RobustEstimatorTest, DiscountsByTheLargestRecentError)
{
    RobustHarmonicMeanEstimator robust(3);
    EXPECT_FALSE(robust.PredictBps());
    robust.Add(AtBps(1e6)); // no prediction before it: no error
    EXPECT_NEAR(*robust.PredictBps(), 1e6, 1e-3);
    robust.Add(AtBps(1.25e6)); // predicted 1e6: error 0.25e6 / 1.25e6 = 0.2
    const double mean = 2.0 / (1.0 / 1e6 + 1.0 / 1.25e6);
    EXPECT_NEAR(*robust.UndiscountedBps(), mean, 1e-3);
    EXPECT_NEAR(*robust.PredictBps(), mean / 1.2, 1e-3);
    // Three more exact samples push the 0.2 error out of the window of 3.
    for (int i = 0; i < 3; ++i)
    {
        robust.Add(AtBps(*robust.UndiscountedBps()));
    }
    EXPECT_NEAR(*robust.PredictBps(), *robust.UndiscountedBps(), 1e-3);
    EXPECT_THROW(RobustHarmonicMeanEstimator(0), std::invalid_argument);
}

/// A ladder like none / 8-bit / top_k 1% / sign for a 100k-parameter model.
std::vector<RungProfile>
Ladder()
{
    return {{400'000, 0.0}, {100'000, 1e-5}, {8'000, 0.9}, {12'500, 0.4}};
}

RoundInputs
Round(uint32_t round)
{
    RoundInputs in;
    in.round = round;
    in.deadlineS = 10.0;
    in.computeS = 2.0;
    in.elapsedS = 0.5;
    return in;
}

/// Decide with the controller's own current prediction, as the client application does.
Decision
DecideNow(RateController& controller, RoundInputs in, std::span<const RungProfile> rungs)
{
    in.predictedBps = controller.PredictBps();
    return controller.Decide(in, rungs);
}

TEST(RateControllerTest, DeadlineFitsTheBudgetWhenBandwidthDropsTenfoldAndClimbsBack)
{
    ControllerConfig config;
    config.policy = Policy::Deadline;
    config.window = 3;
    RateController controller(config);
    const auto rungs = Ladder();
    const double budget = 10.0 - 2.0 - 0.5;

    // A link that delivers 1 Mbps for 6 rounds, 100 kbps for 8, then 1 Mbps again.
    auto trueBps = [](uint32_t round) {
        return round <= 6 || round > 14 ? 1e6 : 1e5;
    };
    std::vector<size_t> chosen;
    for (uint32_t round = 1; round <= 22; ++round)
    {
        const Decision d = DecideNow(controller, Round(round), rungs);
        ASSERT_FALSE(d.skip);
        ASSERT_TRUE(d.timeBudgetS);
        EXPECT_DOUBLE_EQ(*d.timeBudgetS, budget);
        chosen.push_back(d.rung);
        if (d.predictedBps)
        {
            // The choice fits the prediction (every rung here fits some prediction).
            EXPECT_LE(8.0 * rungs[d.rung].payloadBytes, *d.predictedBps * budget * 0.8)
                << "round " << round;
        }
        const double bytes = double(rungs[d.rung].payloadBytes);
        controller.AddTransfer(TransferSample{bytes, 8.0 * bytes / trueBps(round) + 0.02, 0.02});
    }
    // No history in round 1 and no downlink hint: the coarsest rung.
    EXPECT_EQ(chosen[0], 3u);
    // 1 Mbps x 7.5 s x 0.8 = 6 Mbit: the full 3.2 Mbit update fits.
    for (uint32_t round = 2; round <= 6; ++round)
    {
        EXPECT_EQ(chosen[round - 1], 0u) << "round " << round;
    }
    // After the drop the prediction follows within the window, then every choice fits what
    // the link really carries: 100 kbps x 7.5 s = 750 kbit -> 8-bit (800 kbit) no longer fits.
    for (uint32_t round = 7 + 3; round <= 14; ++round)
    {
        EXPECT_LE(8.0 * rungs[chosen[round - 1]].payloadBytes, 1e5 * budget) << "round " << round;
        EXPECT_EQ(chosen[round - 1], 2u) << "round " << round;
    }
    // Recovery: back to the full update within the window.
    for (uint32_t round = 15 + 3; round <= 22; ++round)
    {
        EXPECT_EQ(chosen[round - 1], 0u) << "round " << round;
    }
}

TEST(RateControllerTest, DeadlineBudgetShrinksWithComputeAndElapsedTime)
{
    ControllerConfig config;
    config.policy = Policy::Deadline;
    config.initialBps = 1e6;
    RateController controller(config);
    RoundInputs in = Round(1);
    EXPECT_EQ(DecideNow(controller, in, Ladder()).rung, 0u);
    in.computeS = 9.0; // 0.5 s left: 400 kbit fit, 8-bit's 800 kbit do not
    const Decision d = DecideNow(controller, in, Ladder());
    EXPECT_DOUBLE_EQ(*d.timeBudgetS, 0.5);
    EXPECT_EQ(d.rung, 2u);
    in.computeS = 20.0; // past the deadline: nothing fits, send the coarsest rung
    EXPECT_EQ(DecideNow(controller, in, Ladder()).rung, 3u);
}

TEST(RateControllerTest, EachPolicyMeasuresOnlyTheRungsItCompares)
{
    // A measurement is a trial encoding: a policy must not ask for more than it compares.
    auto measuredBy = [](Policy policy, double computeS, double skipRatio = 0.0) {
        ControllerConfig config;
        config.policy = policy;
        config.initialBps = 1e6;
        config.skipRatio = skipRatio;
        RateController controller(config);
        RoundInputs in = Round(1);
        in.computeS = computeS;
        in.updateNorm = 1.0;
        in.gradVariance = 1.0;
        in.learningRate = 0.1;
        in.steps = 10;
        in.predictedBps = controller.PredictBps();
        std::vector<size_t> asked;
        const auto ladder = Ladder();
        controller.Decide(in, ladder.size(), [&](size_t r) {
            asked.push_back(r);
            return ladder[r];
        });
        std::sort(asked.begin(), asked.end());
        asked.erase(std::unique(asked.begin(), asked.end()), asked.end());
        return asked;
    };
    EXPECT_EQ(measuredBy(Policy::Fixed, 2.0), std::vector<size_t>{});
    EXPECT_EQ(measuredBy(Policy::Deadline, 2.0), (std::vector<size_t>{0}));
    EXPECT_EQ(measuredBy(Policy::Deadline, 9.0), (std::vector<size_t>{0, 1, 2})); // 0.5 s left
    EXPECT_EQ(measuredBy(Policy::Variance, 2.0), (std::vector<size_t>{0, 1, 2, 3}));
    EXPECT_EQ(measuredBy(Policy::Hybrid, 2.0), (std::vector<size_t>{0, 1, 2, 3}));
}

TEST(RateControllerTest, ThroughputUsesItsTargetNotTheDeadline)
{
    ControllerConfig config;
    config.policy = Policy::Throughput;
    config.targetUploadS = 0.5;
    RateController controller(config);
    controller.AddTransfer(AtBps(1e6));
    RoundInputs in = Round(1);
    in.computeS = 100.0; // ignored by the throughput policy
    const Decision d = DecideNow(controller, in, Ladder());
    EXPECT_DOUBLE_EQ(*d.timeBudgetS, 0.5);
    EXPECT_EQ(d.rung, 2u); // 1 Mbps x 0.5 s x 0.8 = 400 kbit: 8-bit's 800 kbit do not fit
}

TEST(RateControllerTest, NoHistoryUsesTheDownlinkOrTheConfiguredEnd)
{
    RoundInputs in = Round(1);
    in.downlinkBps = 1e6;
    ControllerConfig config;
    config.policy = Policy::Deadline;
    EXPECT_EQ(RateController(config).Decide(in, Ladder()).rung, 0u);
    config.noHistory = NoHistory::MostFaithful;
    in.downlinkBps.reset();
    EXPECT_EQ(RateController(config).Decide(in, Ladder()).rung, 0u);
    config.noHistory = NoHistory::LeastFaithful;
    in.downlinkBps = 1e9;
    EXPECT_EQ(RateController(config).Decide(in, Ladder()).rung, 3u);
}

TEST(RateControllerTest, FixedIgnoresBandwidth)
{
    ControllerConfig config;
    config.policy = Policy::Fixed;
    config.fixedRung = 1;
    RateController controller(config);
    controller.AddTransfer(AtBps(10.0));
    const Decision d = DecideNow(controller, Round(1), Ladder());
    EXPECT_EQ(d.rung, 1u);
    EXPECT_FALSE(d.predictedBps);
}

RoundInputs
NoisyRound(double noiseRatio)
{
    RoundInputs in = Round(1);
    in.learningRate = 0.1;
    in.steps = 100;
    in.updateNorm = 1.0;
    // noise ratio = lr^2 x steps x var / norm^2 = var
    in.gradVariance = noiseRatio;
    return in;
}

TEST(RateControllerTest, VarianceSpendsBitsWhenTheUpdateIsClean)
{
    ControllerConfig config;
    config.policy = Policy::Variance;
    RateController controller(config);
    // Clean update (noise 1e-7 of its size): only the lossless rung adds less.
    Decision d = DecideNow(controller, NoisyRound(1e-7), Ladder());
    EXPECT_NEAR(*d.noiseRatio, 1e-7, 1e-12);
    EXPECT_EQ(d.rung, 0u);
    // Noise at 1e-3: 8-bit's 1e-5 is masked, top_k's 0.9 is not.
    EXPECT_EQ(DecideNow(controller, NoisyRound(1e-3), Ladder()).rung, 1u);
    // Noise above everything: the coarsest rung that stays under it (sign at 0.4 < 0.5).
    EXPECT_EQ(DecideNow(controller, NoisyRound(0.5), Ladder()).rung, 3u);
    // Noise dwarfs every rung: the last one.
    EXPECT_EQ(DecideNow(controller, NoisyRound(5.0), Ladder()).rung, 3u);
    // No variance measured: most faithful.
    EXPECT_EQ(DecideNow(controller, Round(1), Ladder()).rung, 0u);
}

TEST(RateControllerTest, HybridTakesTheCoarserOfVarianceAndBandwidth)
{
    ControllerConfig config;
    config.policy = Policy::Hybrid;
    RateController controller(config);
    controller.AddTransfer(AtBps(1e6)); // budget fits the full update
    EXPECT_EQ(DecideNow(controller, NoisyRound(1e-3), Ladder()).rung, 1u);
    EXPECT_EQ(DecideNow(controller, NoisyRound(1e-7), Ladder()).rung, 0u);
    RateController slow(config);
    slow.AddTransfer(AtBps(1e5)); // only 8 kB fits
    EXPECT_EQ(DecideNow(slow, NoisyRound(1e-7), Ladder()).rung, 2u);
}

TEST(RateControllerTest, RungScheduleRestrictsByRound)
{
    ControllerConfig config;
    config.policy = Policy::Deadline;
    config.initialBps = 1e9;
    config.rungSchedule = {{1, 0, 0}, {3, 1, 3}, {5, 0, 3}};
    RateController controller(config);
    EXPECT_EQ(DecideNow(controller, Round(1), Ladder()).rung, 0u);
    EXPECT_EQ(DecideNow(controller, Round(3), Ladder()).rung, 1u);
    EXPECT_EQ(DecideNow(controller, Round(4), Ladder()).rung, 1u);
    EXPECT_EQ(DecideNow(controller, Round(5), Ladder()).rung, 0u);
    // Even with no bandwidth the restriction holds.
    config.initialBps = 1.0;
    config.rungSchedule = {{1, 0, 1}};
    EXPECT_EQ(RateController(config).Decide(Round(1), Ladder()).rung, 1u);
}

TEST(RateControllerTest, NearZeroUpdatesSkipButNeverMoreThanMaxStalenessInARow)
{
    ControllerConfig config;
    config.policy = Policy::Deadline;
    config.skipRatio = 0.1;
    config.maxStaleness = 3;
    config.initialBps = 1e9;
    RateController controller(config);
    uint32_t inARow = 0;
    uint32_t skips = 0;
    std::vector<bool> pattern;
    for (uint32_t round = 1; round <= 30; ++round)
    {
        RoundInputs in = Round(round);
        in.updateNorm = round <= 3 ? 1.0 : 1e-6; // training stalls after round 3
        const Decision d = DecideNow(controller, in, Ladder());
        pattern.push_back(d.skip);
        inARow = d.skip ? inARow + 1 : 0;
        skips += d.skip;
        EXPECT_LE(inARow, 3u) << "round " << round;
    }
    EXPECT_FALSE(pattern[0]) << "no history: the first update goes";
    EXPECT_FALSE(pattern[1]);
    EXPECT_TRUE(pattern[3]) << "a near-zero update after normal ones is skipped";
    EXPECT_TRUE(pattern[4]);
    EXPECT_TRUE(pattern[5]);
    EXPECT_FALSE(pattern[6]) << "forced after max_staleness skips";
    EXPECT_GE(skips, 3u);
}

TEST(RateControllerTest, NormalUpdatesDoNotSkip)
{
    ControllerConfig config;
    config.policy = Policy::Deadline;
    config.skipRatio = 0.1;
    config.initialBps = 1e9;
    RateController controller(config);
    for (uint32_t round = 1; round <= 10; ++round)
    {
        RoundInputs in = Round(round);
        in.updateNorm = 1.0 + 0.3 * (round % 3);
        EXPECT_FALSE(DecideNow(controller, in, Ladder()).skip);
    }
}

TEST(ControllerConfigTest, ParsesEveryKey)
{
    const auto spec = nlohmann::json::parse(R"({
        "type": "adaptive", "ladder": [{"type": "none"}, {"type": "sign"}],
        "policy": "hybrid", "rung": 1, "safety": 0.5, "estimator": "ewma", "window": 4,
        "ewma_alpha": 0.25, "initial_bps": 2e6, "no_history": "least_faithful",
        "target_upload_s": 3, "variance_kappa": 2, "skip_ratio": 0.05, "skip_window": 7,
        "max_staleness": 2, "rung_schedule": [{"from_round": 1, "max_rung": 0},
                                              {"from_round": 4, "min_rung": 1}]})");
    const ControllerConfig c = ParseControllerConfig(spec, "compression.uplink", 2);
    EXPECT_EQ(c.policy, Policy::Hybrid);
    EXPECT_EQ(c.fixedRung, 1u);
    EXPECT_DOUBLE_EQ(c.safety, 0.5);
    EXPECT_EQ(c.estimator, EstimatorKind::Ewma);
    EXPECT_EQ(c.window, 4u);
    EXPECT_DOUBLE_EQ(c.ewmaAlpha, 0.25);
    EXPECT_DOUBLE_EQ(*c.initialBps, 2e6);
    EXPECT_EQ(c.noHistory, NoHistory::LeastFaithful);
    EXPECT_DOUBLE_EQ(*c.targetUploadS, 3.0);
    EXPECT_DOUBLE_EQ(c.varianceKappa, 2.0);
    EXPECT_DOUBLE_EQ(c.skipRatio, 0.05);
    EXPECT_EQ(c.skipWindow, 7u);
    EXPECT_EQ(c.maxStaleness, 2u);
    ASSERT_EQ(c.rungSchedule.size(), 2u);
    EXPECT_EQ(c.rungSchedule[0].maxRung, 0u);
    EXPECT_EQ(c.rungSchedule[1].fromRound, 4u);
    EXPECT_EQ(c.rungSchedule[1].minRung, 1u);
    EXPECT_EQ(c.rungSchedule[1].maxRung, 1u);
}

void
ExpectError(const std::string& extra, const std::string& needle)
{
    const auto spec = nlohmann::json::parse(
        R"({"type": "adaptive", "ladder": [{"type": "none"}, {"type": "sign"}])" + extra + "}");
    try
    {
        ParseControllerConfig(spec, "compression.uplink", 2);
        FAIL() << "accepted " << extra;
    }
    catch (const CodecConfigError& e)
    {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST(ControllerConfigTest, BadValuesNameTheirPath)
{
    ExpectError(R"(, "policy": "bola")", "compression.uplink.policy: must be one of");
    ExpectError(R"(, "safety": 0)", "compression.uplink.safety");
    ExpectError(R"(, "safety": 1.5)", "compression.uplink.safety");
    ExpectError(R"(, "rung": 2)", "compression.uplink.rung");
    ExpectError(R"(, "window": 0)", "compression.uplink.window");
    ExpectError(R"(, "estimator": 3)", "compression.uplink.estimator");
    ExpectError(R"(, "rung_schedule": [{"from_round": 2}, {"from_round": 2}])",
                "compression.uplink.rung_schedule[1].from_round");
    ExpectError(R"(, "rung_schedule": [{"min_rung": 1, "max_rung": 0}])",
                "compression.uplink.rung_schedule[0]: min_rung is above max_rung");
    ExpectError(R"(, "rung_schedule": [{"rungs": 1}])", "rung_schedule[0].rungs: unknown key");
}

} // namespace
} // namespace fedran::control
