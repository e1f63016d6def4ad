#include "compression/codec.h"

#include <stdexcept>
#include <vector>

namespace fedran
{

namespace
{

/// FedAvg's combination (McMahan et al. 2017): the sample-weighted mean of the updates.
class WeightedMeanAggregator : public Aggregator
{
  public:
    void Reset(size_t size) override
    {
        m_sum.assign(size, 0.0);
        m_weight = 0.0;
        m_count = 0;
    }

    void Add(std::span<const float> decoded, double weight) override
    {
        if (decoded.size() != m_sum.size())
        {
            throw std::invalid_argument("Aggregator::Add: update has the wrong size");
        }
        if (!(weight > 0.0))
        {
            throw std::invalid_argument("Aggregator::Add: weight must be positive");
        }
        for (size_t i = 0; i < m_sum.size(); ++i)
        {
            m_sum[i] += weight * static_cast<double>(decoded[i]);
        }
        m_weight += weight;
        ++m_count;
    }

    size_t Count() const override
    {
        return m_count;
    }

    void Result(std::span<float> out) const override
    {
        if (out.size() != m_sum.size())
        {
            throw std::invalid_argument("Aggregator::Result: output has the wrong size");
        }
        const double inv = m_count == 0 ? 0.0 : 1.0 / m_weight;
        for (size_t i = 0; i < out.size(); ++i)
        {
            out[i] = static_cast<float>(m_sum[i] * inv);
        }
    }

  private:
    std::vector<double> m_sum;
    double m_weight = 0.0;
    size_t m_count = 0;
};

} // namespace

std::unique_ptr<Aggregator>
MakeWeightedMeanAggregator()
{
    return std::make_unique<WeightedMeanAggregator>();
}

} // namespace fedran
