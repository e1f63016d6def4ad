#ifndef FEDRAN_MODELS_FL_ADAPTIVE_CLIP_H
#define FEDRAN_MODELS_FL_ADAPTIVE_CLIP_H

// Adaptive clipping (privacy.dp.adaptive_clipping, docs/privacy.md): the clip norm C of central
// DP follows a private estimate of the target_unclipped_quantile of the sites' update norms
// (Andrew, Thakkar, McMahan, Ramaswamy, NeurIPS 2021), as TensorFlow Privacy's
// QuantileEstimatorQuery and TFF's adaptive_clipping compute it, geometric update:
//
//   each site reports b_i = [||update_i|| <= C] (one byte after its codec payload);
//   b = clamp((sum_i (b_i - 1/2) + N(0, sigma_b^2)) / m + 1/2, 0, 1), m = clients_per_round;
//   C <- C exp(-eta (b - gamma)).
//
// The noise on the sum of clipped updates is raised to z_Delta = (z^-2 - (2 sigma_b)^-2)^-1/2
// so that the two releases together cost what the noise multiplier z alone would (the bits
// have sensitivity 1/2), hence the accountant is unchanged.
//
// C travels to the sites in the model frame's `samples` field as float32 bits, so both ends
// hold C at float32 precision. C is a traced value (rounds.csv clip_norm): the exponential is
// portable-math's and the file is compiled without fused multiply-adds.

#include "compression/rng.h"
#include "models/fl/dp-config.h"

#include <cstdint>
#include <span>
#include <vector>

namespace fedran
{

/// z_Delta = (z^-2 - (2 sigma_b)^-2)^(-1/2); 0 for z = 0. Throws std::invalid_argument when
/// z >= 2 sigma_b (z > 0): the count's noise alone would then cost more than z allows.
double AdaptiveSumNoiseMultiplier(double z, double countStddev);

/// One step of the estimator: C exp(-eta (b - gamma)) for b = clamp((shiftedBits + countNoise)
/// / expected + 1/2, 0, 1), where shiftedBits = sum of (b_i - 1/2) and countNoise is the
/// N(0, sigma_b^2) draw; the result rounded to float32, as it travels.
double NextClipNorm(double clip,
                    double shiftedBits,
                    double countNoise,
                    double expected,
                    const AdaptiveClipConfig& config);

/// The server's estimator: the C of the round in progress, the bits reported in it, and its
/// own stream for the count's noise (one draw per round, also when no bit arrived).
class AdaptiveClip
{
  public:
    /// C starts at config.clipNorm (as float32); `expectedClients` is m, clients_per_round.
    AdaptiveClip(const DpConfig& config, uint32_t expectedClients, Rng countNoise);

    /// C of the round in progress.
    double Current() const
    {
        return m_clip;
    }

    /// Noise multiplier of the sum of clipped updates (z_Delta).
    double SumNoiseMultiplier() const
    {
        return m_sumMultiplier;
    }

    /// An aggregated update's bit.
    void Report(bool unclipped);

    uint32_t Reports() const
    {
        return m_reports;
    }

    /// The round has been combined: C moves to the next round's value.
    void EndRound();

  private:
    AdaptiveClipConfig m_config;
    double m_expected;
    double m_sumMultiplier;
    Rng m_noise;
    double m_clip;
    double m_shiftedBits = 0.0; ///< sum of (b_i - 1/2) this round
    uint32_t m_reports = 0;
};

/// L2 norm of an update, summed in double in coordinate order (what the server clips by).
double UpdateNorm(std::span<const float> update);

/// Appends a site's bit (one byte: 1 unclipped, 0 clipped) to its update payload.
void AppendClipReport(std::vector<uint8_t>& payload, bool unclipped);

/// The payload before the bit; `unclipped` gets it. Throws DecodeError when the payload is
/// empty or its last byte is neither 0 nor 1.
std::span<const uint8_t> TakeClipReport(std::span<const uint8_t> payload, bool& unclipped);

/// C as the model frame's 32-bit field carries it (float32 bits), and back.
uint32_t ClipNormField(double clip);
double ClipNormFromField(uint32_t field);

} // namespace fedran

#endif
