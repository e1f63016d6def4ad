#include "models/fl/bandwidth-estimator.h"

#include <stdexcept>

namespace fedran::control
{

namespace
{

bool
Usable(const TransferSample& sample)
{
    return sample.bytes > 0.0 && sample.durationS > 0.0;
}

} // namespace

HarmonicMeanEstimator::HarmonicMeanEstimator(size_t window)
    : m_window(window)
{
    if (window == 0)
    {
        throw std::invalid_argument("harmonic mean window must be at least 1");
    }
}

void
HarmonicMeanEstimator::Add(const TransferSample& sample)
{
    if (!Usable(sample))
    {
        return;
    }
    m_bps.push_back(sample.Bps());
    if (m_bps.size() > m_window)
    {
        m_bps.pop_front();
    }
}

std::optional<double>
HarmonicMeanEstimator::PredictBps() const
{
    if (m_bps.empty())
    {
        return std::nullopt;
    }
    double inverse = 0.0;
    for (double bps : m_bps)
    {
        inverse += 1.0 / bps;
    }
    return double(m_bps.size()) / inverse;
}

EwmaEstimator::EwmaEstimator(double alpha)
    : m_alpha(alpha)
{
    if (!(alpha > 0.0 && alpha <= 1.0))
    {
        throw std::invalid_argument("EWMA alpha must be in (0, 1]");
    }
}

void
EwmaEstimator::Add(const TransferSample& sample)
{
    if (!Usable(sample))
    {
        return;
    }
    const double bps = sample.Bps();
    m_estimate = m_estimate ? m_alpha * bps + (1.0 - m_alpha) * *m_estimate : bps;
}

std::optional<double>
EwmaEstimator::PredictBps() const
{
    return m_estimate;
}

} // namespace fedran::control
