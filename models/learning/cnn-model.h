#ifndef FEDRAN_MODELS_LEARNING_CNN_MODEL_H
#define FEDRAN_MODELS_LEARNING_CNN_MODEL_H

// A LeNet-5-style convolutional network: the image model of the FL literature's CNN
// experiments, sized to train quickly on one core.

#include "models/learning/cnn-shape.h"
#include "models/learning/dense-stack.h"
#include "models/learning/model.h"

#include <cstdint>
#include <span>

namespace fedran
{

/**
 * conv1 -> ReLU -> 2x2 max pool -> conv2 -> ReLU -> 2x2 max pool -> flatten -> fc1 -> ReLU
 * -> fc2 (logits), trained on mean cross-entropy. An example is a channel-major image
 * (C x H x W, as PyTorch's NCHW tensors), and flattening is channel-major too, so the
 * parameters mean what the same tensors would in PyTorch.
 *
 * Layout: "conv1.weight" {c1, imageChannels, k, k}, "conv1.bias" {c1}, "conv2.weight"
 * {c2, c1, k, k}, "conv2.bias" {c2}, "fc1.weight" {hidden, c2 * h2 * w2}, "fc1.bias"
 * {hidden}, "fc2.weight" {classes, hidden}, "fc2.bias" {classes}.
 *
 * Convolutions run forward straight from the (padded) input (direct-conv.h); backward, the
 * second one from its pooled gradient's nonzeros (sparse-conv.h) and the first over the
 * padded images its forward pass kept; the bits of im2col and matrix products. Holds shapes
 * only: one instance serves every client, and concurrent calls are safe.
 */
class CnnModel : public Model
{
  public:
    /// Throws std::invalid_argument if a size is 0 or the image is too small for the layers.
    explicit CnnModel(const CnnShape& shape);

    const TensorLayout& Layout() const override;

    /// A convolution's weights and biases work at every output position of their layer.
    std::vector<double> ForwardFlopsPerTensor() const override;

    /// Kaiming-uniform weights (fan-in, ReLU gain; gain 1 for the output layer), zero biases.
    void InitParams(std::span<float> params, Rng& rng) const override;

    double LossAndGradient(std::span<const float> params,
                           const Dataset& data,
                           std::span<const uint32_t> rows,
                           std::span<float> grad) const override;

    /// Mean loss and accuracy over every example; an empty dataset gives {0, 0}.
    Evaluation Evaluate(std::span<const float> params, const Dataset& data) const override;

    const CnnShape& Shape() const
    {
        return m_shape;
    }

  private:
    /// Runs both convolution blocks and the dense head on the n images images[0..n); the
    /// activations stay in this thread's scratch for Backward(). Returns the logits.
    float* Forward(const float* params, const float* const* images, size_t n) const;

    /// Backpropagates dLoss/dlogits (in the buffer Forward() returned) into grad, which it
    /// overwrites, or adds to if `accumulate` (the later chunks of a large minibatch).
    void Backward(const float* params, size_t n, float* grad, bool accumulate) const;

    CnnShape m_shape;
    CnnGeometry m_geometry; ///< per image; pools are scaled to the chunk's size per call
    DenseStack m_head;
    TensorLayout m_layout;
};

} // namespace fedran

#endif
