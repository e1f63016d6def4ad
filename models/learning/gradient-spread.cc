#include "models/learning/gradient-spread.h"

#include <algorithm>
#include <vector>

namespace fedran
{

uint64_t
GradientSpreadExamples(uint32_t batchSize, uint32_t batches, uint64_t n)
{
    if (n < 2 || batches < 2)
    {
        return 0;
    }
    return uint64_t{batches} * std::min<uint64_t>(batchSize, n);
}

double
GradientSpread(const Model& model,
               std::span<const float> params,
               const Dataset& data,
               std::span<const uint32_t> indices,
               uint32_t batchSize,
               uint32_t batches,
               Rng& rng)
{
    const size_t n = indices.size();
    if (n < 2 || batches < 2)
    {
        return 0.0;
    }
    const size_t b = std::min<size_t>(batchSize, n);
    const size_t d = model.Layout().TotalSize();
    std::vector<uint32_t> pool(indices.begin(), indices.end());
    std::vector<std::vector<float>> grads(batches, std::vector<float>(d));
    for (uint32_t i = 0; i < batches; ++i)
    {
        // A partial Fisher-Yates shuffle: the first b entries are a uniform draw without
        // replacement, whatever order the pool was left in by the previous batch.
        for (size_t k = 0; k < b; ++k)
        {
            const size_t j = k + rng.UniformInt(n - k);
            std::swap(pool[k], pool[j]);
        }
        model.LossAndGradient(params, data, std::span<const uint32_t>(pool.data(), b), grads[i]);
    }
    // Two passes in double: the mean, then the squared deviations.
    double sum = 0.0;
    for (size_t p = 0; p < d; ++p)
    {
        double mean = 0.0;
        for (uint32_t i = 0; i < batches; ++i)
        {
            mean += grads[i][p];
        }
        mean /= batches;
        for (uint32_t i = 0; i < batches; ++i)
        {
            const double dev = double(grads[i][p]) - mean;
            sum += dev * dev;
        }
    }
    return sum / double(batches - 1);
}

} // namespace fedran
