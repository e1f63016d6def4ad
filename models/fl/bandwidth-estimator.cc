#include "models/fl/bandwidth-estimator.h"

#include <algorithm>
#include <cmath>
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

/// The harmonic mean of `bps` (none when empty).
std::optional<double>
HarmonicMean(const std::deque<double>& bps)
{
    if (bps.empty())
    {
        return std::nullopt;
    }
    double inverse = 0.0;
    for (double value : bps)
    {
        inverse += 1.0 / value;
    }
    return double(bps.size()) / inverse;
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
    return HarmonicMean(m_bps);
}

RobustHarmonicMeanEstimator::RobustHarmonicMeanEstimator(size_t window)
    : m_window(window)
{
    if (window == 0)
    {
        throw std::invalid_argument("harmonic mean window must be at least 1");
    }
}

std::optional<double>
RobustHarmonicMeanEstimator::UndiscountedBps() const
{
    return HarmonicMean(m_bps);
}

void
RobustHarmonicMeanEstimator::Add(const TransferSample& sample)
{
    if (!Usable(sample))
    {
        return;
    }
    const double bps = sample.Bps();
    const std::optional<double> predicted = UndiscountedBps();
    if (predicted && (bps > kLevelShift * *predicted || bps * kLevelShift < *predicted))
    {
        // A new link rate, not noise around the old one: what came before says nothing of it.
        m_bps.clear();
        m_errors.clear();
    }
    else if (predicted)
    {
        m_errors.push_back(std::abs(*predicted - bps) / bps);
        if (m_errors.size() > m_window)
        {
            m_errors.pop_front();
        }
    }
    m_bps.push_back(bps);
    if (m_bps.size() > m_window)
    {
        m_bps.pop_front();
    }
}

std::optional<double>
RobustHarmonicMeanEstimator::PredictBps() const
{
    const std::optional<double> mean = UndiscountedBps();
    if (!mean)
    {
        return std::nullopt;
    }
    double maxError = 0.0;
    for (double e : m_errors)
    {
        maxError = std::max(maxError, e);
    }
    return *mean / (1.0 + maxError);
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
