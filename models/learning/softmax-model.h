#ifndef FEDRAN_MODELS_LEARNING_SOFTMAX_MODEL_H
#define FEDRAN_MODELS_LEARNING_SOFTMAX_MODEL_H

// Multinomial logistic regression: the convex baseline model of the FL literature and the one
// whose update size (7,850 floats for Fashion-MNIST) the compression experiments start from.

#include "models/learning/model.h"

#include <cstdint>
#include <span>

namespace fedran
{

/**
 * p(y | x) = softmax(W x + b), trained on mean cross-entropy.
 *
 * Layout: "dense.weight" {classes, features} (row-major, one row per class) followed by
 * "dense.bias" {classes}. The object holds only shapes, so one instance serves every client
 * and concurrent calls are safe; per-call scratch lives in thread_local buffers that only grow.
 */
class SoftmaxModel : public Model
{
  public:
    /// Throws std::invalid_argument if features or classes is 0.
    SoftmaxModel(uint32_t features, uint32_t classes);

    const TensorLayout& Layout() const override;

    /// Zeros: the loss is convex, so there is no symmetry to break, and a zero start gives the
    /// uniform prediction (loss ln(classes)) without consuming the Rng.
    void InitParams(std::span<float> params, Rng& rng) const override;

    double LossAndGradient(std::span<const float> params,
                           const Dataset& data,
                           std::span<const uint32_t> rows,
                           std::span<float> grad) const override;

    /// Mean loss and accuracy over every example; an empty dataset gives {0, 0}.
    Evaluation Evaluate(std::span<const float> params, const Dataset& data) const override;

    uint32_t Features() const
    {
        return m_features;
    }

    uint32_t Classes() const
    {
        return m_classes;
    }

  private:
    void CheckShapes(std::span<const float> params, const Dataset& data) const;

    uint32_t m_features;
    uint32_t m_classes;
    TensorLayout m_layout;
};

} // namespace fedran

#endif
