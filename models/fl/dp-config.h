#ifndef FEDRAN_MODELS_FL_DP_CONFIG_H
#define FEDRAN_MODELS_FL_DP_CONFIG_H

// privacy.dp of a scenario (docs/privacy.md): client-level differential privacy of the
// updates, and what the accountant needs to price it.

#include <string>

namespace fedran
{

struct DpConfig
{
    /// "central": the server clips each decoded update and noises the sum; empty: no DP.
    std::string mode;
    double clipNorm = 1.0;        ///< clip_norm: bound on each update's L2 norm
    double noiseMultiplier = 1.0; ///< noise_multiplier z: noise std z x clip_norm on the sum
    double delta = 1e-5;          ///< delta of the reported (epsilon, delta)

    bool Enabled() const
    {
        return !mode.empty();
    }
};

} // namespace fedran

#endif
