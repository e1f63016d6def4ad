#include "models/learning/im2col.h"

#include <algorithm>
#include <cstring>

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

typedef float Float4 __attribute__((vector_size(4 * sizeof(float))));

inline Float4
Load4(const float* p)
{
    Float4 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

/// dst[0..length) = src[0..length). Rows are a few dozen floats, where memcpy calls and plain
/// loops cost more than the copy: four floats at a time, the last four overlapping.
inline void
CopyRow(float* dst, const float* src, size_t length)
{
    if (length < 4)
    {
        for (size_t j = 0; j < length; ++j)
        {
            dst[j] = src[j];
        }
        return;
    }
    for (size_t j = 0; j + 4 < length; j += 4)
    {
        std::memcpy(dst + j, src + j, 4 * sizeof(float));
    }
    std::memcpy(dst + length - 4, src + length - 4, 4 * sizeof(float));
}

/// dst[j] += src[j], j < length: four at a time, then one by one (each sum is one addition,
/// so the bits do not depend on the grouping).
inline void
AddRow(float* dst, const float* src, size_t length)
{
    size_t j = 0;
    for (; j + 4 <= length; j += 4)
    {
        const Float4 sum = Load4(dst + j) + Load4(src + j);
        std::memcpy(dst + j, &sum, sizeof sum);
    }
    for (; j < length; ++j)
    {
        dst[j] += src[j];
    }
}

} // namespace

void
Im2Col(const ConvGeometry& g,
       const float* const* samples,
       size_t n,
       size_t channelStride,
       float* cols,
       size_t ldCols)
{
    const size_t outHeight = g.OutHeight();
    const size_t outWidth = g.OutWidth();
    for (uint32_t c = 0; c < g.inChannels; ++c)
    {
        for (uint32_t ky = 0; ky < g.kernel; ++ky)
        {
            for (uint32_t kx = 0; kx < g.kernel; ++kx)
            {
                const ColumnRange range = ValidColumns(g, kx);
                float* dst = cols + ((size_t{c} * g.kernel + ky) * g.kernel + kx) * ldCols;
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
                        const float* src = image + static_cast<size_t>(iy) * g.width +
                                           (static_cast<long>(range.lo) + range.shift);
                        for (size_t ox = 0; ox < range.lo; ++ox)
                        {
                            dst[ox] = 0.0f;
                        }
                        CopyRow(dst + range.lo, src, range.hi - range.lo);
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
Col2Im(const ConvGeometry& g, const float* cols, size_t n, size_t channelStride, float* image)
{
    const size_t outHeight = g.OutHeight();
    const size_t outWidth = g.OutWidth();
    const size_t inPlane = size_t{g.height} * g.width;
    for (uint32_t c = 0; c < g.inChannels; ++c)
    {
        std::fill_n(image + c * channelStride, n * inPlane, 0.0f);
    }
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
                    float* channel = image + c * channelStride + s * inPlane;
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
                        AddRow(dst, src + range.lo, range.hi - range.lo);
                    }
                }
            }
        }
    }
}

} // namespace fedran
