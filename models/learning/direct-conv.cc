#include "models/learning/direct-conv.h"

#include "models/learning/conv-kernels.h"
#include "models/learning/scratch.h"

#include <algorithm>

namespace fedran
{

namespace
{

/// The operands for `channels` output channels over the padded input and tap offsets in
/// `scratch` (Prepare has filled them); `out` is the kernel's output or gradient.
gemm::DirectConvOperands
Operands(const ConvGeometry& g,
         size_t n,
         size_t channels,
         const float* weight,
         float* out,
         const DirectConvScratch& scratch)
{
    const size_t paddedWidth = g.width + 2 * size_t{g.padding};
    gemm::DirectConvOperands o;
    o.channels = channels;
    o.channelLanes = DirectConvChannelLanes(channels);
    o.patch = g.PatchSize();
    o.columns = n * g.OutPlane();
    o.outWidth = g.OutWidth();
    o.outPlane = g.OutPlane();
    o.paddedWidth = paddedWidth;
    o.imageFloats = g.inChannels * (g.height + 2 * size_t{g.padding}) * paddedWidth;
    o.paddedInput = scratch.input.data();
    o.outHeight = g.OutHeight();
    o.weight = weight;
    o.weightT = scratch.weight.data();
    o.tapOffset = scratch.tapOffset.data();
    o.out = out;
    return o;
}

void
RunWeightGrad(gemm::DirectWeightGradKernel kernel,
              const ConvGeometry& g,
              size_t n,
              size_t channels,
              const float* outGradT,
              float* weightGrad,
              bool accumulate,
              DirectConvScratch& scratch)
{
    const size_t patch = g.PatchSize();
    const size_t lanes = DirectConvChannelLanes(channels);
    float* gradT = GrowScratch(scratch.weightGradT, patch * lanes);
    std::fill_n(gradT, patch * lanes, 0.0f);
    if (accumulate)
    {
        for (size_t c = 0; c < channels; ++c)
        {
            for (size_t q = 0; q < patch; ++q)
            {
                gradT[q * lanes + c] = weightGrad[c * patch + q];
            }
        }
    }
    gemm::DirectConvOperands o = Operands(g, n, channels, nullptr, nullptr, scratch);
    o.outGradT = outGradT;
    kernel(o, gradT);
    for (size_t c = 0; c < channels; ++c)
    {
        for (size_t q = 0; q < patch; ++q)
        {
            weightGrad[c * patch + q] = gradT[q * lanes + c];
        }
    }
}

void
Run(gemm::DirectConvKernel kernel,
    const ConvGeometry& g,
    const float* const* samples,
    size_t n,
    size_t channelStride,
    const float* weight,
    size_t channels,
    float* out,
    DirectConvScratch& scratch)
{
    const size_t inChannels = g.inChannels;
    const size_t k = g.kernel;
    const size_t height = g.height;
    const size_t width = g.width;
    const size_t paddedHeight = height + 2 * size_t{g.padding};
    const size_t paddedWidth = width + 2 * size_t{g.padding};
    const size_t paddedPlane = paddedHeight * paddedWidth;
    const size_t imageFloats = inChannels * paddedPlane;
    const size_t patch = g.PatchSize();
    const size_t lanes =
        (channels + gemm::kChannelBlock - 1) / gemm::kChannelBlock * gemm::kChannelBlock;

    float* in = GrowScratch(scratch.input, n * imageFloats);
    if (g.padding > 0)
    {
        std::fill_n(in, n * imageFloats, 0.0f);
    }
    for (size_t s = 0; s < n; ++s)
    {
        for (size_t c = 0; c < inChannels; ++c)
        {
            const float* plane = samples[s] + c * channelStride;
            float* to = in + s * imageFloats + c * paddedPlane + size_t{g.padding} * paddedWidth +
                        g.padding;
            for (size_t y = 0; y < height; ++y)
            {
                std::copy_n(plane + y * width, width, to + y * paddedWidth);
            }
        }
    }
    float* w = GrowScratch(scratch.weight, patch * lanes);
    std::fill_n(w, patch * lanes, 0.0f);
    for (size_t c = 0; c < channels; ++c)
    {
        for (size_t q = 0; q < patch; ++q)
        {
            w[q * lanes + c] = weight[c * patch + q];
        }
    }
    uint32_t* offset = GrowScratch(scratch.tapOffset, patch);
    for (size_t q = 0; q < patch; ++q)
    {
        const size_t c = q / (k * k);
        const size_t ky = q / k % k;
        const size_t kx = q % k;
        offset[q] = static_cast<uint32_t>(c * paddedPlane + ky * paddedWidth + kx);
    }

    const gemm::DirectConvOperands o = Operands(g, n, channels, weight, out, scratch);
    kernel(o);
}

} // namespace

size_t
DirectConvChannelLanes(size_t channels)
{
    return gemm::PaddedChannels(channels);
}

void
DirectConvWeightGrad(const ConvGeometry& geometry,
                     size_t n,
                     size_t channels,
                     const float* outGradT,
                     float* weightGrad,
                     bool accumulate,
                     DirectConvScratch& scratch)
{
    DirectConvWeightGradOn(ActiveGemmIsa(),
                           geometry,
                           n,
                           channels,
                           outGradT,
                           weightGrad,
                           accumulate,
                           scratch);
}

void
DirectConvWeightGradOn(GemmIsa isa,
                       const ConvGeometry& geometry,
                       size_t n,
                       size_t channels,
                       const float* outGradT,
                       float* weightGrad,
                       bool accumulate,
                       DirectConvScratch& scratch)
{
    RunWeightGrad(gemm::AvailableKernel(isa,
                                        "DirectConvWeightGradOn",
                                        FEDRAN_ISA_KERNEL_BUILDS(gemm::DirectWeightGrad)),
                  geometry,
                  n,
                  channels,
                  outGradT,
                  weightGrad,
                  accumulate,
                  scratch);
}

void
DirectConvForward(const ConvGeometry& geometry,
                  const float* const* samples,
                  size_t n,
                  size_t channelStride,
                  const float* weight,
                  size_t channels,
                  float* out,
                  DirectConvScratch& scratch)
{
    DirectConvForwardOn(ActiveGemmIsa(),
                        geometry,
                        samples,
                        n,
                        channelStride,
                        weight,
                        channels,
                        out,
                        scratch);
}

void
DirectConvForwardOn(GemmIsa isa,
                    const ConvGeometry& geometry,
                    const float* const* samples,
                    size_t n,
                    size_t channelStride,
                    const float* weight,
                    size_t channels,
                    float* out,
                    DirectConvScratch& scratch)
{
    Run(gemm::AvailableKernel(isa,
                              "DirectConvForwardOn",
                              FEDRAN_ISA_KERNEL_BUILDS(gemm::DirectConv)),
        geometry,
        samples,
        n,
        channelStride,
        weight,
        channels,
        out,
        scratch);
}

} // namespace fedran
