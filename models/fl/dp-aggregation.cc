#include "models/fl/dp-aggregation.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace fedran
{

namespace
{

class CentralDpRule final : public AggregationRule
{
  public:
    CentralDpRule(const DpConfig& config,
                  uint32_t clientsPerRound,
                  Rng noise,
                  std::shared_ptr<const AdaptiveClip> adaptive)
        : m_clip(config.clipNorm)
        , m_multiplier(adaptive ? adaptive->SumNoiseMultiplier() : config.noiseMultiplier)
        , m_noiseStd(config.noiseMultiplier * config.clipNorm)
        , m_denominator(clientsPerRound)
        , m_noise(noise)
        , m_adaptive(std::move(adaptive))
    {
    }

    void Reset(size_t size) override
    {
        m_sum.assign(size, 0.0);
        m_factors.clear();
        if (m_adaptive)
        {
            // The round's C, as its model frames carry it to the sites.
            m_clip = m_adaptive->Current();
            m_noiseStd = m_multiplier * m_clip;
        }
    }

    void Add(std::span<const float> update, double /* weight */) override
    {
        double squares = 0.0;
        for (float v : update)
        {
            squares += double(v) * double(v);
        }
        const double norm = std::sqrt(squares);
        const double factor = norm > m_clip ? m_clip / norm : 1.0;
        for (size_t i = 0; i < update.size(); ++i)
        {
            m_sum[i] += factor * double(update[i]);
        }
        m_factors.push_back(factor);
    }

    size_t Count() const override
    {
        return m_factors.size();
    }

    void Result(std::span<float> out) override
    {
        // One draw per coordinate per round, in coordinate order.
        for (size_t i = 0; i < out.size(); ++i)
        {
            const double noisy =
                m_sum[i] + (m_noiseStd > 0.0 ? m_noiseStd * m_noise.Normal() : 0.0);
            out[i] = static_cast<float>(noisy / m_denominator);
        }
    }

    /// Each update's share of the fixed denominator times its clipping factor.
    std::vector<double> AggregateWeights() const override
    {
        std::vector<double> weights;
        for (double factor : m_factors)
        {
            weights.push_back(factor / m_denominator);
        }
        return weights;
    }

  private:
    double m_clip;
    double m_multiplier; ///< z, or z_Delta with adaptive clipping
    double m_noiseStd;
    double m_denominator;
    Rng m_noise;
    std::shared_ptr<const AdaptiveClip> m_adaptive;
    std::vector<double> m_sum; ///< the clipped updates, summed in double
    std::vector<double> m_factors;
};

} // namespace

std::unique_ptr<AggregationRule>
MakeCentralDpRule(const DpConfig& config,
                  uint32_t clientsPerRound,
                  Rng noise,
                  std::shared_ptr<const AdaptiveClip> adaptive)
{
    if (!(config.clipNorm > 0.0) || !(config.noiseMultiplier >= 0.0) || clientsPerRound == 0)
    {
        throw std::invalid_argument("central DP needs clip_norm > 0, noise_multiplier >= 0 and "
                                    "clients_per_round > 0");
    }
    return std::make_unique<CentralDpRule>(config, clientsPerRound, noise, std::move(adaptive));
}

DpLedger::DpLedger(const DpConfig& config, uint32_t clientsPerRound, uint32_t clients)
    : m_local(config.Local())
    , m_q(m_local || clients == 0 ? 1.0 : std::min(1.0, double(clientsPerRound) / double(clients)))
    , m_delta(config.delta)
{
    m_step.Compose(m_q, config.noiseMultiplier, 1);
}

PrivacySpent
DpLedger::After(uint32_t steps) const
{
    if (steps == 0)
    {
        return {0.0, m_step.Orders().front()};
    }
    std::vector<double> rdp = m_step.Rdp();
    for (double& r : rdp)
    {
        r *= double(steps);
    }
    return TightEpsilon(m_step.Orders(), rdp, m_delta);
}

} // namespace fedran
