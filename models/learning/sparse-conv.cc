#include "models/learning/sparse-conv.h"

#include "models/learning/conv-kernels.h"
#include "models/learning/scratch.h"

#include <algorithm>

namespace fedran
{

namespace
{

/// The entries again, by image and output position, channels ascending within a position.
void
IndexByPosition(const SparseOutputGrad& grad, size_t plane, SparseConvScratch& scratch)
{
    const size_t stride = plane + 1;
    uint32_t* start = GrowScratch(scratch.start, grad.n * stride);
    std::fill_n(start, grad.n * stride, 0u);
    size_t total = 0;
    for (size_t list = 0; list < grad.channels * grad.n; ++list)
    {
        const size_t s = list % grad.n;
        for (size_t j = 0; j < grad.count[list]; ++j)
        {
            ++start[s * stride + grad.position[list * grad.slots + j] + 1];
        }
        total += grad.count[list];
    }
    // Prefix sums, continuing across images, so an image's entries follow the previous one's.
    uint32_t running = 0;
    for (size_t s = 0; s < grad.n; ++s)
    {
        uint32_t* row = start + s * stride;
        row[0] = running;
        for (size_t p = 1; p < stride; ++p)
        {
            running += row[p];
            row[p] = running;
        }
    }
    uint32_t* channel = GrowScratch(scratch.entryChannel, std::max<size_t>(total, 1));
    float* value = GrowScratch(scratch.entryValue, std::max<size_t>(total, 1));
    // Channel-major traversal fills each position's entries in ascending channel order; each
    // position's cursor starts at its start and advances as entries arrive.
    std::vector<uint32_t>& cursor = scratch.cursor;
    cursor.assign(start, start + grad.n * stride);
    for (size_t c = 0; c < grad.channels; ++c)
    {
        for (size_t s = 0; s < grad.n; ++s)
        {
            const size_t list = c * grad.n + s;
            for (size_t j = 0; j < grad.count[list]; ++j)
            {
                const size_t slot = list * grad.slots + j;
                const uint32_t e = cursor[s * stride + grad.position[slot]]++;
                channel[e] = static_cast<uint32_t>(c);
                value[e] = grad.value[slot];
            }
        }
    }
}

void
Run(gemm::SparseConvKernel kernel,
    const ConvGeometry& g,
    const float* input,
    size_t channelStride,
    const float* weight,
    const SparseOutputGrad& grad,
    float* weightGrad,
    bool accumulate,
    float* inputGrad,
    SparseConvScratch& scratch)
{
    const size_t inChannels = g.inChannels;
    const size_t lanes = gemm::PaddedChannels(inChannels);
    const size_t k = g.kernel;
    const size_t height = g.height;
    const size_t width = g.width;
    const size_t inPlane = height * width;
    const size_t paddedHeight = height + 2 * size_t{g.padding};
    const size_t paddedWidth = width + 2 * size_t{g.padding};
    const size_t channels = grad.channels;
    const size_t n = grad.n;
    const size_t taps = k * k;

    float* in = GrowScratch(scratch.input, n * paddedHeight * paddedWidth * lanes);
    std::fill_n(in, n * paddedHeight * paddedWidth * lanes, 0.0f);
    for (size_t s = 0; s < n; ++s)
    {
        for (size_t ci = 0; ci < inChannels; ++ci)
        {
            const float* plane = input + ci * channelStride + s * inPlane;
            for (size_t y = 0; y < height; ++y)
            {
                float* row =
                    in + ((s * paddedHeight + y + g.padding) * paddedWidth + g.padding) * lanes +
                    ci;
                for (size_t x = 0; x < width; ++x)
                {
                    row[x * lanes] = plane[y * width + x];
                }
            }
        }
    }
    float* w = GrowScratch(scratch.weight, channels * taps * lanes);
    float* wGrad = GrowScratch(scratch.weightGrad, channels * taps * lanes);
    std::fill_n(w, channels * taps * lanes, 0.0f);
    std::fill_n(wGrad, channels * taps * lanes, 0.0f);
    for (size_t c = 0; c < channels; ++c)
    {
        for (size_t ci = 0; ci < inChannels; ++ci)
        {
            for (size_t t = 0; t < taps; ++t)
            {
                const size_t from = (c * inChannels + ci) * taps + t;
                const size_t to = (c * taps + t) * lanes + ci;
                w[to] = weight[from];
                if (accumulate)
                {
                    wGrad[to] = weightGrad[from];
                }
            }
        }
    }

    gemm::SparseConvOperands o;
    o.channels = channels;
    o.n = n;
    o.inLanes = lanes;
    o.kernel = k;
    o.height = height;
    o.width = width;
    o.padding = g.padding;
    o.outHeight = g.OutHeight();
    o.outWidth = g.OutWidth();
    o.paddedInput = in;
    o.weight = w;
    o.count = grad.count.data();
    o.position = grad.position.data();
    o.value = grad.value.data();
    o.slots = grad.slots;
    float* inGrad = nullptr;
    float* columns = nullptr;
    if (inputGrad != nullptr)
    {
        IndexByPosition(grad, g.OutPlane(), scratch);
        o.start = scratch.start.data();
        o.entryChannel = scratch.entryChannel.data();
        o.entryValue = scratch.entryValue.data();
        inGrad = GrowScratch(scratch.inputGrad, n * inPlane * lanes);
        columns = GrowScratch(scratch.columns, g.OutPlane() * taps * lanes);
    }
    kernel(o, wGrad, inGrad, columns);

    for (size_t c = 0; c < channels; ++c)
    {
        for (size_t ci = 0; ci < inChannels; ++ci)
        {
            for (size_t t = 0; t < taps; ++t)
            {
                weightGrad[(c * inChannels + ci) * taps + t] = wGrad[(c * taps + t) * lanes + ci];
            }
        }
    }
    if (inputGrad == nullptr)
    {
        return;
    }
    for (size_t ci = 0; ci < inChannels; ++ci)
    {
        for (size_t s = 0; s < n; ++s)
        {
            float* plane = inputGrad + ci * channelStride + s * inPlane;
            const float* from = inGrad + s * inPlane * lanes + ci;
            for (size_t pixel = 0; pixel < inPlane; ++pixel)
            {
                plane[pixel] = from[pixel * lanes];
            }
        }
    }
}

} // namespace

void
SparseOutputGrad::Reset(size_t channelCount, size_t images, size_t slotCount)
{
    channels = channelCount;
    n = images;
    slots = slotCount;
    count.assign(channels * n, 0);
    GrowScratch(position, channels * n * slots);
    GrowScratch(value, channels * n * slots);
}

void
SparseConvBackward(const ConvGeometry& geometry,
                   const float* input,
                   size_t channelStride,
                   const float* weight,
                   const SparseOutputGrad& outGrad,
                   float* weightGrad,
                   bool accumulate,
                   float* inputGrad,
                   SparseConvScratch& scratch)
{
    SparseConvBackwardOn(ActiveGemmIsa(),
                         geometry,
                         input,
                         channelStride,
                         weight,
                         outGrad,
                         weightGrad,
                         accumulate,
                         inputGrad,
                         scratch);
}

void
SparseConvBackwardOn(GemmIsa isa,
                     const ConvGeometry& geometry,
                     const float* input,
                     size_t channelStride,
                     const float* weight,
                     const SparseOutputGrad& outGrad,
                     float* weightGrad,
                     bool accumulate,
                     float* inputGrad,
                     SparseConvScratch& scratch)
{
    Run(gemm::AvailableKernel(isa,
                              "SparseConvBackwardOn",
                              FEDRAN_ISA_KERNEL_BUILDS(gemm::SparseConv)),
        geometry,
        input,
        channelStride,
        weight,
        outGrad,
        weightGrad,
        accumulate,
        inputGrad,
        scratch);
}

} // namespace fedran
