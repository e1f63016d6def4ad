#ifndef FEDRAN_MODELS_LEARNING_MLP_MODEL_H
#define FEDRAN_MODELS_LEARNING_MLP_MODEL_H

// Multilayer perceptron with ReLU hidden layers: the non-convex model of the FL literature's
// MNIST experiments (McMahan et al. 2017 use 784-200-200-10, 199,210 parameters).

#include "models/learning/dense-stack.h"
#include "models/learning/model.h"

#include <cstdint>
#include <span>
#include <vector>

namespace fedran
{

/**
 * logits = fcL(ReLU(... ReLU(fc1(x)))), trained on mean cross-entropy.
 *
 * Layout: "fc1.weight" {h1, features}, "fc1.bias" {h1}, ..., "fcL.weight" {classes, h_last},
 * "fcL.bias" {classes} (L = hidden.size() + 1; weights row-major, one row per output unit).
 * With no hidden layer it is softmax regression under other tensor names and a random start.
 * Holds shapes only: one instance serves every client, and concurrent calls are safe.
 */
class MlpModel : public Model
{
  public:
    /// Throws std::invalid_argument if features, classes or a hidden width is 0.
    MlpModel(uint32_t features, std::vector<uint32_t> hidden, uint32_t classes);

    const TensorLayout& Layout() const override;

    /// See DenseStack::InitParams: Kaiming-uniform weights, zero biases.
    void InitParams(std::span<float> params, Rng& rng) const override;

    double LossAndGradient(std::span<const float> params,
                           const Dataset& data,
                           std::span<const uint32_t> rows,
                           std::span<float> grad) const override;

    /// Mean loss and accuracy over every example; an empty dataset gives {0, 0}.
    Evaluation Evaluate(std::span<const float> params, const Dataset& data) const override;

  private:
    uint32_t m_features;
    uint32_t m_classes;
    DenseStack m_stack;
    TensorLayout m_layout;
};

} // namespace fedran

#endif
