#ifndef FEDRAN_MODELS_FL_DP_AGGREGATION_H
#define FEDRAN_MODELS_FL_DP_AGGREGATION_H

// Central differential privacy at the server (privacy.dp mode "central", docs/privacy.md): the
// DP-FedAvg aggregation of McMahan et al. (2018) as TFF's gaussian_fixed and Flower's
// server-side fixed clipping do it, and the privacy it has spent after each round.

#include "compression/rng.h"
#include "models/fl/aggregation-rule.h"
#include "models/fl/dp-config.h"
#include "models/fl/rdp-accountant.h"

#include <cstdint>
#include <memory>
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
 */
std::unique_ptr<AggregationRule> MakeCentralDpRule(const DpConfig& config,
                                                   uint32_t clientsPerRound,
                                                   Rng noise);

/// The privacy spent: one step of the Poisson-subsampled Gaussian per round, at sampling
/// rate q = clientsPerRound / clients (fixed-size selection approximated by Poisson
/// sampling), over DefaultRdpOrders.
class DpLedger
{
  public:
    DpLedger(const DpConfig& config, uint32_t clientsPerRound, uint32_t clients);

    /// The tight (epsilon, delta) after `rounds` rounds: the per-round RDP times `rounds`
    /// (an exact product, so every caller gets the same bits).
    PrivacySpent After(uint32_t rounds) const;

    double SamplingRate() const
    {
        return m_q;
    }

    const std::vector<double>& Orders() const
    {
        return m_step.Orders();
    }

  private:
    double m_q;
    double m_delta;
    RdpAccountant m_step; ///< one round's RDP per order
};

} // namespace fedran

#endif
