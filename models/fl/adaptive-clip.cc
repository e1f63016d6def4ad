#include "models/fl/adaptive-clip.h"

#include "compression/codec.h"
#include "compression/portable-math.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace fedran
{

double
AdaptiveSumNoiseMultiplier(double z, double countStddev)
{
    if (z == 0.0)
    {
        return 0.0; // no noise on anything: clipping only, epsilon infinite
    }
    if (!(z < 2.0 * countStddev))
    {
        throw std::invalid_argument(
            "adaptive clipping needs noise_multiplier < 2 x clipped_count_stddev: the count's "
            "noise alone would spend more than noise_multiplier allows");
    }
    const double twoSigma = 2.0 * countStddev;
    return 1.0 / std::sqrt(1.0 / (z * z) - 1.0 / (twoSigma * twoSigma));
}

double
NextClipNorm(double clip,
             double shiftedBits,
             double countNoise,
             double expected,
             const AdaptiveClipConfig& config)
{
    // TF Privacy shifts the bits by -1/2 so that their sum has sensitivity 1/2, and unshifts
    // the noisy mean; the clamp keeps an unlucky draw from running C away.
    const double unclipped = std::clamp((shiftedBits + countNoise) / expected + 0.5, 0.0, 1.0);
    const double next =
        clip * pmath::Exp(-config.learningRate * (unclipped - config.targetQuantile));
    return double(static_cast<float>(next));
}

AdaptiveClip::AdaptiveClip(const DpConfig& config, uint32_t expectedClients, Rng countNoise)
    : m_config(config.adaptive)
    , m_expected(double(expectedClients))
    , m_sumMultiplier(
          AdaptiveSumNoiseMultiplier(config.noiseMultiplier, config.adaptive.countStddev))
    , m_noise(countNoise)
    , m_clip(double(static_cast<float>(config.clipNorm)))
{
    if (expectedClients == 0 || !(m_clip > 0.0))
    {
        throw std::invalid_argument("adaptive clipping needs clients_per_round > 0 and a "
                                    "clip_norm > 0 as float32");
    }
}

void
AdaptiveClip::Report(bool unclipped)
{
    m_shiftedBits += unclipped ? 0.5 : -0.5;
    ++m_reports;
}

void
AdaptiveClip::EndRound()
{
    const double noise = m_config.countStddev > 0.0 ? m_config.countStddev * m_noise.Normal() : 0.0;
    m_clip = NextClipNorm(m_clip, m_shiftedBits, noise, m_expected, m_config);
    m_shiftedBits = 0.0;
    m_reports = 0;
}

double
UpdateNorm(std::span<const float> update)
{
    double squares = 0.0;
    for (float v : update)
    {
        squares += double(v) * double(v);
    }
    return std::sqrt(squares);
}

void
AppendClipReport(std::vector<uint8_t>& payload, bool unclipped)
{
    payload.push_back(unclipped ? 1 : 0);
}

std::span<const uint8_t>
TakeClipReport(std::span<const uint8_t> payload, bool& unclipped)
{
    if (payload.empty() || payload.back() > 1)
    {
        throw DecodeError("update frame: no clipped-count byte where adaptive clipping needs one",
                          payload.size());
    }
    unclipped = payload.back() == 1;
    return payload.first(payload.size() - 1);
}

uint32_t
ClipNormField(double clip)
{
    return std::bit_cast<uint32_t>(static_cast<float>(clip));
}

double
ClipNormFromField(uint32_t field)
{
    return double(std::bit_cast<float>(field));
}

} // namespace fedran
