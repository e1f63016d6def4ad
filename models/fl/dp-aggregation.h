#ifndef FEDRAN_MODELS_FL_DP_AGGREGATION_H
#define FEDRAN_MODELS_FL_DP_AGGREGATION_H

// Central differential privacy at the server (privacy.dp mode "central", docs/privacy.md): the
// DP-FedAvg aggregation of McMahan et al. (2018) as TFF's gaussian_fixed and Flower's
// server-side fixed clipping do it, and the privacy it has spent after each round.

#include "compression/rng.h"
#include "models/fl/adaptive-clip.h"
#include "models/fl/aggregation-rule.h"
#include "models/fl/dp-config.h"
#include "models/fl/rdp-accountant.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fedran
{

/**
 * Clips each decoded update to config.clipNorm (scaled by min(1, C / ||u||_2)), sums the
 * clipped updates unweighted, adds Gaussian noise of std noiseMultiplier x clipNorm to every
 * coordinate of the sum and divides by the fixed denominator `clientsPerRound`, however many
 * updates arrived: the sensitivity of the result to one site is then C / clientsPerRound
 * whatever the site's sample count. Sample counts are ignored (TFF's DP aggregators are
 * unweighted). The noise is drawn from `noise`, a stream of its own, on the server's thread.
 *
 * With `adaptive` (privacy.dp.adaptive_clipping) the clip norm is the estimator's C at each
 * Reset (a round's start) and the noise multiplier its z_Delta.
 */
std::unique_ptr<AggregationRule> MakeCentralDpRule(
    const DpConfig& config,
    uint32_t clientsPerRound,
    Rng noise,
    std::shared_ptr<const AdaptiveClip> adaptive = nullptr);

/**
 * The privacy spent, over DefaultRdpOrders with the tight conversion. Central mode: one step
 * of the Poisson-subsampled Gaussian per round at sampling rate q = clientsPerRound / clients
 * (fixed-size selection approximated by Poisson sampling). Local mode: one step of the
 * Gaussian mechanism (q = 1, RDP alpha / (2 z^2)) per selection of a site; the caller passes
 * the most-selected site's selections.
 */
class DpLedger
{
  public:
    DpLedger(const DpConfig& config, uint32_t clientsPerRound, uint32_t clients);

    /// The tight (epsilon, delta) after `steps` steps (central: rounds; local: the
    /// most-selected site's selections): one step's RDP times `steps` (an exact product, so
    /// every caller gets the same bits).
    PrivacySpent After(uint32_t steps) const;

    /// q: 1 in local mode (no amplification by sampling).
    double SamplingRate() const
    {
        return m_q;
    }

    /// The accountant's name for run.json.
    std::string Accountant() const
    {
        return m_local ? "rdp_gaussian_per_site_no_amplification_tight"
                       : "rdp_poisson_subsampled_gaussian_tight";
    }

    const std::vector<double>& Orders() const
    {
        return m_step.Orders();
    }

  private:
    bool m_local;
    double m_q;
    double m_delta;
    RdpAccountant m_step; ///< one round's RDP per order
};

} // namespace fedran

#endif
