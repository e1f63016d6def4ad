#ifndef FEDRAN_MODELS_LEARNING_MAX_POOL_H
#define FEDRAN_MODELS_LEARNING_MAX_POOL_H

// 2x2 max pooling (stride 2) fused with the convolution's bias and the ReLU that precede it.
//
// Because the bias b is the same for the four inputs of a window and ReLU is monotone,
// ReLU(max(z) + b) = max over the window of ReLU(z + b), so adding the bias and applying the
// ReLU after pooling gives the conventional conv -> bias -> ReLU -> pool result at a quarter
// of the element-wise work.

#include "models/learning/sparse-conv.h"

#include <cstddef>
#include <cstdint>

namespace fedran
{

/// Channel-major activations: channels x n images x height x width.
struct PoolShape
{
    size_t channels = 0;
    size_t n = 0;
    uint32_t height = 0;
    uint32_t width = 0;

    /// Output size: a trailing odd row or column is dropped (PyTorch's floor mode).
    uint32_t OutHeight() const
    {
        return height / 2;
    }

    uint32_t OutWidth() const
    {
        return width / 2;
    }

    size_t OutSize() const
    {
        return channels * n * OutHeight() * OutWidth();
    }
};

/**
 * out = ReLU(max over each 2x2 window of `in` + bias[channel]), channels x n x OutHeight x
 * OutWidth. Records in `argmax` which of the window's four inputs (0..3, row-major; the first
 * on ties) was the maximum, for the backward pass.
 */
void PoolBiasReluForward(const PoolShape& shape,
                         const float* in,
                         const float* bias,
                         float* out,
                         uint8_t* argmax);

/**
 * Given dLoss/dout and the forward pass's out and argmax, overwrites inGrad (the shape of
 * `in`) with dLoss/din and adds dLoss/dbias to biasGrad (channels), so that a minibatch
 * processed in parts sums its bias gradient. The ReLU passes gradient only where out > 0;
 * inputs that were not a window's maximum, or were dropped, get zero.
 */
void PoolBiasReluBackward(const PoolShape& shape,
                          const float* outGrad,
                          const float* out,
                          const uint8_t* argmax,
                          float* inGrad,
                          float* biasGrad);

/**
 * PoolBiasReluBackward for a convolution that takes its output gradient sparse
 * (SparseConvBackward): the same bias gradient, and instead of dLoss/din the nonzero entries
 * of it, one slot per window, positions (y * width + x) ascending within each channel and
 * image.
 */
void PoolBiasReluBackwardSparse(const PoolShape& shape,
                                const float* outGrad,
                                const float* out,
                                const uint8_t* argmax,
                                SparseOutputGrad& inGrad,
                                float* biasGrad);

/**
 * PoolBiasReluBackward writing dLoss/din position-major, as DirectConvWeightGrad reads it:
 * for each image, row and column of `in` in order, `lanes` floats (one per channel, then
 * zeros). The same bias gradient.
 */
void PoolBiasReluBackwardChannelsLast(const PoolShape& shape,
                                      const float* outGrad,
                                      const float* out,
                                      const uint8_t* argmax,
                                      float* inGradT,
                                      size_t lanes,
                                      float* biasGrad);

} // namespace fedran

#endif
