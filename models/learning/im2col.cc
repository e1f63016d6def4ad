#include "models/learning/im2col.h"

#include <algorithm>

namespace fedran
{

namespace
{

/**
 * Output columns [lo, hi) of a row read input pixels lo + shift .. hi - 1 + shift, shift being
 * kx - padding; the others fall in the padding. Computed in signed arithmetic and clamped.
 */
struct ColumnRange
{
    size_t lo;
    size_t hi;
    long shift;
};

ColumnRange
ValidColumns(const ConvGeometry& g, uint32_t kx)
{
    const long shift = static_cast<long>(kx) - static_cast<long>(g.padding);
    const long outWidth = g.OutWidth();
    const long lo = std::clamp(-shift, 0L, outWidth);
    const long hi = std::clamp(static_cast<long>(g.width) - shift, lo, outWidth);
    return {static_cast<size_t>(lo), static_cast<size_t>(hi), shift};
}

} // namespace

void
Im2Col(const ConvGeometry& g,
       const float* const* samples,
       size_t n,
       size_t channelStride,
       float* cols)
{
    const size_t outHeight = g.OutHeight();
    const size_t outWidth = g.OutWidth();
    const size_t plane = g.OutPlane();
    const size_t rowLength = n * plane;
    for (uint32_t c = 0; c < g.inChannels; ++c)
    {
        for (uint32_t ky = 0; ky < g.kernel; ++ky)
        {
            for (uint32_t kx = 0; kx < g.kernel; ++kx)
            {
                const ColumnRange range = ValidColumns(g, kx);
                float* dst = cols + ((size_t{c} * g.kernel + ky) * g.kernel + kx) * rowLength;
                for (size_t s = 0; s < n; ++s)
                {
                    const float* image = samples[s] + c * channelStride;
                    for (size_t oy = 0; oy < outHeight; ++oy, dst += outWidth)
                    {
                        const long iy = static_cast<long>(oy + ky) - static_cast<long>(g.padding);
                        if (iy < 0 || iy >= static_cast<long>(g.height))
                        {
                            std::fill(dst, dst + outWidth, 0.0f);
                            continue;
                        }
                        // Rows are a few dozen floats: plain loops beat memcpy/memset calls.
                        const float* src = image + static_cast<size_t>(iy) * g.width +
                                           (static_cast<long>(range.lo) + range.shift);
                        for (size_t ox = 0; ox < range.lo; ++ox)
                        {
                            dst[ox] = 0.0f;
                        }
                        for (size_t j = 0; j < range.hi - range.lo; ++j)
                        {
                            dst[range.lo + j] = src[j];
                        }
                        for (size_t ox = range.hi; ox < outWidth; ++ox)
                        {
                            dst[ox] = 0.0f;
                        }
                    }
                }
            }
        }
    }
}

void
Col2Im(const ConvGeometry& g, const float* cols, size_t n, float* image)
{
    const size_t outHeight = g.OutHeight();
    const size_t outWidth = g.OutWidth();
    const size_t inPlane = size_t{g.height} * g.width;
    std::fill(image, image + size_t{g.inChannels} * n * inPlane, 0.0f);
    for (uint32_t c = 0; c < g.inChannels; ++c)
    {
        for (uint32_t ky = 0; ky < g.kernel; ++ky)
        {
            for (uint32_t kx = 0; kx < g.kernel; ++kx)
            {
                const ColumnRange range = ValidColumns(g, kx);
                const float* src =
                    cols + ((size_t{c} * g.kernel + ky) * g.kernel + kx) * n * g.OutPlane();
                for (size_t s = 0; s < n; ++s)
                {
                    float* channel = image + (size_t{c} * n + s) * inPlane;
                    for (size_t oy = 0; oy < outHeight; ++oy, src += outWidth)
                    {
                        const long iy = static_cast<long>(oy + ky) - static_cast<long>(g.padding);
                        if (iy < 0 || iy >= static_cast<long>(g.height))
                        {
                            continue;
                        }
                        // Input pixel of output column lo; lo >= -shift keeps it in the row.
                        float* dst = channel + static_cast<size_t>(iy) * g.width +
                                     static_cast<size_t>(static_cast<long>(range.lo) + range.shift);
                        for (size_t j = 0; j < range.hi - range.lo; ++j)
                        {
                            dst[j] += src[range.lo + j];
                        }
                    }
                }
            }
        }
    }
}

} // namespace fedran
