#ifndef FEDRAN_MODELS_LEARNING_CONV_LAYER_H
#define FEDRAN_MODELS_LEARNING_CONV_LAYER_H

// A convolution's forward and backward passes over a minibatch, as im2col + matrix products
// (im2col.h), a few images at a time. The CNN no longer runs these: they define the bits its
// column-free kernels must give (direct-conv.h, sparse-conv.h), and those kernels' tests
// compare against them on every instruction set.
//
// Why blocks of images: the column matrix of a whole minibatch is megabytes (the default CNN's
// second convolution: 400 x 3200 floats, 5 MB), so writing it, reading it in the product,
// reading it again for the weight gradient, writing its gradient and folding that back
// streamed it through memory five times a step. The forward pass now multiplies each block's
// columns while they are in the core's cache, and the backward pass forms and folds back a
// block's column gradient (a few hundred KB) in cache; only the weight gradient reads the
// whole matrix again.
//
// Blocking does not change any result's bits: an output or an input-gradient element depends
// on one image only, and the weight gradient is one product over every position.

#include "models/learning/im2col.h"

#include <cstddef>
#include <vector>

namespace fedran
{

/// Per-thread buffers of ConvBackward, grown on demand.
struct ConvScratch
{
    std::vector<float> colsGrad; ///< one block's column-matrix gradient
    std::vector<float> gradT;    ///< the weight gradient, transposed (patch x channels)
};

/**
 * out (channels x n*OutPlane(), row-major) = weight (channels x PatchSize()) * cols, for the n
 * images samples[0..n) laid out as Im2Col() reads them (channelStride apart). No bias. Leaves
 * the column matrix in cols (PatchSize() x n*OutPlane()) for ConvBackward.
 */
void ConvForward(const ConvGeometry& geometry,
                 const float* const* samples,
                 size_t n,
                 size_t channelStride,
                 const float* weight,
                 size_t channels,
                 float* out,
                 float* cols);

/**
 * Given the forward pass's cols and outGrad (dLoss/dout, channels x n*OutPlane()), writes the
 * weight gradient into weightGrad (channels x PatchSize(); added to it if `accumulate`) and,
 * unless inputGrad is null, dLoss/dinput into inputGrad (inChannels x n x height x width,
 * channel-major: the layout of an inner layer's input).
 */
void ConvBackward(const ConvGeometry& geometry,
                  size_t n,
                  const float* cols,
                  const float* weight,
                  size_t channels,
                  const float* outGrad,
                  float* weightGrad,
                  bool accumulate,
                  float* inputGrad,
                  ConvScratch& scratch);

} // namespace fedran

#endif
