// The body of one direct convolution kernel (conv-kernels.h), included by exactly one .cc file
// per instruction set (conv-kernels-*.cc). The including file defines
// FEDRAN_DIRECT_CONV_FUNCTION and FEDRAN_GEMM_LANES and is compiled with -ffp-contract=off.
//
// Two register tilings, chosen by the output width; both read the column matrix's entry
// (q, position) straight from the padded input instead of a column matrix, and both form each
// output element as one chain of fused multiply-adds over q in increasing order, from zero,
// as the matrix product over the column matrix does (direct-conv.h):
// - rows at least a vector wide (the first convolution's 28): a vector of neighbouring
//   positions of one output row by M output channels, the weights broadcast;
// - narrower rows (the second convolution's 10): T positions by G vectors of output channels,
//   the input pixels broadcast and the transposed weights loaded.

#ifndef FEDRAN_DIRECT_CONV_FUNCTION
#    error "define FEDRAN_DIRECT_CONV_FUNCTION before including direct-conv-impl.h"
#endif

#include "models/learning/conv-kernels.h"
#include "models/learning/fma-vector-impl.h"

#include <algorithm>

namespace fedran::gemm
{

namespace
{

/// Output positions [first, first + T) (counted across the batch) for the channel vectors
/// [vector, vector + G).
template<size_t T, size_t G>
inline void
DirectTile(const DirectConvOperands& o, size_t first, size_t vector)
{
    const float* pixel[T];
#pragma GCC unroll 32
    for (size_t i = 0; i < T; ++i)
    {
        const size_t column = first + i;
        const size_t image = column / o.outPlane;
        const size_t position = column % o.outPlane;
        pixel[i] = o.paddedInput + image * o.imageFloats + (position / o.outWidth) * o.paddedWidth +
                   position % o.outWidth;
    }
    Vec acc[T][G] = {};
    const float* weight = o.weightT + vector * kLanes;
    for (size_t q = 0; q < o.patch; ++q, weight += o.channelLanes)
    {
        const uint32_t offset = o.tapOffset[q];
        Vec w[G];
#pragma GCC unroll 32
        for (size_t g = 0; g < G; ++g)
        {
            w[g] = LoadVec(weight + g * kLanes);
        }
#pragma GCC unroll 32
        for (size_t i = 0; i < T; ++i)
        {
            const float x = pixel[i][offset];
#pragma GCC unroll 32
            for (size_t g = 0; g < G; ++g)
            {
                acc[i][g] = FusedMultiplyAdd(w[g], x, acc[i][g]);
            }
        }
    }
#pragma GCC unroll 32
    for (size_t g = 0; g < G; ++g)
    {
        float lanes[T][kLanes];
#pragma GCC unroll 32
        for (size_t i = 0; i < T; ++i)
        {
            StoreVec(lanes[i], acc[i][g]);
        }
        const size_t firstChannel = (vector + g) * kLanes;
        const size_t count = std::min(kLanes, o.channels - std::min(o.channels, firstChannel));
        for (size_t l = 0; l < count; ++l)
        {
            float* out = o.out + (firstChannel + l) * o.columns + first;
#pragma GCC unroll 32
            for (size_t i = 0; i < T; ++i)
            {
                out[i] = lanes[i][l];
            }
        }
    }
}

/// Every position for channel vectors [vector, vector + G): tiles of T, then one at a time.
template<size_t G>
void
DirectChannels(const DirectConvOperands& o, size_t vector)
{
    constexpr size_t kTile = kAccumulators / G;
    size_t first = 0;
    for (; first + kTile <= o.columns; first += kTile)
    {
        DirectTile<kTile, G>(o, first, vector);
    }
    for (; first < o.columns; ++first)
    {
        DirectTile<1, G>(o, first, vector);
    }
}

/// Output channels [firstChannel, firstChannel + M) at the kLanes positions of output row
/// `row` (counted across the batch) from column x.
template<size_t M>
inline void
RowTile(const DirectConvOperands& o, size_t row, size_t x, size_t firstChannel)
{
    const size_t image = row / o.outHeight;
    const size_t y = row % o.outHeight;
    const float* pixels = o.paddedInput + image * o.imageFloats + y * o.paddedWidth + x;
    const float* weight = o.weight + firstChannel * o.patch;
    Vec acc[M] = {};
    for (size_t q = 0; q < o.patch; ++q)
    {
        const Vec in = LoadVec(pixels + o.tapOffset[q]);
#pragma GCC unroll 32
        for (size_t m = 0; m < M; ++m)
        {
            acc[m] = FusedMultiplyAdd(in, weight[m * o.patch + q], acc[m]);
        }
    }
    float* out = o.out + firstChannel * o.columns + image * o.outPlane + y * o.outWidth + x;
#pragma GCC unroll 32
    for (size_t m = 0; m < M; ++m)
    {
        StoreVec(out + m * o.columns, acc[m]);
    }
}

/// Every output row in vectors of positions; the last vector of a row overlaps the one before
/// when the width is not a multiple of kLanes (its elements are computed twice, to the same
/// bits).
void
DirectRows(const DirectConvOperands& o)
{
    constexpr size_t kChannels = kLanes == 16 ? 16 : 8;
    const size_t rows = o.columns / o.outWidth;
    for (size_t row = 0; row < rows; ++row)
    {
        for (size_t start = 0; start < o.outWidth; start += kLanes)
        {
            const size_t x = std::min(start, o.outWidth - kLanes);
            size_t c = 0;
            for (; c + kChannels <= o.channels; c += kChannels)
            {
                RowTile<kChannels>(o, row, x, c);
            }
            for (; c < o.channels; ++c)
            {
                RowTile<1>(o, row, x, c);
            }
        }
    }
}

/// Patch rows [first, first + Q) of the weight gradient for output channels [vector * kLanes,
/// + kLanes): each element one chain over every position in order, as the product of the
/// column matrix with the transposed output gradient forms it.
template<size_t Q>
inline void
WeightGradRows(const DirectConvOperands& o, size_t first, size_t vector, float* weightGradT)
{
    Vec acc[Q];
#pragma GCC unroll 32
    for (size_t q = 0; q < Q; ++q)
    {
        acc[q] = LoadVec(weightGradT + (first + q) * o.channelLanes + vector * kLanes);
    }
    uint32_t offset[Q];
#pragma GCC unroll 32
    for (size_t q = 0; q < Q; ++q)
    {
        offset[q] = o.tapOffset[first + q];
    }
    const float* grad = o.outGradT + vector * kLanes;
    const size_t rows = o.columns / o.outWidth;
    for (size_t row = 0; row < rows; ++row)
    {
        const float* pixels = o.paddedInput + (row / o.outHeight) * o.imageFloats +
                              (row % o.outHeight) * o.paddedWidth;
        for (size_t x = 0; x < o.outWidth; ++x, grad += o.channelLanes)
        {
            const Vec g = LoadVec(grad);
#pragma GCC unroll 32
            for (size_t q = 0; q < Q; ++q)
            {
                acc[q] = FusedMultiplyAdd(g, pixels[x + offset[q]], acc[q]);
            }
        }
    }
#pragma GCC unroll 32
    for (size_t q = 0; q < Q; ++q)
    {
        StoreVec(weightGradT + (first + q) * o.channelLanes + vector * kLanes, acc[q]);
    }
}

} // namespace

void
FEDRAN_DIRECT_WEIGHT_GRAD_FUNCTION(const DirectConvOperands& o, float* weightGradT)
{
    constexpr size_t kRows = kAccumulators - 1;
    for (size_t vector = 0; vector < o.channelLanes / kLanes; ++vector)
    {
        size_t first = 0;
        for (; first + kRows <= o.patch; first += kRows)
        {
            WeightGradRows<kRows>(o, first, vector, weightGradT);
        }
        for (; first + 4 <= o.patch; first += 4)
        {
            WeightGradRows<4>(o, first, vector, weightGradT);
        }
        for (; first < o.patch; ++first)
        {
            WeightGradRows<1>(o, first, vector, weightGradT);
        }
    }
}

void
FEDRAN_DIRECT_CONV_FUNCTION(const DirectConvOperands& o)
{
    if (o.outWidth >= kLanes)
    {
        DirectRows(o);
        return;
    }
    const size_t vectors = o.channelLanes / kLanes;
    size_t vector = 0;
    for (; vector + 2 <= vectors; vector += 2)
    {
        DirectChannels<2>(o, vector);
    }
    if (vector < vectors)
    {
        DirectChannels<1>(o, vector);
    }
}

} // namespace fedran::gemm
