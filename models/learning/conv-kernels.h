#ifndef FEDRAN_MODELS_LEARNING_CONV_KERNELS_H
#define FEDRAN_MODELS_LEARNING_CONV_KERNELS_H

// The per-instruction-set convolution kernels behind DirectConvForward (direct-conv.h) and
// SparseConvBackward (sparse-conv.h), for direct-conv.cc's and sparse-conv.cc's dispatch;
// their bodies are direct-conv-impl.h and sparse-conv-impl.h, compiled once per instruction
// set in conv-kernels-*.cc.

#include "models/learning/isa-kernels.h"

#include <cstddef>
#include <cstdint>

namespace fedran::gemm
{

/// Input channels are padded to a multiple of this in the channels-last buffers, so that one
/// layout serves vectors of 4, 8 and 16 floats.
constexpr size_t kChannelBlock = 16;

/// `channels` rounded up to a multiple of kChannelBlock.
constexpr size_t
PaddedChannels(size_t channels)
{
    return (channels + kChannelBlock - 1) / kChannelBlock * kChannelBlock;
}

/// The operands, channels last, as sparse-conv.cc lays them out.
struct SparseConvOperands
{
    size_t channels = 0; ///< output channels
    size_t n = 0;        ///< images
    size_t inLanes = 0;  ///< input channels, padded to kChannelBlock
    size_t kernel = 0;
    size_t height = 0; ///< input height, without padding
    size_t width = 0;
    size_t padding = 0;
    size_t outHeight = 0;
    size_t outWidth = 0;
    /// n x (height + 2 padding) x (width + 2 padding) x inLanes; zeros in the border and in
    /// the padded channels.
    const float* paddedInput = nullptr;
    /// channels x kernel x kernel x inLanes.
    const float* weight = nullptr;
    /// The gradient by (channel, image), positions ascending (SparseOutputGrad).
    const uint16_t* count = nullptr;
    const uint32_t* position = nullptr;
    const float* value = nullptr;
    size_t slots = 0;
    /// The same entries by (image, position), channels ascending: those of image s at
    /// position p are start[s * (outHeight * outWidth + 1) + p] up to the next start.
    const uint32_t* start = nullptr;
    const uint32_t* entryChannel = nullptr;
    const float* entryValue = nullptr;
};

/// weightGrad (channels x kernel x kernel x inLanes) accumulates the weight gradient onto
/// what it holds; unless inputGrad is null, it receives the input gradient (n x height x
/// width x inLanes), and `columns` (outHeight x outWidth x kernel x kernel x inLanes) is the
/// scratch for one image's column-matrix gradient.
using SparseConvKernelFunction = void(const SparseConvOperands& operands,
                                      float* weightGrad,
                                      float* inputGrad,
                                      float* columns);
using SparseConvKernel = SparseConvKernelFunction*;

/// The operands of the direct (column-free) forward kernel, as direct-conv.cc lays them out.
struct DirectConvOperands
{
    size_t channels = 0;     ///< output channels
    size_t channelLanes = 0; ///< output channels, padded to kChannelBlock
    size_t patch = 0;        ///< input channels x kernel x kernel
    size_t columns = 0;      ///< images x output positions
    size_t outWidth = 0;
    size_t outPlane = 0;    ///< output positions per image
    size_t paddedWidth = 0; ///< input width with the padding on both sides
    size_t imageFloats = 0; ///< one padded image: input channels x padded height x padded width
    /// n x inChannels x (height + 2 padding) x (width + 2 padding), zeros in the border.
    const float* paddedInput = nullptr;
    size_t outHeight = 0;
    /// channels x patch: the weights as the model holds them.
    const float* weight = nullptr;
    /// patch x channelLanes: the weights transposed, zeros in the padded channels.
    const float* weightT = nullptr;
    /// Per patch row (input channel, kernel row, kernel column): its offset in a padded image
    /// from the output position's top-left input pixel.
    const uint32_t* tapOffset = nullptr;
    /// channels x columns, row-major: the convolution's output (the forward kernel).
    float* out = nullptr;
    /// columns x channelLanes: dLoss/dout position-major (the weight-gradient kernel).
    const float* outGradT = nullptr;
};

using DirectConvKernelFunction = void(const DirectConvOperands& operands);
using DirectConvKernel = DirectConvKernelFunction*;

/// The weight gradient from the same operands and outGradT (zeros in the padded channels):
/// weightGradT (patch x channelLanes)
/// accumulates, over the positions in order, the products of each patch entry with the
/// position's gradient.
using DirectWeightGradKernelFunction = void(const DirectConvOperands& operands, float* weightGradT);
using DirectWeightGradKernel = DirectWeightGradKernelFunction*;

DirectConvKernelFunction DirectConvGeneric;
DirectWeightGradKernelFunction DirectWeightGradGeneric;
#ifdef FEDRAN_GEMM_X86_KERNELS
DirectConvKernelFunction DirectConvAvx2;
DirectConvKernelFunction DirectConvAvx512;
DirectWeightGradKernelFunction DirectWeightGradAvx2;
DirectWeightGradKernelFunction DirectWeightGradAvx512;
#endif

SparseConvKernelFunction SparseConvGeneric;
#ifdef FEDRAN_GEMM_X86_KERNELS
SparseConvKernelFunction SparseConvAvx2;
SparseConvKernelFunction SparseConvAvx512;
#endif

} // namespace fedran::gemm

#endif
