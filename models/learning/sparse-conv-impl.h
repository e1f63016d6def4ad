// The body of one sparse convolution kernel (conv-kernels.h), included by exactly one .cc
// file per instruction set (conv-kernels-*.cc). The including file defines
// FEDRAN_SPARSE_CONV_FUNCTION (the function's name) and FEDRAN_GEMM_LANES (floats in one vector
// register), and is compiled with -ffp-contract=off (models/learning/CMakeLists.txt). Vectors run
// across input channels only, so every lane is one element's own chain of fused multiply-adds
// (fma-vector-impl.h) and the bits do not depend on the vector width; the order of each chain is
// sparse-conv.h's.

#ifndef FEDRAN_SPARSE_CONV_FUNCTION
#    error "define FEDRAN_SPARSE_CONV_FUNCTION before including sparse-conv-impl.h"
#endif

#include "models/learning/conv-kernels.h"
#include "models/learning/fma-vector-impl.h"

#include <algorithm>
#include <cstring>

namespace fedran::gemm
{

namespace
{

static_assert(kChannelBlock % kLanes == 0);

/// Channel c's weight gradient for input channels [lane, lane + kLanes) and kernel rows
/// [row, row + R): each element one chain over the channel's entries, images and positions
/// ascending, starting from what weightGrad holds. K is the kernel size.
template<size_t K, size_t R>
void
WeightGradPass(const SparseConvOperands& o, size_t c, size_t lane, size_t row, float* weightGrad)
{
    const size_t paddedWidth = o.width + 2 * o.padding;
    const size_t paddedPlane = (o.height + 2 * o.padding) * paddedWidth;
    float* out = weightGrad + c * K * K * o.inLanes + lane;
    Vec acc[R][K];
#pragma GCC unroll 32
    for (size_t r = 0; r < R; ++r)
    {
#pragma GCC unroll 32
        for (size_t kx = 0; kx < K; ++kx)
        {
            acc[r][kx] = LoadVec(out + ((row + r) * K + kx) * o.inLanes);
        }
    }
    for (size_t s = 0; s < o.n; ++s)
    {
        const size_t list = c * o.n + s;
        const uint32_t* position = o.position + list * o.slots;
        const float* value = o.value + list * o.slots;
        const float* image = o.paddedInput + s * paddedPlane * o.inLanes + lane;
        for (size_t j = 0, count = o.count[list]; j < count; ++j)
        {
            const size_t y = position[j] / o.outWidth;
            const size_t x = position[j] % o.outWidth;
            const float g = value[j];
            const float* patch = image + ((y + row) * paddedWidth + x) * o.inLanes;
#pragma GCC unroll 32
            for (size_t r = 0; r < R; ++r)
            {
#pragma GCC unroll 32
                for (size_t kx = 0; kx < K; ++kx)
                {
                    acc[r][kx] =
                        FusedMultiplyAdd(LoadVec(patch + (r * paddedWidth + kx) * o.inLanes),
                                         g,
                                         acc[r][kx]);
                }
            }
        }
    }
#pragma GCC unroll 32
    for (size_t r = 0; r < R; ++r)
    {
#pragma GCC unroll 32
        for (size_t kx = 0; kx < K; ++kx)
        {
            StoreVec(out + ((row + r) * K + kx) * o.inLanes, acc[r][kx]);
        }
    }
}

/// The weight gradient for a kernel size known at compile time: as many kernel rows per pass
/// over the entries as the accumulators allow.
template<size_t K>
void
WeightGradFixed(const SparseConvOperands& o, float* weightGrad)
{
    constexpr size_t kRows =
        K * K <= kAccumulators ? K : (kAccumulators / K > 0 ? kAccumulators / K : 1);
    for (size_t c = 0; c < o.channels; ++c)
    {
        for (size_t lane = 0; lane < o.inLanes; lane += kLanes)
        {
            size_t row = 0;
            for (; row + kRows <= K; row += kRows)
            {
                WeightGradPass<K, kRows>(o, c, lane, row, weightGrad);
            }
            for (; row < K; ++row)
            {
                WeightGradPass<K, 1>(o, c, lane, row, weightGrad);
            }
        }
    }
}

/// The weight gradient for any kernel size, the accumulators in memory: the same chains.
void
WeightGradAnySize(const SparseConvOperands& o, float* weightGrad)
{
    const size_t k = o.kernel;
    const size_t paddedWidth = o.width + 2 * o.padding;
    const size_t paddedPlane = (o.height + 2 * o.padding) * paddedWidth;
    for (size_t c = 0; c < o.channels; ++c)
    {
        float* out = weightGrad + c * k * k * o.inLanes;
        for (size_t s = 0; s < o.n; ++s)
        {
            const size_t list = c * o.n + s;
            const float* image = o.paddedInput + s * paddedPlane * o.inLanes;
            for (size_t j = 0, count = o.count[list]; j < count; ++j)
            {
                const size_t p = o.position[list * o.slots + j];
                const float g = o.value[list * o.slots + j];
                const float* patch =
                    image + ((p / o.outWidth) * paddedWidth + p % o.outWidth) * o.inLanes;
                for (size_t ky = 0; ky < k; ++ky)
                {
                    for (size_t kx = 0; kx < k; ++kx)
                    {
                        for (size_t lane = 0; lane < o.inLanes; lane += kLanes)
                        {
                            float* w = out + (ky * k + kx) * o.inLanes + lane;
                            StoreVec(
                                w,
                                FusedMultiplyAdd(
                                    LoadVec(patch + (ky * paddedWidth + kx) * o.inLanes + lane),
                                    g,
                                    LoadVec(w)));
                        }
                    }
                }
            }
        }
    }
}

/// Column entries for kernel taps [first, first + T) of one output position: each the chain
/// over the position's entries (channels ascending) of weight times gradient, from zero, as the
/// dense product W^T * outGrad forms them without the zero terms. A position without entries
/// gets zeros, as in the dense product.
template<size_t T>
inline void
ColumnTaps(const SparseConvOperands& o,
           uint32_t firstEntry,
           uint32_t lastEntry,
           size_t lane,
           size_t first,
           float* column)
{
    const size_t taps = o.kernel * o.kernel;
    Vec acc[T] = {};
    for (uint32_t e = firstEntry; e < lastEntry; ++e)
    {
        const float* w = o.weight + (o.entryChannel[e] * taps + first) * o.inLanes + lane;
        const float g = o.entryValue[e];
#pragma GCC unroll 32
        for (size_t t = 0; t < T; ++t)
        {
            acc[t] = FusedMultiplyAdd(LoadVec(w + t * o.inLanes), g, acc[t]);
        }
    }
#pragma GCC unroll 32
    for (size_t t = 0; t < T; ++t)
    {
        StoreVec(column + (first + t) * o.inLanes + lane, acc[t]);
    }
}

/// Every output position's column (taps x inLanes) for kernel size K: the taps in groups the
/// accumulator registers hold.
template<size_t K>
void
ColumnsFixed(const SparseConvOperands& o, const uint32_t* start, float* columns)
{
    constexpr size_t kTaps = K * K;
    constexpr size_t kGroup = kTaps < kAccumulators ? kTaps : kAccumulators;
    constexpr size_t kRest = kTaps % kGroup;
    const size_t plane = o.outHeight * o.outWidth;
    for (size_t p = 0; p < plane; ++p)
    {
        float* column = columns + p * kTaps * o.inLanes;
        for (size_t lane = 0; lane < o.inLanes; lane += kLanes)
        {
            size_t first = 0;
            for (; first + kGroup <= kTaps; first += kGroup)
            {
                ColumnTaps<kGroup>(o, start[p], start[p + 1], lane, first, column);
            }
            if constexpr (kRest > 0)
            {
                ColumnTaps<kRest>(o, start[p], start[p + 1], lane, first, column);
            }
        }
    }
}

/// The same for any kernel size, one tap at a time.
void
ColumnsAnySize(const SparseConvOperands& o, const uint32_t* start, float* columns)
{
    const size_t taps = o.kernel * o.kernel;
    const size_t plane = o.outHeight * o.outWidth;
    for (size_t p = 0; p < plane; ++p)
    {
        for (size_t lane = 0; lane < o.inLanes; lane += kLanes)
        {
            for (size_t t = 0; t < taps; ++t)
            {
                ColumnTaps<1>(o, start[p], start[p + 1], lane, t, columns + p * taps * o.inLanes);
            }
        }
    }
}

/// The input gradient, image by image: first each output position's column entries (the
/// dense product's dCols, ColumnTaps), then every pixel as the sum of the entries its kernel
/// taps read, taps in row order, as Col2Im adds them. Positions are visited tap by tap across
/// a row of pixels, so that the additions of neighbouring pixels overlap.
void
InputGrad(const SparseConvOperands& o, float* columns, float* inputGrad)
{
    const size_t k = o.kernel;
    const size_t taps = k * k;
    const size_t plane = o.outHeight * o.outWidth;
    for (size_t s = 0; s < o.n; ++s)
    {
        const uint32_t* start = o.start + s * (plane + 1);
        switch (k)
        {
            case 3:
                ColumnsFixed<3>(o, start, columns);
                break;
            case 5:
                ColumnsFixed<5>(o, start, columns);
                break;
            case 7:
                ColumnsFixed<7>(o, start, columns);
                break;
            default:
                ColumnsAnySize(o, start, columns);
                break;
        }
        float* image = inputGrad + s * o.height * o.width * o.inLanes;
        std::memset(image, 0, o.height * o.width * o.inLanes * sizeof(float));
        for (size_t iy = 0; iy < o.height; ++iy)
        {
            float* row = image + iy * o.width * o.inLanes;
            for (size_t ky = 0; ky < k; ++ky)
            {
                // Output row oy = iy + padding - ky must exist.
                if (iy + o.padding < ky || iy + o.padding - ky >= o.outHeight)
                {
                    continue;
                }
                const size_t oy = iy + o.padding - ky;
                for (size_t kx = 0; kx < k; ++kx)
                {
                    // Pixels whose output column ox = ix + padding - kx exists.
                    const size_t ixFirst = kx > o.padding ? kx - o.padding : 0;
                    const size_t ixEnd = std::min(o.width, o.outWidth + kx - o.padding);
                    const float* entry =
                        columns +
                        ((oy * o.outWidth + ixFirst + o.padding - kx) * taps + ky * k + kx) *
                            o.inLanes;
                    for (size_t ix = ixFirst; ix < ixEnd; ++ix, entry += taps * o.inLanes)
                    {
                        float* pixel = row + ix * o.inLanes;
                        for (size_t lane = 0; lane < o.inLanes; lane += kLanes)
                        {
                            StoreVec(pixel + lane, LoadVec(pixel + lane) + LoadVec(entry + lane));
                        }
                    }
                }
            }
        }
    }
}

} // namespace

void
FEDRAN_SPARSE_CONV_FUNCTION(const SparseConvOperands& o,
                            float* weightGrad,
                            float* inputGrad,
                            float* columns)
{
    switch (o.kernel)
    {
        case 3:
            WeightGradFixed<3>(o, weightGrad);
            break;
        case 5:
            WeightGradFixed<5>(o, weightGrad);
            break;
        case 7:
            WeightGradFixed<7>(o, weightGrad);
            break;
        default:
            WeightGradAnySize(o, weightGrad);
            break;
    }
    if (inputGrad != nullptr)
    {
        InputGrad(o, columns, inputGrad);
    }
}

} // namespace fedran::gemm
