#ifndef FEDRAN_MODELS_FL_DOWNLINK_RUNGS_H
#define FEDRAN_MODELS_FL_DOWNLINK_RUNGS_H

// The adaptive downlink (compression.downlink {"type": "adaptive", "ladder": [...]}): the
// server chooses, per selected client and round, the rung of the model frame it sends, so that
// a client on a slow downlink gets a coarser model and every download ends about when the
// slowest one must end anyway. Each client reports how long its last model download took (4
// bytes at the end of its update, DownloadReport); the server feeds frame bytes / seconds to a
// per-client RobustMPC predictor, the one the uplink's `time` policy uses
// (bandwidth-estimator.h), and applies the equal-finish rule of ChooseDownlinkRungs.
// docs/adaptive-bitrate.md, "Downlink", has the objective and the measured figures.

#include "models/fl/bandwidth-estimator.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fedran::control
{

/// A client's predicted download may end this many times the round's coarsest-rung end E
/// (the slowest measured client's download at the coarsest rung): 5% of slack, so that a
/// client whose finer rung ends just after E (measurement noise, a frame a few bytes larger)
/// is not sent a coarser model for nothing, while a rung that would make the round
/// noticeably longer is never chosen.
constexpr double kDownlinkFinishSlack = 1.05;

/// The downlink controller's keys of an "adaptive" compression.downlink spec.
struct DownlinkConfig
{
    size_t window = 5; ///< the predictor's window (the uplink's default)
};

/// Reads `policy` (only "time") and `window`; any other controller key of an adaptive spec
/// (kLadderControllerKeys) is refused, since the downlink's controller does not read it.
/// Throws CodecConfigError naming "<path>.<key>".
DownlinkConfig ParseDownlinkConfig(const nlohmann::json& spec, const std::string& path);

/**
 * The rule. `predictedBps[i]` is client i's predicted downlink throughput (nullopt: never
 * measured), `frameBytes[i][r]` the bytes of the frame rung r would send it (rungs ordered
 * most → least faithful). E = the largest predicted download of a measured client at the
 * coarsest rung; each measured client gets the most faithful rung predicted to end within
 * E × kDownlinkFinishSlack (the slowest gets the coarsest, or a finer one if that fits too);
 * a client without a prediction gets rung 0. With nobody measured (the first round) every
 * client gets rung 0.
 */
std::vector<size_t> ChooseDownlinkRungs(std::span<const std::optional<double>> predictedBps,
                                        std::span<const std::vector<uint64_t>> frameBytes);

/// The server's side: a predictor per client fed by the download reports, and the frame bytes
/// each client was last sent (what its next report measured).
class DownlinkRungs
{
  public:
    explicit DownlinkRungs(DownlinkConfig config);

    /// The model frame of `round` sent to `client` had `frameBytes` bytes.
    void FrameSent(uint32_t client, uint32_t round, uint64_t frameBytes);

    /// `client` reported, with its update for `round`, that the model took `seconds` to
    /// arrive. Ignored unless it matches the last frame sent to it (a round it was sent a
    /// model in) and the duration is positive.
    void DownloadReported(uint32_t client, uint32_t round, double seconds);

    /// The predicted downlink throughput of `client` in bit/s; nullopt before any report.
    std::optional<double> PredictBps(uint32_t client) const;

    /// ChooseDownlinkRungs for `clients`, with `frameBytes[i]` client i's frame per rung.
    std::vector<size_t> Choose(std::span<const uint32_t> clients,
                               std::span<const std::vector<uint64_t>> frameBytes) const;

  private:
    struct Sent
    {
        uint32_t round = 0;
        uint64_t bytes = 0;
    };

    DownlinkConfig m_config;
    std::map<uint32_t, RobustHarmonicMeanEstimator> m_predictors;
    std::map<uint32_t, Sent> m_sent;
};

/// A client's download report: how long its model took to arrive (first byte to last, on its
/// own clock), appended as a little-endian float32 to the very end of its update payload
/// (after a loss report, if any). Counted in the update's bytes.
constexpr size_t kDownloadReportBytes = 4;

void AppendDownloadReport(std::vector<uint8_t>& payload, double seconds);

/// The payload before the report; `seconds` gets the report. Throws DecodeError when the
/// payload is too short to hold one.
std::span<const uint8_t> TakeDownloadReport(std::span<const uint8_t> payload, double& seconds);

} // namespace fedran::control

#endif
