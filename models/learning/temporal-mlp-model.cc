#include "models/learning/temporal-mlp-model.h"

#include "models/learning/forecast-errors.h"
#include "models/learning/model-checks.h"
#include "models/learning/scratch.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace fedran
{

namespace
{

constexpr size_t kTemporalMlpEvalBlockRows = 256;

std::vector<uint32_t>
Widths(const DataShape& shape, std::vector<uint32_t> hidden)
{
    if (shape.features == 0 || shape.outputs == 0 ||
        std::find(hidden.begin(), hidden.end(), 0u) != hidden.end())
    {
        throw std::invalid_argument(
            "TemporalMlpModel: features (" + std::to_string(shape.features) + "), outputs (" +
            std::to_string(shape.outputs) + ") and every hidden width must be > 0");
    }
    hidden.push_back(shape.outputs);
    return hidden;
}

struct TemporalMlpScratch
{
    std::vector<float> x;
    std::vector<float> targets;
};

thread_local TemporalMlpScratch t_temporalMlp;

} // namespace

TemporalMlpModel::TemporalMlpModel(const DataShape& shape, std::vector<uint32_t> hidden)
    : m_features(shape.features)
    , m_outputs(shape.outputs)
    , m_stack(shape.features, Widths(shape, std::move(hidden)))
{
    std::vector<TensorSpec> tensors;
    m_stack.AppendTensors(tensors);
    m_layout = TensorLayout(std::move(tensors));
}

const TensorLayout&
TemporalMlpModel::Layout() const
{
    return m_layout;
}

void
TemporalMlpModel::InitParams(std::span<float> params, Rng& rng) const
{
    CheckInitSize("TemporalMlpModel", m_layout, params);
    m_stack.InitParams(params.data(), rng);
}

double
TemporalMlpModel::LossAndGradient(std::span<const float> params,
                                  const Dataset& data,
                                  std::span<const uint32_t> rows,
                                  std::span<float> grad) const
{
    CheckParamsAndData("TemporalMlpModel", m_layout, m_features, params, data);
    CheckGradientSize("TemporalMlpModel", params, grad);
    CheckForecastData("TemporalMlpModel", data, m_outputs);
    const size_t n = rows.size();
    if (n == 0)
    {
        std::fill(grad.begin(), grad.end(), 0.0f);
        return 0.0;
    }
    TemporalMlpScratch& scratch = t_temporalMlp;
    float* x = GrowScratch(scratch.x, n * m_features);
    float* targets = GrowScratch(scratch.targets, n * m_outputs);
    for (size_t i = 0; i < n; ++i)
    {
        if (rows[i] >= data.Size())
        {
            throw std::invalid_argument("TemporalMlpModel: row " + std::to_string(rows[i]) +
                                        " out of range (" + std::to_string(data.Size()) +
                                        " examples)");
        }
        std::memcpy(x + i * m_features, data.Row(rows[i]), m_features * sizeof(float));
        std::memcpy(targets + i * m_outputs,
                    data.targets.data() + size_t{rows[i]} * m_outputs,
                    m_outputs * sizeof(float));
    }
    float* predictions = m_stack.Forward(params.data(), x, n);
    const double squared = MseBackward(predictions, targets, n, m_outputs);
    m_stack.Backward(params.data(), x, n, grad.data(), nullptr);
    return squared / static_cast<double>(n * m_outputs);
}

Evaluation
TemporalMlpModel::Evaluate(std::span<const float> params, const Dataset& data) const
{
    CheckParamsAndData("TemporalMlpModel", m_layout, m_features, params, data);
    CheckForecastData("TemporalMlpModel", data, m_outputs);
    ForecastErrors errors;
    const size_t total = data.Size();
    for (size_t start = 0; start < total; start += kTemporalMlpEvalBlockRows)
    {
        const size_t count = std::min(kTemporalMlpEvalBlockRows, total - start);
        errors.Add(m_stack.Forward(params.data(), data.Row(start), count), data, start, count);
    }
    return errors.Result();
}

} // namespace fedran
