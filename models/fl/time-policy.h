#ifndef FEDRAN_MODELS_FL_TIME_POLICY_H
#define FEDRAN_MODELS_FL_TIME_POLICY_H

// The `time` policy's objective: the rung that maximises expected training progress per
// second of round time, i.e. minimises (1 + rho_r) x T_r (docs/adaptive-bitrate.md).
//   rho_r = omega_r / eta: the rung's relative error (its trial encoding) against the update's
//           own sampling noise eta = lr^2 x steps x sigma^2 / ||u||^2, so a rung needs
//           (1 + rho_r) times the rounds of an exact update (reference: QSGD's variance bound,
//           the noise term being linear in the variance). Both average over the m updates
//           a round averages when the rung is unbiased; a biased rung's error (sign, top_k)
//           is common to the clients and does not, so its rho is m x omega_r / eta, the
//           bound for errors fully correlated across clients;
//   T_r    = max(others' end, own finish_r) + server turnaround, own finish_r = elapsed +
//           compute + 8 x payload_r / predicted bps: a rung that still arrives before the
//           others costs no round time, so fast clients send faithful rungs and slow ones
//           coarse rungs, and all finish together (AdaGQ's equal-finish rule).

#include "compression/adaptive-ladder.h"
#include "models/fl/round-clock.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>

namespace fedran::control
{

struct TimeInputs
{
    double startToModelS = 0.0; ///< elapsed in the round when the model had arrived
    double computeS = 0.0;
    double bps = 0.0; ///< predicted upload throughput (> 0)
    /// eta = lr^2 x steps x gradVariance / ||update||^2, the update's share of sampling
    /// noise; <= 0 when unknown (then the full-batch form, rho = omega / m)
    double noiseRatio = 0.0;
    RoundEndEstimate roundEnd;
    /// The server's deadline from the round's start (<= 0: none): a rung that would arrive
    /// after it is thrown away, so it is chosen only when every rung would.
    double deadlineS = 0.0;
    /// How many updates the server averages (server.clients_per_round): an unbiased rung's
    /// error averages over them as the sampling noise does, a biased rung's (RungProfile::
    /// biased) does not, so its rho counts this many times.
    uint32_t averagedUpdates = 1;
};

struct TimeChoice
{
    size_t rung = 0;
    double multiplier = 1.0; ///< 1 + rho of the chosen rung
    double roundS = 0.0;     ///< its predicted round time T_r
};

/// The allowed rung [first, last] with the smallest (1 + rho) x T (ties: the more faithful)
/// among those that arrive before the deadline; if none does, the one that arrives first.
TimeChoice ChooseForTime(const TimeInputs& in,
                         const std::function<RungProfile(size_t rung)>& measure,
                         std::pair<size_t, size_t> allowed);

} // namespace fedran::control

#endif
