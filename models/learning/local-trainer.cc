#include "models/learning/local-trainer.h"

#include "models/learning/shuffle.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace fedran
{

TrainingResult
TrainLocal(const Model& model,
           std::span<const float> start,
           const Dataset& data,
           std::span<const uint32_t> indices,
           const TrainingConfig& config,
           Rng& rng)
{
    const size_t size = model.Layout().TotalSize();
    if (start.size() != size)
    {
        throw std::invalid_argument("TrainLocal: start has " + std::to_string(start.size()) +
                                    " floats, the model has " + std::to_string(size));
    }
    if (config.batchSize == 0)
    {
        throw std::invalid_argument("TrainLocal: batchSize must be > 0");
    }
    if (indices.size() > std::numeric_limits<uint32_t>::max())
    {
        throw std::invalid_argument("TrainLocal: too many indices");
    }

    TrainingResult result;
    result.samples = static_cast<uint32_t>(indices.size());
    std::vector<float> params(start.begin(), start.end());
    std::vector<float> grad(size);
    std::vector<uint32_t> order(indices.begin(), indices.end());
    const auto lr = static_cast<float>(config.lr);
    const size_t n = order.size();

    double lossSum = 0.0;
    for (uint32_t epoch = 0; epoch < config.localEpochs && n > 0; ++epoch)
    {
        Shuffle(std::span<uint32_t>(order), rng);
        for (size_t begin = 0; begin < n; begin += config.batchSize)
        {
            const size_t count = std::min<size_t>(config.batchSize, n - begin);
            const std::span<const uint32_t> batch(order.data() + begin, count);
            lossSum += model.LossAndGradient(params, data, batch, grad);
            for (size_t k = 0; k < size; ++k)
            {
                params[k] -= lr * grad[k];
            }
            ++result.steps;
        }
    }
    result.meanLoss = result.steps > 0 ? lossSum / result.steps : 0.0;

    // The update is formed in place in the params buffer: one allocation fewer per round.
    for (size_t k = 0; k < size; ++k)
    {
        params[k] -= start[k];
    }
    result.update = std::move(params);
    return result;
}

} // namespace fedran
