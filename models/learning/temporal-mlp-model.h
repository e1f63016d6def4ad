#ifndef FEDRAN_MODELS_LEARNING_TEMPORAL_MLP_MODEL_H
#define FEDRAN_MODELS_LEARNING_TEMPORAL_MLP_MODEL_H

// The forecasting baseline (model.type "temporal_mlp"): a ReLU perceptron on the whole input
// row (the window and the side features as one vector), trained on the mean squared error of
// normalised targets, as the MLP of the ITU 2022 traffic-prediction challenge.

#include "models/learning/dataset.h"
#include "models/learning/dense-stack.h"
#include "models/learning/model.h"

#include <cstdint>
#include <span>
#include <vector>

namespace fedran
{

/**
 * predictions = fcL(ReLU(... ReLU(fc1(x)))). Layout as MlpModel: "fc1.weight" {h1, features},
 * "fc1.bias" {h1}, ..., "fcL.weight" {outputs, h_last}, "fcL.bias" {outputs}.
 */
class TemporalMlpModel : public Model
{
  public:
    /// Throws std::invalid_argument if features, outputs or a hidden width is 0.
    TemporalMlpModel(const DataShape& shape, std::vector<uint32_t> hidden);

    const TensorLayout& Layout() const override;

    /// See DenseStack::InitParams.
    void InitParams(std::span<float> params, Rng& rng) const override;

    double LossAndGradient(std::span<const float> params,
                           const Dataset& data,
                           std::span<const uint32_t> rows,
                           std::span<float> grad) const override;

    /// ForecastErrors over every example: MSE, and rmse, mae, nrmse in original units.
    Evaluation Evaluate(std::span<const float> params, const Dataset& data) const override;

  private:
    uint32_t m_features;
    uint32_t m_outputs;
    DenseStack m_stack;
    TensorLayout m_layout;
};

} // namespace fedran

#endif
