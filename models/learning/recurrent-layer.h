#ifndef FEDRAN_MODELS_LEARNING_RECURRENT_LAYER_H
#define FEDRAN_MODELS_LEARNING_RECURRENT_LAYER_H

// One LSTM or GRU layer run over a whole sequence, forward and back through time, on the
// project's deterministic matrix products (gemm.h) and activations (activations.h), so that a
// recurrent model gives the same bits on every x86-64 host. Equations: docs/forecasting-models.md.

#include "compression/codec.h"
#include "compression/rng.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fedran
{

enum class RecurrentCell
{
    kLstm, ///< gates i, f, g, o (PyTorch's order); one bias per gate
    kGru,  ///< gates r, z, n; one bias per gate plus b_hn inside the reset product
};

/// What a layer keeps between its forward and backward pass over one batch. Buffers only grow.
struct RecurrentTrace
{
    std::vector<float> gates; ///< steps x n x G*H: activated gates (LSTM i f g o, GRU r z n)
    std::vector<float> h;     ///< (steps + 1) x n x H; h[0] = 0, h[1..] are the outputs
    std::vector<float> c;     ///< LSTM: (steps + 1) x n x H cell states, c[0] = 0
    std::vector<float> tanhC; ///< LSTM: steps x n x H
    std::vector<float> u;     ///< GRU: steps x n x H, W_hn h + b_hn
    std::vector<float> hh;    ///< GRU: n x G*H, one step's hidden-side products
    std::vector<float> dA;    ///< steps x n x G*H: dLoss/d(input-side pre-activations)
    std::vector<float> dAh;   ///< GRU: steps x n x G*H: dLoss/d(hidden-side products)
    std::vector<float> dh;    ///< n x H: dLoss/dh carried back to the previous step
    std::vector<float> dc;    ///< LSTM: n x H: dLoss/dc carried back
};

/**
 * Tensors, for a layer named e.g. "lstm1" with G gates of H units on I inputs:
 * "<name>.weight_ih_<gate>" {H, I} for each gate, then "<name>.weight_hh_<gate>" {H, H}, then
 * "<name>.bias_<gate>" {H}, and for the GRU "<name>.bias_hn" {H}. Each kind is contiguous
 * across gates, so the G per-gate weights form one {G*H, I} matrix and a step is one product
 * per operand, while codecs still see one tensor per gate.
 */
class RecurrentLayer
{
  public:
    RecurrentLayer(RecurrentCell cell, uint32_t inputs, uint32_t hidden, std::string name);

    void AppendTensors(std::vector<TensorSpec>& tensors) const;

    size_t ParamCount() const
    {
        return m_paramCount;
    }

    uint32_t Hidden() const
    {
        return m_hidden;
    }

    /// Weights U(-1/sqrt(H), 1/sqrt(H)) in layout order, as PyTorch; biases 0 except the LSTM's
    /// forget gate at 1 (it starts by keeping its cell state).
    void InitParams(float* params, Rng& rng) const;

    /**
     * Runs the layer over `steps` steps of n sequences. `input` is time-major, steps x n x I.
     * Returns the outputs h[1..steps], steps x n x H, which live in `trace`.
     */
    const float* Forward(const float* params,
                         const float* input,
                         size_t steps,
                         size_t n,
                         RecurrentTrace& trace) const;

    /**
     * Backpropagation through time after Forward() on the same params, input and trace.
     * `dOutput` is dLoss/dh: steps x n x H, or if `lastOnly` n x H for the last step (the other
     * steps' outputs feeding nothing else). Writes the layer's gradient into `grad` (its
     * slice) and, if `dInput` is not null, dLoss/dinput (steps x n x I).
     */
    void Backward(const float* params,
                  const float* input,
                  size_t steps,
                  size_t n,
                  RecurrentTrace& trace,
                  const float* dOutput,
                  bool lastOnly,
                  float* grad,
                  float* dInput) const;

    /// Floating-point operations per sequence of `steps` steps, per tensor of the layer.
    void AppendForwardFlops(size_t steps, std::vector<double>& flops) const;

  private:
    size_t Gates() const
    {
        return m_cell == RecurrentCell::kLstm ? 4 : 3;
    }

    void LstmSteps(const float* params, size_t steps, size_t n, RecurrentTrace& trace) const;
    void GruSteps(const float* params, size_t steps, size_t n, RecurrentTrace& trace) const;
    void LstmBackSteps(const float* params,
                       size_t steps,
                       size_t n,
                       RecurrentTrace& trace,
                       const float* dOutput,
                       bool lastOnly) const;
    void GruBackSteps(const float* params,
                      size_t steps,
                      size_t n,
                      RecurrentTrace& trace,
                      const float* dOutput,
                      bool lastOnly) const;

    RecurrentCell m_cell;
    uint32_t m_inputs;
    uint32_t m_hidden;
    std::string m_name;
    size_t m_hhOffset;   ///< weight_hh, after the G weight_ih tensors
    size_t m_biasOffset; ///< the G biases, then the GRU's bias_hn
    size_t m_paramCount;
};

} // namespace fedran

#endif
