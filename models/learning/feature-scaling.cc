#include "models/learning/feature-scaling.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace fedran
{

MinMaxScaler
FitMinMax(const Dataset& data)
{
    MinMaxScaler scaler;
    scaler.min.assign(data.features, 0.0f);
    scaler.max.assign(data.features, 0.0f);
    for (size_t i = 0; i < data.Size(); ++i)
    {
        const float* row = data.Row(i);
        for (uint32_t j = 0; j < data.features; ++j)
        {
            scaler.min[j] = i == 0 ? row[j] : std::min(scaler.min[j], row[j]);
            scaler.max[j] = i == 0 ? row[j] : std::max(scaler.max[j], row[j]);
        }
    }
    return scaler;
}

void
ApplyMinMax(const MinMaxScaler& scaler, Dataset& data)
{
    if (scaler.min.size() != data.features || scaler.max.size() != data.features)
    {
        throw std::invalid_argument("ApplyMinMax: scaler fitted on " +
                                    std::to_string(scaler.min.size()) + " features, data has " +
                                    std::to_string(data.features));
    }
    for (size_t i = 0; i < data.Size(); ++i)
    {
        float* row = data.x.data() + i * data.features;
        for (uint32_t j = 0; j < data.features; ++j)
        {
            // In double: max - min of two large floats can lose every significant bit in float.
            const double range = double{scaler.max[j]} - scaler.min[j];
            row[j] =
                range > 0.0 ? static_cast<float>((double{row[j]} - scaler.min[j]) / range) : 0.0f;
        }
    }
}

void
DivideFeatures(Dataset& data, double divisor)
{
    if (divisor == 0.0 || !std::isfinite(divisor))
    {
        throw std::invalid_argument("DivideFeatures: divisor must be finite and non-zero, got " +
                                    std::to_string(divisor));
    }
    const auto d = static_cast<float>(divisor);
    for (float& v : data.x)
    {
        v /= d;
    }
}

} // namespace fedran
