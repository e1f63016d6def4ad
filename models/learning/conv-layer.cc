#include "models/learning/conv-layer.h"

#include "models/learning/gemm.h"
#include "models/learning/scratch.h"

#include <algorithm>

namespace fedran
{

namespace
{

/// Floats of one block's column matrix: well inside a core's L2 cache (1 MB and up on the
/// CPUs this runs on) with the products' other operands beside it.
constexpr size_t kBlockFloats = size_t{128} * 1024;

/// Images per block: as many as fit kBlockFloats, at least one.
size_t
BlockImages(const ConvGeometry& g)
{
    return std::max<size_t>(1, kBlockFloats / (g.PatchSize() * g.OutPlane()));
}

} // namespace

void
ConvForward(const ConvGeometry& g,
            const float* const* samples,
            size_t n,
            size_t channelStride,
            const float* weight,
            size_t channels,
            float* out,
            float* cols)
{
    const size_t plane = g.OutPlane();
    const size_t patch = g.PatchSize();
    const size_t columns = n * plane;
    const size_t block = BlockImages(g);
    for (size_t first = 0; first < n; first += block)
    {
        const size_t count = std::min(block, n - first);
        Im2Col(g, samples + first, count, channelStride, cols + first * plane, columns);
        Gemm(Op::kNone,
             Op::kNone,
             channels,
             count * plane,
             patch,
             weight,
             patch,
             cols + first * plane,
             columns,
             out + first * plane,
             columns);
    }
}

void
ConvBackward(const ConvGeometry& g,
             size_t n,
             const float* cols,
             const float* weight,
             size_t channels,
             const float* outGrad,
             float* weightGrad,
             bool accumulate,
             float* inputGrad,
             ConvScratch& scratch)
{
    const size_t plane = g.OutPlane();
    const size_t patch = g.PatchSize();
    const size_t columns = n * plane;

    // The weight gradient is computed transposed, gradT (patch x channels) = cols outGrad^T:
    // the product then packs the narrow outGrad instead of transposing the column matrix, and
    // reads the columns in place. Every element is the same chain of fused multiply-adds over
    // the positions in order as in outGrad cols^T (fma(x, y, z) == fma(y, x, z)).
    float* gradT = GrowScratch(scratch.gradT, patch * channels);
    if (accumulate)
    {
        for (size_t o = 0; o < channels; ++o)
        {
            for (size_t q = 0; q < patch; ++q)
            {
                gradT[q * channels + o] = weightGrad[o * patch + q];
            }
        }
    }
    Gemm(Op::kNone,
         Op::kTranspose,
         patch,
         channels,
         columns,
         cols,
         columns,
         outGrad,
         columns,
         gradT,
         channels,
         accumulate);
    for (size_t o = 0; o < channels; ++o)
    {
        for (size_t q = 0; q < patch; ++q)
        {
            weightGrad[o * patch + q] = gradT[q * channels + o];
        }
    }
    if (inputGrad == nullptr)
    {
        return;
    }

    // dCols = W^T dOut a block at a time, folded back onto the block's images while in cache.
    const size_t block = BlockImages(g);
    float* colsGrad = GrowScratch(scratch.colsGrad, patch * std::min(block, n) * plane);
    const size_t inPlane = size_t{g.height} * g.width;
    for (size_t first = 0; first < n; first += block)
    {
        const size_t count = std::min(block, n - first);
        const size_t width = count * plane;
        Gemm(Op::kTranspose,
             Op::kNone,
             patch,
             width,
             channels,
             weight,
             patch,
             outGrad + first * plane,
             columns,
             colsGrad,
             width);
        Col2Im(g, colsGrad, count, n * inPlane, inputGrad + first * inPlane);
    }
}

} // namespace fedran
