#ifndef FEDRAN_MODELS_FL_SITE_FAULTS_H
#define FEDRAN_MODELS_FL_SITE_FAULTS_H

// The faults a site injects into its own rounds (scenario "faults"): a damaged uplink payload
// (corrupt_uplink) and a crash while training (crashes). Each draws from a stream of its own,
// and only when it is configured, so runs without faults draw exactly what they drew before
// faults existed.

#include "compression/rng.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace fedran
{

class SiteFaults
{
  public:
    /// Client `client` of a task seeded with `seed`: its payloads damaged with probability
    /// `corruptUplink`, a round's training crashing with probability `crashProbability`.
    SiteFaults(uint64_t seed, uint32_t client, double corruptUplink, double crashProbability);

    /// Damages one payload byte of `frame` with the configured probability; returns whether
    /// it did.
    bool MaybeDamage(std::vector<uint8_t>& frame);

    /// Whether this round's training ends in a crash, and if so at what fraction of the
    /// compute time.
    std::optional<double> DrawCrash();

  private:
    double m_corruptUplink = 0.0;
    double m_crashProbability = 0.0;
    Rng m_corruptRng; ///< faults.corrupt_uplink draws
    Rng m_crashRng;   ///< faults.crashes draws
};

} // namespace fedran

#endif
