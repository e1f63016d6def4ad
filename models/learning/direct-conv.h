#ifndef FEDRAN_MODELS_LEARNING_DIRECT_CONV_H
#define FEDRAN_MODELS_LEARNING_DIRECT_CONV_H

// A convolution's forward pass without the column matrix: ConvForward (conv-layer.h) writes
// Im2Col's copy of every patch and multiplies it, and for the default CNN writing that copy
// cost about as much as the product. Here a register tile of output positions by output
// channels reads each patch entry straight from a zero-padded copy of the input (a few hundred
// KB) and multiplies it by the transposed weights.
//
// The bits are ConvForward's: every output element is the same chain of fused multiply-adds
// over the patch rows in increasing order, from zero, with the same operands (the padding's
// zeros included); direct-conv-test checks it on every instruction set.

#include "models/learning/gemm.h"
#include "models/learning/im2col.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fedran
{

/// Per-thread buffers of DirectConvForward, grown on demand.
struct DirectConvScratch
{
    std::vector<float> input;  ///< the images, zero-padded, image by image
    std::vector<float> weight; ///< the weights transposed (patch x padded channels)
    std::vector<uint32_t> tapOffset;
    std::vector<float> weightGradT; ///< the weight gradient transposed (patch x padded channels)
};

/**
 * out (channels x n*OutPlane(), row-major) = weight (channels x PatchSize()) * the column
 * matrix Im2Col would write for the n images samples[0..n) (channel c of image s at
 * samples[s] + c * channelStride). No bias. Same bits as ConvForward.
 */
void DirectConvForward(const ConvGeometry& geometry,
                       const float* const* samples,
                       size_t n,
                       size_t channelStride,
                       const float* weight,
                       size_t channels,
                       float* out,
                       DirectConvScratch& scratch);

/// Output channels padded for the position-major gradient DirectConvWeightGrad reads.
size_t DirectConvChannelLanes(size_t channels);

/**
 * The weight gradient of the convolution that DirectConvForward last ran with `scratch` (same
 * geometry, images and channel count), from dLoss/dout position-major: outGradT holds, for
 * each output position of each image in order, DirectConvChannelLanes(channels) floats (the
 * channels' gradients, then zeros). Writes weightGrad (channels x PatchSize(); added to it if
 * `accumulate`). Same bits as ConvBackward's weight gradient: each element one chain of fused
 * multiply-adds over the positions in order.
 */
void DirectConvWeightGrad(const ConvGeometry& geometry,
                          size_t n,
                          size_t channels,
                          const float* outGradT,
                          float* weightGrad,
                          bool accumulate,
                          DirectConvScratch& scratch);

/// DirectConvWeightGrad on a given instruction set (tests).
void DirectConvWeightGradOn(GemmIsa isa,
                            const ConvGeometry& geometry,
                            size_t n,
                            size_t channels,
                            const float* outGradT,
                            float* weightGrad,
                            bool accumulate,
                            DirectConvScratch& scratch);

/// DirectConvForward on a given instruction set (tests and benchmarks). Throws
/// std::invalid_argument if it is not available.
void DirectConvForwardOn(GemmIsa isa,
                         const ConvGeometry& geometry,
                         const float* const* samples,
                         size_t n,
                         size_t channelStride,
                         const float* weight,
                         size_t channels,
                         float* out,
                         DirectConvScratch& scratch);

} // namespace fedran

#endif
