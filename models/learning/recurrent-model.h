#ifndef FEDRAN_MODELS_LEARNING_RECURRENT_MODEL_H
#define FEDRAN_MODELS_LEARNING_RECURRENT_MODEL_H

// LSTM and GRU forecasters (model.type "lstm", "gru"): the recurrent models of the federated
// traffic-forecasting papers (FedDA, INFOCOM 2021; the ITU 2022 challenge), trained on the mean
// squared error of normalised targets. docs/forecasting-models.md gives the equations.

#include "models/learning/dataset.h"
#include "models/learning/dense-stack.h"
#include "models/learning/model.h"
#include "models/learning/recurrent-layer.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace fedran
{

/**
 * The first `sequence` features of a row (the closeness window, oldest first) are fed one value
 * per step through `layers` stacked recurrent layers of `hidden` units; the last step's hidden
 * state of the top layer, concatenated with the window's last value (a linear autoregressive
 * path beside the recurrent one, as LSTNet's) and the row's side features, goes through one
 * dense layer to the `outputs` predictions.
 *
 * Layout: each layer's tensors (RecurrentLayer: "lstm1.weight_ih_i" {H, 1}, ...,
 * "lstm2.weight_ih_i" {H, H}, ...), then "fc1.weight" {outputs, H + 1 + side}, "fc1.bias"
 * {outputs}. Holds shapes only: one instance serves every client, concurrent calls are safe.
 */
class RecurrentModel : public Model
{
  public:
    /// Throws std::invalid_argument unless shape has outputs, a sequence of at least one step
    /// within its features, and hidden and layers are > 0.
    RecurrentModel(RecurrentCell cell, const DataShape& shape, uint32_t hidden, uint32_t layers);

    const TensorLayout& Layout() const override;

    /// RecurrentLayer::InitParams for each layer, then the head as DenseStack does.
    void InitParams(std::span<float> params, Rng& rng) const override;

    /// Mean squared error over the rows' targets (normalised) and its gradient by
    /// backpropagation through time.
    double LossAndGradient(std::span<const float> params,
                           const Dataset& data,
                           std::span<const uint32_t> rows,
                           std::span<float> grad) const override;

    /// ForecastErrors over every example: MSE, and rmse, mae, nrmse in original units.
    Evaluation Evaluate(std::span<const float> params, const Dataset& data) const override;

    /// Per sequence: every step's products, bias adds and nonlinearities, then the head's.
    std::vector<double> ForwardFlopsPerTensor() const override;

  private:
    /// Predictions (n x outputs, in this thread's scratch) for n contiguous rows.
    float* Forward(const float* params, const float* rows, size_t n) const;

    /// Backward after Forward on the same rows, once the buffer Forward returned holds
    /// dLoss/dpredictions.
    void Backward(const float* params, size_t n, float* grad) const;

    std::string m_name;
    uint32_t m_features;
    uint32_t m_sequence;
    uint32_t m_outputs;
    std::vector<RecurrentLayer> m_layers;
    std::vector<size_t> m_layerOffsets;
    size_t m_headOffset = 0;
    DenseStack m_head;
    TensorLayout m_layout;
};

} // namespace fedran

#endif
