#include "models/learning/softmax-model.h"

#include "models/learning/cross-entropy.h"
#include "models/learning/dataset.h"
#include "models/learning/gemm.h"
#include "models/learning/model-checks.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace fedran
{

namespace
{

/// Evaluate() walks the dataset in blocks of this many rows to bound its scratch memory.
constexpr size_t kSoftmaxEvalBlockRows = 1024;

/**
 * Per-thread buffers for LossAndGradient. They only grow, so after the first minibatch of a
 * given size a training step allocates nothing; being thread_local, they let one model object
 * serve concurrent clients.
 */
struct Scratch
{
    std::vector<float> x;        ///< gathered minibatch rows, n x features
    std::vector<uint8_t> labels; ///< their labels
    std::vector<float> logits;   ///< n x classes: logits, then dLoss/dLogits
};

thread_local Scratch t_scratch;

/// z[i][k] += b[k] for every row i of the n x classes logits.
void
AddBias(float* z, const float* b, size_t n, size_t classes)
{
    for (size_t i = 0; i < n; ++i)
    {
        for (size_t k = 0; k < classes; ++k)
        {
            z[i * classes + k] += b[k];
        }
    }
}

} // namespace

SoftmaxModel::SoftmaxModel(uint32_t features, uint32_t classes)
    : m_features(features)
    , m_classes(classes)
{
    if (features == 0 || classes == 0)
    {
        throw std::invalid_argument("SoftmaxModel: features (" + std::to_string(features) +
                                    ") and classes (" + std::to_string(classes) + ") must be > 0");
    }
    m_layout = TensorLayout({{"dense.weight", {classes, features}}, {"dense.bias", {classes}}});
}

const TensorLayout&
SoftmaxModel::Layout() const
{
    return m_layout;
}

void
SoftmaxModel::InitParams(std::span<float> params, Rng& /* rng */) const
{
    CheckInitSize("SoftmaxModel", m_layout, params);
    std::fill(params.begin(), params.end(), 0.0f);
}

void
SoftmaxModel::CheckShapes(std::span<const float> params, const Dataset& data) const
{
    if (params.size() != m_layout.TotalSize())
    {
        throw std::invalid_argument("SoftmaxModel: got " + std::to_string(params.size()) +
                                    " parameters, layout has " +
                                    std::to_string(m_layout.TotalSize()));
    }
    if (data.features != m_features || data.x.size() != data.Size() * m_features)
    {
        throw std::invalid_argument("SoftmaxModel: dataset has " + std::to_string(data.features) +
                                    " features per example (" + std::to_string(data.x.size()) +
                                    " values for " + std::to_string(data.Size()) +
                                    " examples), model expects " + std::to_string(m_features));
    }
}

double
SoftmaxModel::LossAndGradient(std::span<const float> params,
                              const Dataset& data,
                              std::span<const uint32_t> rows,
                              std::span<float> grad) const
{
    CheckShapes(params, data);
    if (grad.size() != params.size())
    {
        throw std::invalid_argument("SoftmaxModel::LossAndGradient: gradient has " +
                                    std::to_string(grad.size()) + " floats, parameters " +
                                    std::to_string(params.size()));
    }
    const size_t n = rows.size();
    if (n == 0)
    {
        std::fill(grad.begin(), grad.end(), 0.0f);
        return 0.0;
    }

    const size_t features = m_features;
    const size_t classes = m_classes;
    Scratch& scratch = t_scratch;
    if (scratch.x.size() < n * features)
    {
        scratch.x.resize(n * features);
    }
    scratch.labels.resize(n);
    if (scratch.logits.size() < n * classes)
    {
        scratch.logits.resize(n * classes);
    }

    // Minibatch rows are scattered through the shared dataset; one contiguous copy lets the
    // two products below run as blocked matrix products.
    for (size_t i = 0; i < n; ++i)
    {
        const uint32_t r = rows[i];
        if (r >= data.Size() || data.y[r] >= classes)
        {
            throw std::invalid_argument(
                "SoftmaxModel::LossAndGradient: row " + std::to_string(r) +
                " is outside the dataset or has a label >= " + std::to_string(classes));
        }
        std::memcpy(scratch.x.data() + i * features, data.Row(r), features * sizeof(float));
        scratch.labels[i] = data.y[r];
    }

    // The matrix kernels sum in a fixed order with fused multiply-adds (gemm.h): the same bits
    // on every CPU.
    const float* w = params.data() + m_layout.Offset(0);
    const float* b = params.data() + m_layout.Offset(1);
    float* z = scratch.logits.data();
    Gemm(Op::kNone,
         Op::kTranspose,
         n,
         classes,
         features,
         scratch.x.data(),
         features,
         w,
         features,
         z,
         classes);
    AddBias(z, b, n, classes);
    const double loss = SoftmaxCrossEntropyBackward(z,
                                                    n,
                                                    classes,
                                                    scratch.labels.data(),
                                                    1.0f / static_cast<float>(n));

    float* gw = grad.data() + m_layout.Offset(0);
    float* gb = grad.data() + m_layout.Offset(1);
    Gemm(Op::kTranspose,
         Op::kNone,
         classes,
         features,
         n,
         z,
         classes,
         scratch.x.data(),
         features,
         gw,
         features);
    std::fill_n(gb, classes, 0.0f);
    for (size_t i = 0; i < n; ++i)
    {
        for (size_t k = 0; k < classes; ++k)
        {
            gb[k] += z[i * classes + k];
        }
    }
    return loss / static_cast<double>(n);
}

Evaluation
SoftmaxModel::Evaluate(std::span<const float> params, const Dataset& data) const
{
    CheckShapes(params, data);
    const size_t total = data.Size();
    if (total == 0)
    {
        return {};
    }
    const float* w = params.data() + m_layout.Offset(0);
    const float* b = params.data() + m_layout.Offset(1);
    std::vector<float> logits(std::min(total, kSoftmaxEvalBlockRows) * m_classes);

    double lossSum = 0.0;
    size_t correct = 0;
    for (size_t start = 0; start < total; start += kSoftmaxEvalBlockRows)
    {
        const size_t rows = std::min(kSoftmaxEvalBlockRows, total - start);
        CheckLabels("SoftmaxModel", data, start, rows, m_classes);
        // Evaluation covers every example in order, so the dataset rows are read in place.
        Gemm(Op::kNone,
             Op::kTranspose,
             rows,
             m_classes,
             m_features,
             data.Row(start),
             m_features,
             w,
             m_features,
             logits.data(),
             m_classes);
        AddBias(logits.data(), b, rows, m_classes);
        lossSum += SoftmaxCrossEntropyEvaluate(logits.data(),
                                               rows,
                                               m_classes,
                                               data.y.data() + start,
                                               correct);
    }
    Evaluation result;
    result.loss = lossSum / static_cast<double>(total);
    result.accuracy = static_cast<double>(correct) / static_cast<double>(total);
    return result;
}

} // namespace fedran
