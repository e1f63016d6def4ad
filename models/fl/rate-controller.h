#ifndef FEDRAN_MODELS_FL_RATE_CONTROLLER_H
#define FEDRAN_MODELS_FL_RATE_CONTROLLER_H

// Adaptive bitrate control for one client: each round it picks a rung of the uplink ladder
// (compression/adaptive-ladder.h) or skips the upload, from what the client itself can observe:
// its own past uploads (bytes, duration, RTT), the download of this round's model, its
// compute time, the round deadline, and its update's norm and gradient variance.
// No ns-3 here: the client application feeds it numbers.

#include "compression/adaptive-ladder.h"
#include "models/fl/bandwidth-estimator.h"
#include "models/fl/round-clock.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fedran::control
{

enum class Policy
{
    Fixed,      ///< always `rung`: the baseline
    Throughput, ///< most faithful rung whose payload fits predicted bps x target_upload_s x safety
    Deadline,   ///< as Throughput, budget = deadline - compute - elapsed
    Variance,   ///< fewest bits whose relative error stays under kappa x the sampling noise
    Hybrid,     ///< Variance's choice, or a coarser rung if the Deadline budget demands it
    Time,       ///< most expected progress per second of round time (time-policy.h)
    /// A level policy (dadaquant, adaquantfl, adagq): the QSGD level the server assigned in the
    /// model frame (level-policy.h)
    ServerLevel,
};

enum class EstimatorKind
{
    HarmonicMean,
    Ewma,
    RobustHarmonicMean, ///< RobustMPC's, restarted at a level shift (bandwidth-estimator.h)
};

/// Where the bandwidth prediction comes from before the first measured upload.
enum class NoHistory
{
    Downlink,      ///< this round's model download throughput (assumes a symmetric link)
    LeastFaithful, ///< no prediction: the coarsest allowed rung
    MostFaithful,  ///< no prediction: the finest allowed rung
};

/// From round `fromRound` on (until the next entry), only rungs minRung..maxRung are allowed.
struct RungWindow
{
    uint32_t fromRound = 1;
    size_t minRung = 0;
    size_t maxRung = SIZE_MAX;
};

struct ControllerConfig
{
    Policy policy = Policy::Time; ///< the default of an adaptive uplink with no `policy`
    size_t fixedRung = 0;
    double safety = 0.8;
    /// Unset: robust_harmonic_mean for `time`, harmonic_mean for the others.
    std::optional<EstimatorKind> estimator;
    size_t window = 5;
    double ewmaAlpha = 0.3;
    std::optional<double> initialBps;
    NoHistory noHistory = NoHistory::Downlink;
    std::optional<double> targetUploadS; ///< Throughput's budget; the deadline if unset
    double varianceKappa = 1.0;
    double skipRatio = 0.0; ///< 0: never skip
    size_t skipWindow = 5;
    uint32_t maxStaleness = 3;
    std::vector<RungWindow> rungSchedule; ///< sorted by fromRound
    /// Not a key: server.clients_per_round, the updates a round averages (`time` weighs a
    /// biased rung's error by it).
    uint32_t averagedUpdates = 1;
};

/**
 * Reads the controller keys of an "adaptive" uplink spec (see kLadderControllerKeys).
 * `rungs` is the ladder's length. Throws CodecConfigError naming "<path>.<key>".
 */
ControllerConfig ParseControllerConfig(const nlohmann::json& spec,
                                       const std::string& path,
                                       size_t rungs);

/// What the client knows when its update is ready.
struct RoundInputs
{
    uint32_t round = 1;
    double deadlineS = 0.0; ///< the server's round deadline, from the round's start
    double computeS = 0.0;  ///< simulated local training time
    /// Time already gone in the round when the model had arrived: its download duration as
    /// the client saw it plus half an RTT for the first byte's trip.
    double elapsedS = 0.0;
    std::optional<double> downlinkBps; ///< this round's model download throughput
    /// The estimator's prediction (RateController::PredictBps) when the inputs were gathered;
    /// passed in so that Decide can run on a training thread while transfers are recorded.
    std::optional<double> predictedBps;
    double updateNorm = 0.0;
    double gradVariance = 0.0; ///< tr Cov of the minibatch gradient (local-trainer.h)
    double learningRate = 0.0;
    uint32_t steps = 0; ///< SGD steps behind the update
    /// Where the round is expected to end (RateController::RoundEnd when the inputs were
    /// gathered), for `time`.
    RoundEndEstimate roundEnd;
    /// A level policy's rung: the one of the level the server assigned (level-policy.h).
    size_t assignedRung = 0;
};

struct Decision
{
    bool skip = false;
    size_t rung = 0;
    std::optional<double> predictedBps;
    std::optional<double> timeBudgetS;
    /// lr^2 x steps x gradVariance / ||update||^2: the update's own sampling noise relative to
    /// its size (Variance and Hybrid only).
    std::optional<double> noiseRatio;
};

class RateController
{
  public:
    explicit RateController(ControllerConfig config);

    /// Records one of the client's own finished uploads.
    void AddTransfer(const TransferSample& sample);

    /// Measures a rung of this round's update (RungProfile): the client's trial encoding.
    using RungMeasure = std::function<RungProfile(size_t rung)>;

    /// Chooses this round's rung (or a skip) among `rungCount`, measuring only the rungs the
    /// policy compares: none for a skip or `fixed`; `throughput` and `deadline` from the most
    /// faithful allowed rung down to the first that fits; `variance` and `hybrid` every
    /// allowed rung. Touches only the lazy-update state, never the bandwidth estimator.
    Decision Decide(const RoundInputs& in, size_t rungCount, const RungMeasure& measure);

    /// The same with every rung's profile given.
    Decision Decide(const RoundInputs& in, std::span<const RungProfile> rungs);

    /// Whether the policy reads RungProfile::relativeError (and RoundInputs::gradVariance).
    bool NeedsError() const
    {
        return m_config.policy == Policy::Variance || m_config.policy == Policy::Hybrid ||
               m_config.policy == Policy::Time;
    }

    /// This round's model left the server at `startS` on the client's own clock (its first
    /// byte's arrival less half an RTT); call before the round's inputs are gathered.
    void RoundStarted(uint32_t round, double startS)
    {
        m_clock.RoundStarted(round, startS);
    }

    /// The client's update of `round` reached the server at `arrivedS` (its
    /// acknowledgement less half an RTT), on the same clock.
    void UpdateArrived(uint32_t round, double arrivedS)
    {
        m_clock.UpdateArrived(round, arrivedS);
    }

    const RoundEndEstimate& RoundEnd() const
    {
        return m_clock.Estimate();
    }

    std::optional<double> PredictBps() const
    {
        return m_estimator->PredictBps();
    }

    const ControllerConfig& Config() const
    {
        return m_config;
    }

    /// Whether the server chooses the level (a level policy, level-policy.h).
    bool ServerLed() const
    {
        return m_config.policy == Policy::ServerLevel;
    }

  private:
    /// The allowed rungs this round, as [first, last].
    std::pair<size_t, size_t> Allowed(uint32_t round, size_t rungs) const;
    /// Most faithful allowed rung whose payload fits `bps x budget x safety`.
    size_t FitRung(double bps,
                   double budgetS,
                   const RungMeasure& measure,
                   std::pair<size_t, size_t> allowed) const;
    size_t VarianceRung(double noiseRatio,
                        const RungMeasure& measure,
                        std::pair<size_t, size_t> allowed) const;
    /// The lazy-update rule; also records the norm.
    bool ShouldSkip(double updateNorm);

    ControllerConfig m_config;
    std::unique_ptr<BandwidthEstimator> m_estimator;
    RoundClock m_clock;
    std::deque<double> m_recentNorms;
    uint32_t m_skippedInARow = 0;
};

} // namespace fedran::control

#endif
