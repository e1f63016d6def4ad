#ifndef FEDRAN_MODELS_FL_ROBUST_BUFFERED_RULE_H
#define FEDRAN_MODELS_FL_ROBUST_BUFFERED_RULE_H

// What every robust rule shares: it keeps the round's n updates (n x size floats, n at most
// clients_per_round: a robust rule cannot combine as updates arrive, since whether an update
// counts depends on the others) and their weights, and hands Combine the whole set.

#include "models/fl/aggregation-rule.h"

#include <cmath>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace fedran::robust
{

class BufferedRule : public AggregationRule
{
  public:
    void Reset(size_t size) override;
    void Add(std::span<const float> update, double weight) override;
    size_t Count() const override
    {
        return m_weights.size();
    }
    void Result(std::span<float> out) override;
    std::vector<double> AggregateWeights() const override
    {
        return m_aggregateWeights;
    }

  protected:
    size_t Size() const
    {
        return m_size;
    }
    std::span<const float> Update(size_t i) const
    {
        return {m_data.data() + i * m_size, m_size};
    }
    double Weight(size_t i) const
    {
        return m_weights[i];
    }
    /// Σ Weight(i) over the updates added.
    double TotalWeight() const
    {
        double total = 0.0;
        for (double w : m_weights)
        {
            total += w;
        }
        return total;
    }
    /// Combines the Count() >= 1 updates into out (Size() floats) and fills `weights` (one
    /// per update).
    virtual void Combine(std::span<float> out, std::vector<double>& weights) = 0;

  private:
    size_t m_size = 0;
    std::vector<float> m_data; ///< the updates, one after the other
    std::vector<double> m_weights;
    std::vector<double> m_aggregateWeights;
};

/// a < b in a total order on floats where NaN is above everything, ties broken by index: a
/// Byzantine update full of NaN cannot make a sort undefined.
inline bool
OrderedBefore(const std::pair<float, uint32_t>& a, const std::pair<float, uint32_t>& b)
{
    const bool aNan = std::isnan(a.first);
    const bool bNan = std::isnan(b.first);
    if (aNan != bNan)
    {
        return bNan;
    }
    if (!aNan && a.first != b.first)
    {
        return a.first < b.first;
    }
    return a.second < b.second;
}

/// ||a - b||^2 in double.
double SquaredDistance(std::span<const float> a, std::span<const float> b);
/// ||a - b||^2 in double, b in double.
double SquaredDistance(std::span<const float> a, std::span<const double> b);
/// ||a||^2 in double.
double SquaredNorm(std::span<const float> a);

} // namespace fedran::robust

#endif
