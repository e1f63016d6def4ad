#ifndef FEDRAN_MODELS_FL_LOCAL_DP_H
#define FEDRAN_MODELS_FL_LOCAL_DP_H

// Local differential privacy at a site (privacy.dp mode "local", docs/privacy.md): the site
// clips its own update to C and adds Gaussian noise of std z x C to every coordinate before
// the codec sees it, so everything it sends (and every codec state it keeps) is
// post-processing of the noised update, and its privacy holds whatever the server and the
// codec do. Each site's release is a Gaussian mechanism of sensitivity C per selection, with
// no amplification by sampling (the site knows it was selected).
//
// The noise reaches the model, hence the traces: each site draws from a stream of its own
// (kClientDpNoiseStreamBase + its id), in coordinate order, so a run gives the same bits on
// any number of training threads; the file is compiled without fused multiply-adds.

#include "compression/rng.h"
#include "models/fl/dp-config.h"

#include <cstdint>
#include <span>
#include <vector>

namespace fedran
{

/// A site's local DP stream: kClientDpNoiseStreamBase + client id (federated-task.h).
uint64_t LocalDpStream(uint32_t client);

/**
 * Scales `update` by min(1, clip / ||update||_2) and adds noiseStd x N(0, 1) to every
 * coordinate, in coordinate order, from `noise`. Returns the clipping factor.
 */
double ClipAndNoise(std::span<float> update, double clip, double noiseStd, Rng& noise);

/// How often each site was selected: the steps of its own accountant in local mode. The
/// guarantee reported is the most-selected site's.
class SiteSelections
{
  public:
    void Selected(uint32_t client);

    uint32_t Max() const
    {
        return m_max;
    }

  private:
    std::vector<uint32_t> m_count; ///< by client id
    uint32_t m_max = 0;
};

} // namespace fedran

#endif
