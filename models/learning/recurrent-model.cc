#include "models/learning/recurrent-model.h"

#include "models/learning/forecast-errors.h"
#include "models/learning/model-checks.h"
#include "models/learning/scratch.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace fedran
{

namespace
{

/// Evaluate() walks the dataset in blocks of this many rows to bound its scratch memory.
constexpr size_t kRecurrentEvalBlockRows = 256;

/// Per-thread buffers of one call; they only grow.
struct RecurrentScratch
{
    std::vector<RecurrentTrace> traces; ///< one per layer
    std::vector<float> x;               ///< gathered minibatch rows, n x features
    std::vector<float> targets;         ///< gathered targets, n x outputs
    std::vector<float> steps;           ///< the sequence, time-major: sequence x n
    std::vector<float> headIn;          ///< n x (H + side): last hidden state, side features
    std::vector<float> dHeadIn;
    std::vector<float> dTop;      ///< n x H: dLoss/d(last hidden state)
    std::vector<float> dLayer[2]; ///< sequence x n x H, between layers, alternating
};

thread_local RecurrentScratch t_recurrent;

uint32_t
CheckedHidden(RecurrentCell cell, const DataShape& shape, uint32_t hidden, uint32_t layers)
{
    const std::string name = cell == RecurrentCell::kLstm ? "LstmModel" : "GruModel";
    if (shape.outputs == 0 || shape.sequence == 0 || shape.sequence > shape.features ||
        hidden == 0 || layers == 0)
    {
        throw std::invalid_argument(name + ": needs outputs (" + std::to_string(shape.outputs) +
                                    "), a sequence of 1.." + std::to_string(shape.features) +
                                    " leading features (" + std::to_string(shape.sequence) +
                                    "), hidden (" + std::to_string(hidden) + ") and layers (" +
                                    std::to_string(layers) + ") > 0");
    }
    return hidden;
}

} // namespace

RecurrentModel::RecurrentModel(RecurrentCell cell,
                               const DataShape& shape,
                               uint32_t hidden,
                               uint32_t layers)
    : m_name(cell == RecurrentCell::kLstm ? "LstmModel" : "GruModel")
    , m_features(shape.features)
    , m_sequence(shape.sequence)
    , m_outputs(shape.outputs)
    , m_head(CheckedHidden(cell, shape, hidden, layers) + 1 + shape.features - shape.sequence,
             {shape.outputs})
{
    const std::string prefix = cell == RecurrentCell::kLstm ? "lstm" : "gru";
    std::vector<TensorSpec> tensors;
    size_t offset = 0;
    for (uint32_t l = 0; l < layers; ++l)
    {
        m_layers.emplace_back(cell, l == 0 ? 1 : hidden, hidden, prefix + std::to_string(l + 1));
        m_layers.back().AppendTensors(tensors);
        m_layerOffsets.push_back(offset);
        offset += m_layers.back().ParamCount();
    }
    m_headOffset = offset;
    m_head.AppendTensors(tensors);
    m_layout = TensorLayout(std::move(tensors));
}

const TensorLayout&
RecurrentModel::Layout() const
{
    return m_layout;
}

void
RecurrentModel::InitParams(std::span<float> params, Rng& rng) const
{
    CheckInitSize(m_name, m_layout, params);
    for (size_t l = 0; l < m_layers.size(); ++l)
    {
        m_layers[l].InitParams(params.data() + m_layerOffsets[l], rng);
    }
    m_head.InitParams(params.data() + m_headOffset, rng);
}

float*
RecurrentModel::Forward(const float* params, const float* rows, size_t n) const
{
    RecurrentScratch& scratch = t_recurrent;
    if (scratch.traces.size() < m_layers.size())
    {
        scratch.traces.resize(m_layers.size());
    }
    // One input per step: the window's values, step-major so that a step's batch is contiguous.
    const size_t steps = m_sequence;
    float* seq = GrowScratch(scratch.steps, steps * n);
    for (size_t i = 0; i < n; ++i)
    {
        for (size_t t = 0; t < steps; ++t)
        {
            seq[t * n + i] = rows[i * m_features + t];
        }
    }
    const float* in = seq;
    for (size_t l = 0; l < m_layers.size(); ++l)
    {
        in = m_layers[l].Forward(params + m_layerOffsets[l], in, steps, n, scratch.traces[l]);
    }
    // The head reads the top layer's last output, the window's last value and the side
    // features: the last value is a linear autoregressive path beside the recurrent one (as
    // LSTNet's, Lai et al., SIGIR 2018), which lets the forecast follow a level far outside the
    // training range (a traffic burst) where the saturating gates alone cannot. One value, not
    // the whole window: thirty-odd nearly equal inputs would make plain SGD unstable at the
    // learning rates the recurrent weights need.
    const size_t hidden = m_layers.back().Hidden();
    const size_t side = m_features - m_sequence;
    const size_t width = hidden + 1 + side;
    float* headIn = GrowScratch(scratch.headIn, n * width);
    const float* last = in + (steps - 1) * n * hidden;
    for (size_t i = 0; i < n; ++i)
    {
        float* to = headIn + i * width;
        std::memcpy(to, last + i * hidden, hidden * sizeof(float));
        std::memcpy(to + hidden,
                    rows + i * m_features + m_sequence - 1,
                    (1 + side) * sizeof(float));
    }
    return m_head.Forward(params + m_headOffset, headIn, n);
}

void
RecurrentModel::Backward(const float* params, size_t n, float* grad) const
{
    RecurrentScratch& scratch = t_recurrent;
    const size_t steps = m_sequence;
    const size_t hidden = m_layers.back().Hidden();
    const size_t width = m_head.Inputs();
    float* dHeadIn = GrowScratch(scratch.dHeadIn, n * width);
    m_head.Backward(params + m_headOffset, scratch.headIn.data(), n, grad + m_headOffset, dHeadIn);
    float* dTop = GrowScratch(scratch.dTop, n * hidden);
    for (size_t i = 0; i < n; ++i)
    {
        std::memcpy(dTop + i * hidden, dHeadIn + i * width, hidden * sizeof(float));
    }
    const float* dOut = dTop;
    for (size_t l = m_layers.size(); l-- > 0;)
    {
        const bool top = l + 1 == m_layers.size();
        const float* input =
            l == 0 ? scratch.steps.data() : scratch.traces[l - 1].h.data() + n * hidden;
        float* dInput = l == 0 ? nullptr : GrowScratch(scratch.dLayer[l % 2], steps * n * hidden);
        m_layers[l].Backward(params + m_layerOffsets[l],
                             input,
                             steps,
                             n,
                             scratch.traces[l],
                             dOut,
                             top,
                             grad + m_layerOffsets[l],
                             dInput);
        dOut = dInput;
    }
}

double
RecurrentModel::LossAndGradient(std::span<const float> params,
                                const Dataset& data,
                                std::span<const uint32_t> rows,
                                std::span<float> grad) const
{
    CheckParamsAndData(m_name, m_layout, m_features, params, data);
    CheckGradientSize(m_name, params, grad);
    CheckForecastData(m_name, data, m_outputs);
    const size_t n = rows.size();
    if (n == 0)
    {
        std::fill(grad.begin(), grad.end(), 0.0f);
        return 0.0;
    }
    RecurrentScratch& scratch = t_recurrent;
    float* x = GrowScratch(scratch.x, n * m_features);
    float* targets = GrowScratch(scratch.targets, n * m_outputs);
    for (size_t i = 0; i < n; ++i)
    {
        if (rows[i] >= data.Size())
        {
            throw std::invalid_argument(m_name + ": row " + std::to_string(rows[i]) +
                                        " out of range (" + std::to_string(data.Size()) +
                                        " examples)");
        }
        std::memcpy(x + i * m_features, data.Row(rows[i]), m_features * sizeof(float));
        std::memcpy(targets + i * m_outputs,
                    data.targets.data() + size_t{rows[i]} * m_outputs,
                    m_outputs * sizeof(float));
    }
    float* predictions = Forward(params.data(), x, n);
    const double squared = MseBackward(predictions, targets, n, m_outputs);
    Backward(params.data(), n, grad.data());
    return squared / static_cast<double>(n * m_outputs);
}

Evaluation
RecurrentModel::Evaluate(std::span<const float> params, const Dataset& data) const
{
    CheckParamsAndData(m_name, m_layout, m_features, params, data);
    CheckForecastData(m_name, data, m_outputs);
    ForecastErrors errors;
    const size_t total = data.Size();
    for (size_t start = 0; start < total; start += kRecurrentEvalBlockRows)
    {
        const size_t count = std::min(kRecurrentEvalBlockRows, total - start);
        errors.Add(Forward(params.data(), data.Row(start), count), data, start, count);
    }
    return errors.Result();
}

std::vector<double>
RecurrentModel::ForwardFlopsPerTensor() const
{
    std::vector<double> flops;
    for (const RecurrentLayer& layer : m_layers)
    {
        layer.AppendForwardFlops(m_sequence, flops);
    }
    // The head as a dense layer: a multiply-add per weight, an add per bias.
    flops.push_back(2.0 * m_outputs * m_head.Inputs());
    flops.push_back(m_outputs);
    return flops;
}

} // namespace fedran
