#include "models/learning/forecast-errors.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace fedran
{

double
MseBackward(float* predictions, const float* targets, size_t n, size_t outputs)
{
    const size_t count = n * outputs;
    const float scale = 2.0f / static_cast<float>(count);
    double sum = 0.0;
    for (size_t k = 0; k < count; ++k)
    {
        const float error = predictions[k] - targets[k];
        sum += static_cast<double>(error) * error;
        predictions[k] = scale * error;
    }
    return sum;
}

void
CheckForecastData(const std::string& model, const Dataset& data, uint32_t outputs)
{
    if (data.outputs != outputs || data.targets.size() != data.Size() * outputs)
    {
        throw std::invalid_argument(model + ": dataset has " + std::to_string(data.outputs) +
                                    " outputs per example, model predicts " +
                                    std::to_string(outputs));
    }
    if (data.series.size() != data.Size())
    {
        throw std::invalid_argument(model + ": dataset has " + std::to_string(data.Size()) +
                                    " examples but " + std::to_string(data.series.size()) +
                                    " series indices");
    }
}

void
ForecastErrors::Add(const float* predictions, const Dataset& data, size_t start, size_t n)
{
    const size_t outputs = data.outputs;
    for (size_t i = 0; i < n; ++i)
    {
        const uint32_t series = data.series[start + i];
        if (series >= data.scales.size())
        {
            throw std::invalid_argument("example " + std::to_string(start + i) + " is of series " +
                                        std::to_string(series) + ", the dataset has " +
                                        std::to_string(data.scales.size()) + " series scales");
        }
        const SeriesScale& scale = data.scales[series];
        const float* truth = data.targets.data() + (start + i) * outputs;
        const float* predicted = predictions + i * outputs;
        for (size_t k = 0; k < outputs; ++k)
        {
            // The error in original units is the normalised error times the scale; the offset
            // cancels, and matters only for the mean of the truth.
            const double normalised = static_cast<double>(predicted[k]) - truth[k];
            const double original = normalised * scale.scale;
            m_squaredNormalised += normalised * normalised;
            m_squared += original * original;
            m_absolute += std::abs(original);
            m_truth += static_cast<double>(truth[k]) * scale.scale + scale.offset;
        }
    }
    m_values += n * outputs;
}

Evaluation
ForecastErrors::Result() const
{
    Evaluation result;
    result.accuracy = std::numeric_limits<double>::quiet_NaN();
    if (m_values == 0)
    {
        return result;
    }
    const double count = static_cast<double>(m_values);
    result.loss = m_squaredNormalised / count;
    result.rmse = std::sqrt(m_squared / count);
    result.mae = m_absolute / count;
    result.nrmse = result.rmse / (m_truth / count);
    return result;
}

} // namespace fedran
