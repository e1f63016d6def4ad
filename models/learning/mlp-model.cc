#include "models/learning/mlp-model.h"

#include "models/learning/cross-entropy.h"
#include "models/learning/dataset.h"
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

/// Evaluate() walks the dataset in blocks of this many rows to bound its scratch memory.
constexpr size_t kMlpEvalBlockRows = 256;

/// The stack's widths: the hidden layers, then the output layer.
std::vector<uint32_t>
Widths(uint32_t features, std::vector<uint32_t> hidden, uint32_t classes)
{
    if (features == 0 || classes == 0 ||
        std::find(hidden.begin(), hidden.end(), 0u) != hidden.end())
    {
        throw std::invalid_argument("MlpModel: features (" + std::to_string(features) +
                                    "), classes (" + std::to_string(classes) +
                                    ") and every hidden width must be > 0");
    }
    hidden.push_back(classes);
    return hidden;
}

/// Per-thread minibatch: rows gathered contiguously so that each layer is one product.
struct MlpScratch
{
    std::vector<float> x;
    std::vector<uint8_t> labels;
};

thread_local MlpScratch t_mlp;

} // namespace

MlpModel::MlpModel(uint32_t features, std::vector<uint32_t> hidden, uint32_t classes)
    : m_features(features)
    , m_classes(classes)
    , m_stack(features, Widths(features, std::move(hidden), classes))
{
    std::vector<TensorSpec> tensors;
    m_stack.AppendTensors(tensors);
    m_layout = TensorLayout(std::move(tensors));
}

const TensorLayout&
MlpModel::Layout() const
{
    return m_layout;
}

void
MlpModel::InitParams(std::span<float> params, Rng& rng) const
{
    CheckInitSize("MlpModel", m_layout, params);
    m_stack.InitParams(params.data(), rng);
}

double
MlpModel::LossAndGradient(std::span<const float> params,
                          const Dataset& data,
                          std::span<const uint32_t> rows,
                          std::span<float> grad) const
{
    CheckParamsAndData("MlpModel", m_layout, m_features, params, data);
    CheckGradientSize("MlpModel", params, grad);
    const size_t n = rows.size();
    if (n == 0)
    {
        std::fill(grad.begin(), grad.end(), 0.0f);
        return 0.0;
    }

    // Minibatch rows are scattered through the shared dataset; one contiguous copy lets
    // every layer run as one blocked matrix product over the batch.
    MlpScratch& scratch = t_mlp;
    float* x = GrowScratch(scratch.x, n * m_features);
    uint8_t* labels = GrowScratch(scratch.labels, n);
    for (size_t i = 0; i < n; ++i)
    {
        CheckRow("MlpModel", data, rows[i], m_classes);
        std::memcpy(x + i * m_features, data.Row(rows[i]), m_features * sizeof(float));
        labels[i] = data.y[rows[i]];
    }

    float* logits = m_stack.Forward(params.data(), x, n);
    const double loss =
        SoftmaxCrossEntropyBackward(logits, n, m_classes, labels, 1.0f / static_cast<float>(n));
    m_stack.Backward(params.data(), x, n, grad.data(), nullptr);
    return loss / static_cast<double>(n);
}

Evaluation
MlpModel::Evaluate(std::span<const float> params, const Dataset& data) const
{
    CheckParamsAndData("MlpModel", m_layout, m_features, params, data);
    const size_t total = data.Size();
    if (total == 0)
    {
        return {};
    }
    double lossSum = 0.0;
    size_t correct = 0;
    for (size_t start = 0; start < total; start += kMlpEvalBlockRows)
    {
        const size_t count = std::min(kMlpEvalBlockRows, total - start);
        CheckLabels("MlpModel", data, start, count, m_classes);
        // Evaluation covers every example in order, so the dataset rows are read in place.
        float* logits = m_stack.Forward(params.data(), data.Row(start), count);
        lossSum +=
            SoftmaxCrossEntropyEvaluate(logits, count, m_classes, data.y.data() + start, correct);
    }
    Evaluation result;
    result.loss = lossSum / static_cast<double>(total);
    result.accuracy = static_cast<double>(correct) / static_cast<double>(total);
    return result;
}

} // namespace fedran
