#ifndef FEDRAN_MODELS_LEARNING_SPARSE_CONV_H
#define FEDRAN_MODELS_LEARNING_SPARSE_CONV_H

// A convolution's backward pass for an output gradient that a 2x2 max-pool and a ReLU left
// sparse: at most one nonzero entry per pooling window, so three quarters or more are zeros
// (the default CNN's second convolution: 32 channels x 100 positions per image, at most 800
// nonzeros and, after the ReLU, about half that).
//
// Why not the matrix products: ConvBackward forms the weight gradient as cols * outGrad^T
// and the input gradient as W^T * outGrad folded back by Col2Im, multiplying every zero. Here
// each nonzero entry (channel c, image s, position p, value g) adds g times the input patch at p
// to channel c's weight gradient, and g times channel c's weights to the input-gradient
// entries of the patch, with vectors running across the input channels (laid out last).
//
// The bits are those of ConvBackward on the dense gradient: every element is the same chain
// of fused multiply-adds in the same order (positions ascending for the weight gradient;
// channels ascending inside a column, kernel taps in row order across columns for the input
// gradient), only without the terms whose gradient is zero. Skipping such a term changes
// nothing: fma(x, 0, a) == a for every a that is not -0, and no sum here starts from or
// becomes -0 short of an underflow of a product below 1e-45. sparse-conv-test checks it bit
// for bit against ConvBackward on every instruction set.

#include "models/learning/gemm.h"
#include "models/learning/im2col.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fedran
{

/**
 * dLoss/d(convolution output) with at most `slots` nonzero entries per (channel, image), as
 * PoolBiasReluBackwardSparse (max-pool.h) leaves it. Entry j of (channel c, image s) is at
 * index (c * n + s) * slots + j; the entries of one (c, s) are in increasing position order.
 */
struct SparseOutputGrad
{
    size_t channels = 0;
    size_t n = 0;
    size_t slots = 0;
    std::vector<uint16_t> count;    ///< per (channel, image): entries used
    std::vector<uint32_t> position; ///< output position y * OutWidth() + x
    std::vector<float> value;       ///< nonzero gradient

    /// Sizes the arrays for `channels` x `n` with `slots` each; counts start at zero.
    void Reset(size_t channels, size_t n, size_t slots);
};

/// Per-thread buffers of SparseConvBackward, grown on demand.
struct SparseConvScratch
{
    std::vector<float> input;      ///< the input, channels last, zero-padded
    std::vector<float> weight;     ///< the weights as channels x kernel x kernel x inChannels
    std::vector<float> weightGrad; ///< the weight gradient in the same layout
    std::vector<float> inputGrad;  ///< the input gradient, channels last
    std::vector<float> columns;    ///< one image's column-matrix gradient
    std::vector<uint32_t> start;   ///< per image and position: its first entry in `entry*`
    std::vector<uint32_t> entryChannel;
    std::vector<float> entryValue;
    std::vector<uint32_t> cursor; ///< where each position's next entry goes
};

/**
 * ConvBackward (conv-layer.h) for a sparse output gradient, reading the convolution's input
 * instead of its column matrix: image s's channel c at input + c * channelStride + s * height *
 * width. Writes the weight gradient into weightGrad (channels x PatchSize(); added to it if
 * `accumulate`) and, unless inputGrad is null, overwrites inputGrad (same layout as the input)
 * with dLoss/dinput. Same bits as ConvBackward given the dense gradient.
 */
void SparseConvBackward(const ConvGeometry& geometry,
                        const float* input,
                        size_t channelStride,
                        const float* weight,
                        const SparseOutputGrad& outGrad,
                        float* weightGrad,
                        bool accumulate,
                        float* inputGrad,
                        SparseConvScratch& scratch);

/// SparseConvBackward on a given instruction set (tests and benchmarks). Throws
/// std::invalid_argument if it is not available.
void SparseConvBackwardOn(GemmIsa isa,
                          const ConvGeometry& geometry,
                          const float* input,
                          size_t channelStride,
                          const float* weight,
                          const SparseOutputGrad& outGrad,
                          float* weightGrad,
                          bool accumulate,
                          float* inputGrad,
                          SparseConvScratch& scratch);

} // namespace fedran

#endif
