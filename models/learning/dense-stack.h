#ifndef FEDRAN_MODELS_LEARNING_DENSE_STACK_H
#define FEDRAN_MODELS_LEARNING_DENSE_STACK_H

// A stack of fully connected layers with ReLU between them: the whole MLP, and the head of
// the CNN. Holds shapes only; activations live in per-thread scratch.

#include "compression/codec.h"
#include "compression/rng.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fedran
{

/**
 * Layers fc1..fcL: fc_l computes z_l = a_{l-1} W_l^T + b_l with W_l of shape {width_l,
 * width_{l-1}} (row-major, one row per output unit, as PyTorch's nn.Linear), and
 * a_l = ReLU(z_l) for every layer but the last, whose z_L are the logits.
 *
 * The stack's parameters are one contiguous slice of the model's flat vector: fc1.weight,
 * fc1.bias, fc2.weight, ... in that order. Every method takes a pointer to the slice's start.
 */
class DenseStack
{
  public:
    /// widths: the output width of each layer, the last one being the number of classes.
    /// The caller validates: inputs and every width must be > 0, widths non-empty.
    DenseStack(uint32_t inputs, std::vector<uint32_t> widths);

    /// Appends the stack's tensors ("fc1.weight", "fc1.bias", ...) to `tensors`.
    void AppendTensors(std::vector<TensorSpec>& tensors) const;

    /// Floats in the stack's slice.
    size_t ParamCount() const
    {
        return m_paramCount;
    }

    /**
     * Kaiming (He) uniform weights, U(-sqrt(3 g / fan_in), +sqrt(3 g / fan_in)) with g = 2
     * for layers followed by a ReLU (keeping activation variance constant through the stack)
     * and g = 1 for the output layer (unit-variance logits, so the initial loss stays near
     * ln(classes)); zero biases. Draws weights in layout order, layer by layer.
     */
    void InitParams(float* params, Rng& rng) const;

    /**
     * Runs the stack on n rows of `input` (n x inputs, row-major) and returns the n x classes
     * logits, which live in this thread's scratch until the next Forward on the thread.
     */
    float* Forward(const float* params, const float* input, size_t n) const;

    /**
     * Backpropagates through the activations kept by the last Forward() on this thread, on
     * the same params and input. Before the call the logits buffer that Forward() returned
     * must hold dLoss/dlogits; the buffer and the kept activations are consumed. Writes (or,
     * if `accumulate`, adds) the gradient of every parameter of the stack into `grad` (the
     * stack's slice of the gradient) and, if inputGrad is not null, writes dLoss/dinput
     * (n x inputs) into it.
     */
    void Backward(const float* params,
                  const float* input,
                  size_t n,
                  float* grad,
                  float* inputGrad,
                  bool accumulate = false) const;

    uint32_t Inputs() const
    {
        return m_inputs;
    }

    uint32_t Outputs() const
    {
        return m_widths.back();
    }

  private:
    uint32_t InputsOf(size_t layer) const
    {
        return layer == 0 ? m_inputs : m_widths[layer - 1];
    }

    uint32_t m_inputs;
    std::vector<uint32_t> m_widths;
    std::vector<size_t> m_weightOffsets; ///< per layer, from the slice's start
    std::vector<size_t> m_biasOffsets;
    size_t m_paramCount = 0;
};

} // namespace fedran

#endif
