#include "models/learning/softmax-model.h"

#include "models/learning/dataset.h"
#include "models/learning/eigen-config.h"

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
constexpr size_t kEvalBlockRows = 1024;

/**
 * LossAndGradient runs its matrix products on at most this many rows at a time. Eigen packs
 * each product's operands into buffers it takes from the stack below 128 KiB and from the heap
 * above; 32 rows of 784 features (Fashion-MNIST) make a 98 KiB buffer, so a training step
 * allocates nothing whatever the batch size (up to about 1000 features).
 */
constexpr Eigen::Index kProductRows = 32;

/**
 * Per-thread buffers for LossAndGradient. They only grow, so after the first minibatch of a
 * given size a training step allocates nothing; being thread_local, they let one model object
 * serve concurrent clients.
 */
struct Scratch
{
    std::vector<float> x;      ///< gathered minibatch rows, n x features
    std::vector<float> logits; ///< n x classes: logits, then probabilities, then dLoss/dLogits
};

thread_local Scratch t_scratch;

/**
 * Turns row i of `logits` into softmax probabilities in place and returns -log p(label).
 * Subtracting the row maximum keeps exp() from overflowing.
 */
double
SoftmaxRowInPlace(MatrixMap& logits, Eigen::Index i, uint8_t label)
{
    auto row = logits.row(i);
    const float top = row.maxCoeff();
    const float target = row(label);
    row.array() = (row.array() - top).exp();
    const float sum = row.sum();
    row *= 1.0f / sum;
    return static_cast<double>(top - target) + std::log(static_cast<double>(sum));
}

} // namespace

SoftmaxModel::SoftmaxModel(uint32_t features, uint32_t classes)
    : m_features(features),
      m_classes(classes)
{
    if (features == 0 || classes == 0)
    {
        throw std::invalid_argument("SoftmaxModel: features (" + std::to_string(features) +
                                    ") and classes (" + std::to_string(classes) +
                                    ") must be > 0");
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
    if (params.size() != m_layout.TotalSize())
    {
        throw std::invalid_argument("SoftmaxModel::InitParams: got " +
                                    std::to_string(params.size()) + " floats, layout has " +
                                    std::to_string(m_layout.TotalSize()));
    }
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
        throw std::invalid_argument("SoftmaxModel: dataset has " +
                                    std::to_string(data.features) + " features per example (" +
                                    std::to_string(data.x.size()) + " values for " +
                                    std::to_string(data.Size()) + " examples), model expects " +
                                    std::to_string(m_features));
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
            throw std::invalid_argument("SoftmaxModel::LossAndGradient: row " + std::to_string(r) +
                                        " is outside the dataset or has a label >= " +
                                        std::to_string(classes));
        }
        std::memcpy(scratch.x.data() + i * features, data.Row(r), features * sizeof(float));
    }

    const auto in = static_cast<Eigen::Index>(n);
    const auto ic = static_cast<Eigen::Index>(classes);
    const auto iff = static_cast<Eigen::Index>(features);
    ConstMatrixMap w(params.data() + m_layout.Offset(0), ic, iff);
    ConstVectorMap b(params.data() + m_layout.Offset(1), ic);
    ConstMatrixMap x(scratch.x.data(), in, iff);
    MatrixMap z(scratch.logits.data(), in, ic);

    for (Eigen::Index s = 0; s < in; s += kProductRows)
    {
        const Eigen::Index m = std::min(kProductRows, in - s);
        z.middleRows(s, m).noalias() = x.middleRows(s, m) * w.transpose();
    }
    z.rowwise() += b.transpose();

    double loss = 0.0;
    for (Eigen::Index i = 0; i < in; ++i)
    {
        const uint8_t label = data.y[rows[static_cast<size_t>(i)]];
        loss += SoftmaxRowInPlace(z, i, label);
        z(i, label) -= 1.0f; // dLoss_i/dlogits = p - onehot(label)
    }
    z *= 1.0f / static_cast<float>(n);

    MatrixMap gw(grad.data() + m_layout.Offset(0), ic, iff);
    VectorMap gb(grad.data() + m_layout.Offset(1), ic);
    for (Eigen::Index s = 0; s < in; s += kProductRows)
    {
        const Eigen::Index m = std::min(kProductRows, in - s);
        if (s == 0)
        {
            gw.noalias() = z.topRows(m).transpose() * x.topRows(m);
        }
        else
        {
            gw.noalias() += z.middleRows(s, m).transpose() * x.middleRows(s, m);
        }
    }
    gb = z.colwise().sum().transpose();
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
    const auto ic = static_cast<Eigen::Index>(m_classes);
    const auto iff = static_cast<Eigen::Index>(m_features);
    ConstMatrixMap w(params.data() + m_layout.Offset(0), ic, iff);
    ConstVectorMap b(params.data() + m_layout.Offset(1), ic);
    std::vector<float> logitBuffer(std::min(total, kEvalBlockRows) * m_classes);

    double lossSum = 0.0;
    size_t correct = 0;
    for (size_t start = 0; start < total; start += kEvalBlockRows)
    {
        const auto rows = static_cast<Eigen::Index>(std::min(kEvalBlockRows, total - start));
        // Evaluation covers every example in order, so the dataset rows are mapped in place.
        ConstMatrixMap x(data.Row(start), rows, iff);
        MatrixMap z(logitBuffer.data(), rows, ic);
        z.noalias() = x * w.transpose();
        z.rowwise() += b.transpose();
        for (Eigen::Index i = 0; i < rows; ++i)
        {
            const uint8_t label = data.y[start + static_cast<size_t>(i)];
            if (label >= m_classes)
            {
                throw std::invalid_argument("SoftmaxModel::Evaluate: example " +
                                            std::to_string(start + static_cast<size_t>(i)) +
                                            " has label " + std::to_string(label) + " >= " +
                                            std::to_string(m_classes));
            }
            Eigen::Index predicted = 0;
            z.row(i).maxCoeff(&predicted); // ties go to the lowest class index
            correct += predicted == label ? 1 : 0;
            lossSum += SoftmaxRowInPlace(z, i, label);
        }
    }
    Evaluation result;
    result.loss = lossSum / static_cast<double>(total);
    result.accuracy = static_cast<double>(correct) / static_cast<double>(total);
    return result;
}

} // namespace fedran
