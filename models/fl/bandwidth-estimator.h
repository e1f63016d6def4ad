#ifndef FEDRAN_MODELS_FL_BANDWIDTH_ESTIMATOR_H
#define FEDRAN_MODELS_FL_BANDWIDTH_ESTIMATOR_H

// Predicts a client's next upload throughput from the transfers it has measured itself, as a
// video player predicts the next segment's throughput from the last downloads.

#include <cstddef>
#include <deque>
#include <optional>

namespace fedran::control
{

/// One upload as the client saw it: bytes handed to the transport, and the time from the
/// hand-off until the transport reported the last byte acknowledged.
struct TransferSample
{
    double bytes = 0.0;
    double durationS = 0.0;
    double rttS = 0.0; ///< the transport's smoothed RTT at completion (0 if unknown)

    double Bps() const
    {
        return durationS > 0.0 ? 8.0 * bytes / durationS : 0.0;
    }
};

class BandwidthEstimator
{
  public:
    virtual ~BandwidthEstimator() = default;

    /// Records a finished transfer (samples with no duration or bytes are ignored).
    virtual void Add(const TransferSample& sample) = 0;

    /// Predicted throughput in bits per second; nothing before the first sample.
    virtual std::optional<double> PredictBps() const = 0;
};

/**
 * Harmonic mean of the last `window` throughputs: n / sum(1 / bps_i). Dominated by the slow
 * transfers, so one lucky fast upload does not lift the prediction (FESTIVE, Jiang et al.,
 * CoNEXT 2012, uses it for the same robustness).
 */
class HarmonicMeanEstimator : public BandwidthEstimator
{
  public:
    explicit HarmonicMeanEstimator(size_t window);

    void Add(const TransferSample& sample) override;
    std::optional<double> PredictBps() const override;

  private:
    size_t m_window;
    std::deque<double> m_bps;
};

/// Exponentially weighted moving average: est <- alpha * bps + (1 - alpha) * est; the first
/// sample sets est.
class EwmaEstimator : public BandwidthEstimator
{
  public:
    explicit EwmaEstimator(double alpha);

    void Add(const TransferSample& sample) override;
    std::optional<double> PredictBps() const override;

  private:
    double m_alpha;
    std::optional<double> m_estimate;
};

/**
 * RobustMPC's predictor (Yin et al., SIGCOMM 2015; Pensieve's reference `mpc.py`): the
 * harmonic mean of the last `window` throughputs divided by 1 + the largest relative error
 * |prediction - measured| / measured of the last `window` undiscounted predictions, so a
 * client whose link has been hard to predict plans with a lower bound.
 *
 * The plain rule lags a level shift: after 20 -> 200 kbit/s the harmonic mean of
 * [20, 20, 20, 20, 200] is 24.7 kbit/s, and the shift's own error (0.9) then halves every
 * prediction for `window` more uploads. So a measurement more than kLevelShift times above or
 * below the undiscounted prediction is taken as a new link rate: the history (throughputs and
 * errors) restarts from it, and the next prediction is that measurement. A single outlier
 * costs one upload's misprediction: the next ordinary measurement is again a shift back.
 */
class RobustHarmonicMeanEstimator : public BandwidthEstimator
{
  public:
    /// Measured / predicted beyond this factor (either way) restarts the history.
    static constexpr double kLevelShift = 2.0;

    explicit RobustHarmonicMeanEstimator(size_t window);

    void Add(const TransferSample& sample) override;
    std::optional<double> PredictBps() const override;

    /// The harmonic mean before the error discount (nothing before the first sample).
    std::optional<double> UndiscountedBps() const;

  private:
    size_t m_window;
    std::deque<double> m_bps;
    std::deque<double> m_errors; ///< relative errors of the predictions of the kept samples
};

} // namespace fedran::control

#endif
