#ifndef FEDRAN_MODELS_LEARNING_FEDAVG_AGGREGATOR_H
#define FEDRAN_MODELS_LEARNING_FEDAVG_AGGREGATOR_H

#include <cstdint>
#include <span>
#include <vector>

namespace fedran
{

/**
 * FedAvg (McMahan et al. 2017): the new global model is the old one plus the sample-weighted
 * mean of the clients' updates. Updates are accumulated in double, in arrival order, which the
 * simulation fixes, so the result is reproducible.
 */
class FedAvgAggregator
{
  public:
    explicit FedAvgAggregator(size_t size = 0);

    /// Forgets the updates of the previous round.
    void Reset(size_t size);

    /// Adds one client's update with its weight (its number of training examples).
    void Add(std::span<const float> update, double weight);

    size_t Count() const
    {
        return m_count;
    }

    /// params += sum(w_k * update_k) / sum(w_k); no change when nothing was added.
    void ApplyTo(std::span<float> params) const;

  private:
    std::vector<double> m_sum;
    double m_weight = 0.0;
    size_t m_count = 0;
};

} // namespace fedran

#endif
