#include "models/fl/robust/buffered-rule.h"

#include <algorithm>
#include <stdexcept>

namespace fedran::robust
{

void
BufferedRule::Reset(size_t size)
{
    m_size = size;
    m_data.clear(); // keeps its capacity: the next round holds as many updates
    m_weights.clear();
    m_aggregateWeights.clear();
}

void
BufferedRule::Add(std::span<const float> update, double weight)
{
    if (update.size() != m_size)
    {
        throw std::invalid_argument("AggregationRule::Add: update has the wrong size");
    }
    if (!(weight > 0.0))
    {
        throw std::invalid_argument("AggregationRule::Add: weight must be positive");
    }
    m_data.insert(m_data.end(), update.begin(), update.end());
    m_weights.push_back(weight);
}

void
BufferedRule::Result(std::span<float> out)
{
    if (out.size() != m_size)
    {
        throw std::invalid_argument("AggregationRule::Result: output has the wrong size");
    }
    m_aggregateWeights.assign(Count(), 0.0);
    if (Count() == 0)
    {
        std::fill(out.begin(), out.end(), 0.0f);
        return;
    }
    Combine(out, m_aggregateWeights);
}

double
SquaredDistance(std::span<const float> a, std::span<const float> b)
{
    double sum = 0.0;
    for (size_t i = 0; i < a.size(); ++i)
    {
        const double d = double(a[i]) - double(b[i]);
        sum += d * d;
    }
    return sum;
}

double
SquaredDistance(std::span<const float> a, std::span<const double> b)
{
    double sum = 0.0;
    for (size_t i = 0; i < a.size(); ++i)
    {
        const double d = double(a[i]) - b[i];
        sum += d * d;
    }
    return sum;
}

double
SquaredNorm(std::span<const float> a)
{
    double sum = 0.0;
    for (float v : a)
    {
        sum += double(v) * double(v);
    }
    return sum;
}

} // namespace fedran::robust
