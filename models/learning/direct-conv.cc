#include "models/learning/direct-conv.h"

#include "models/learning/conv-kernels.h"
#include "models/learning/scratch.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace fedran
{

namespace
{

gemm::DirectConvKernel
KernelOf(GemmIsa isa)
{
    switch (isa)
    {
        case GemmIsa::kGeneric:
            return &gemm::DirectConvGeneric;
#ifdef FEDRAN_GEMM_X86_KERNELS
        case GemmIsa::kAvx2:
            return &gemm::DirectConvAvx2;
        case GemmIsa::kAvx512:
            return &gemm::DirectConvAvx512;
#endif
        default:
            return nullptr;
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

    gemm::DirectConvOperands o;
    o.channels = channels;
    o.channelLanes = lanes;
    o.patch = patch;
    o.columns = n * g.OutPlane();
    o.outWidth = g.OutWidth();
    o.outPlane = g.OutPlane();
    o.paddedWidth = paddedWidth;
    o.imageFloats = imageFloats;
    o.paddedInput = in;
    o.outHeight = g.OutHeight();
    o.weight = weight;
    o.weightT = w;
    o.tapOffset = offset;
    o.out = out;
    kernel(o);
}

} // namespace

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
    Run(KernelOf(ActiveGemmIsa()),
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
    if (!GemmIsaAvailable(isa) || KernelOf(isa) == nullptr)
    {
        throw std::invalid_argument(std::string("DirectConvForwardOn: no ") + GemmIsaName(isa) +
                                    " kernel on this CPU or build");
    }
    Run(KernelOf(isa), geometry, samples, n, channelStride, weight, channels, out, scratch);
}

} // namespace fedran
