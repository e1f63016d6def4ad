#include "models/fl/dp-aggregation.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fedran
{

namespace
{

class CentralDpRule final : public AggregationRule
{
  public:
    CentralDpRule(const DpConfig& config, uint32_t clientsPerRound, Rng noise)
        : m_clip(config.clipNorm)
        , m_noiseStd(config.noiseMultiplier * config.clipNorm)
        , m_denominator(clientsPerRound)
        , m_noise(noise)
    {
    }

    void Reset(size_t size) override
    {
        m_sum.assign(size, 0.0);
        m_factors.clear();
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
    double m_noiseStd;
    double m_denominator;
    Rng m_noise;
    std::vector<double> m_sum; ///< the clipped updates, summed in double
    std::vector<double> m_factors;
};

} // namespace

std::unique_ptr<AggregationRule>
MakeCentralDpRule(const DpConfig& config, uint32_t clientsPerRound, Rng noise)
{
    if (!(config.clipNorm > 0.0) || !(config.noiseMultiplier >= 0.0) || clientsPerRound == 0)
    {
        throw std::invalid_argument("central DP needs clip_norm > 0, noise_multiplier >= 0 and "
                                    "clients_per_round > 0");
    }
    return std::make_unique<CentralDpRule>(config, clientsPerRound, noise);
}

DpLedger::DpLedger(const DpConfig& config, uint32_t clientsPerRound, uint32_t clients)
    : m_q(clients == 0 ? 1.0 : std::min(1.0, double(clientsPerRound) / double(clients)))
    , m_delta(config.delta)
{
    m_step.Compose(m_q, config.noiseMultiplier, 1);
}

PrivacySpent
DpLedger::After(uint32_t rounds) const
{
    if (rounds == 0)
    {
        return {0.0, m_step.Orders().front()};
    }
    std::vector<double> rdp = m_step.Rdp();
    for (double& r : rdp)
    {
        r *= double(rounds);
    }
    return TightEpsilon(m_step.Orders(), rdp, m_delta);
}

} // namespace fedran
