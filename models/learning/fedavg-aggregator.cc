#include "models/learning/fedavg-aggregator.h"

#include <stdexcept>

namespace fedran
{

FedAvgAggregator::FedAvgAggregator(size_t size)
{
    Reset(size);
}

void
FedAvgAggregator::Reset(size_t size)
{
    m_sum.assign(size, 0.0);
    m_weight = 0.0;
    m_count = 0;
}

void
FedAvgAggregator::Add(std::span<const float> update, double weight)
{
    if (update.size() != m_sum.size())
    {
        throw std::invalid_argument("FedAvgAggregator::Add: update has the wrong size");
    }
    if (!(weight > 0.0))
    {
        throw std::invalid_argument("FedAvgAggregator::Add: weight must be positive");
    }
    for (size_t i = 0; i < m_sum.size(); ++i)
    {
        m_sum[i] += weight * static_cast<double>(update[i]);
    }
    m_weight += weight;
    ++m_count;
}

void
FedAvgAggregator::ApplyTo(std::span<float> params) const
{
    if (m_count == 0)
    {
        return;
    }
    if (params.size() != m_sum.size())
    {
        throw std::invalid_argument("FedAvgAggregator::ApplyTo: params have the wrong size");
    }
    const double inv = 1.0 / m_weight;
    for (size_t i = 0; i < params.size(); ++i)
    {
        params[i] = static_cast<float>(static_cast<double>(params[i]) + m_sum[i] * inv);
    }
}

} // namespace fedran
