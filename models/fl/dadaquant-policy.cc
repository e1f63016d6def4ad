#include "models/fl/dadaquant-policy.h"

#include <algorithm>
#include <cmath>

namespace fedran::control
{

uint32_t
DadaquantDefaultPhi(uint32_t rounds)
{
    return std::max(1u, rounds / 10);
}

DadaquantSchedule::DadaquantSchedule(DadaquantConfig config)
    : m_config(config)
    , m_q(std::max(1u, config.qMin))
{
    m_config.phi = std::max(1u, m_config.phi);
}

uint32_t
DadaquantSchedule::Next(double lossEstimate)
{
    ++m_round;
    const double ema = m_ema.empty()
                           ? lossEstimate
                           : m_config.psi * m_ema.back() + (1.0 - m_config.psi) * lossEstimate;
    m_ema.push_back(ema);
    if (m_ema.size() > m_config.phi + 1)
    {
        m_ema.pop_front();
    }
    // E_{t-phi} exists once phi rounds have passed; the hold after a doubling is the same
    // phi rounds, counted from the round that doubled.
    const bool held = m_round - m_lastChange >= m_config.phi;
    if (held && m_ema.size() == m_config.phi + 1 && m_ema.back() - m_ema.front() > 0.0 &&
        m_q < m_config.qMax)
    {
        m_q = std::min(2 * m_q, m_config.qMax);
        m_lastChange = m_round;
    }
    return m_q;
}

std::vector<uint32_t>
DadaquantClientLevels(std::span<const double> weights, uint32_t q, uint32_t cap)
{
    double a = 0.0;
    double b = 0.0;
    for (const double w : weights)
    {
        a += std::cbrt(w * w);
        b += w * w / (double(q) * double(q));
    }
    std::vector<uint32_t> levels;
    levels.reserve(weights.size());
    for (const double w : weights)
    {
        const double level = b > 0.0 ? std::sqrt(a / b) * std::cbrt(w * w) : double(q);
        levels.push_back(uint32_t(std::clamp(std::round(level), 1.0, double(std::max(cap, 1u)))));
    }
    return levels;
}

} // namespace fedran::control
