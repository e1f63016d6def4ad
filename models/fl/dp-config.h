#ifndef FEDRAN_MODELS_FL_DP_CONFIG_H
#define FEDRAN_MODELS_FL_DP_CONFIG_H

// privacy.dp of a scenario (docs/privacy.md): client-level differential privacy of the
// updates, and what the accountant needs to price it.

#include <string>

namespace fedran
{

/// privacy.dp.adaptive_clipping (central mode only): the clip norm follows a noisy estimate
/// of a quantile of the update norms (Andrew, Thakkar, McMahan, Ramaswamy 2021), as
/// TensorFlow Privacy's quantile estimator and TFF's adaptive_clipping do it.
struct AdaptiveClipConfig
{
    bool enabled = false;
    double targetQuantile = 0.5; ///< target_unclipped_quantile, gamma
    double learningRate = 0.2;   ///< learning_rate, eta
    /// clipped_count_stddev, sigma_b: the std of the noise on the sum of the clients' bits
    /// (the scenario's default is clients_per_round / 20).
    double countStddev = 0.5;
    std::string update = "geometric"; ///< C <- C exp(-eta (b - gamma)); the only one accepted
};

struct DpConfig
{
    /// "central": the server clips each decoded update and noises the sum; "local": each site
    /// clips and noises its own update before encoding it; empty: no DP.
    std::string mode;
    double clipNorm = 1.0;        ///< clip_norm: bound on each update's L2 norm (the start)
    double noiseMultiplier = 1.0; ///< noise_multiplier z: noise std z x clip_norm
    double delta = 1e-5;          ///< delta of the reported (epsilon, delta)
    AdaptiveClipConfig adaptive;  ///< central mode only

    bool Enabled() const
    {
        return !mode.empty();
    }

    bool Local() const
    {
        return mode == "local";
    }

    bool Central() const
    {
        return mode == "central";
    }

    /// Central mode with an adaptive clip norm that the model frames carry to the sites.
    bool AdaptiveClipping() const
    {
        return Central() && adaptive.enabled;
    }
};

} // namespace fedran

#endif
