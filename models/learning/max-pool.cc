#include "models/learning/max-pool.h"

#include "models/learning/scratch.h"

#include <algorithm>
#include <cstring>
#include <vector>

#if defined(__SSE2__)
#    include <emmintrin.h>
#endif

namespace fedran
{

namespace
{

/// One window's forward step: the scalar form of the vector code below, for the last windows
/// of a row. Pairwise and branch-free (the winner is data-dependent, so branches mispredict).
/// std::max(x, y) is y > x ? y : x, which is what maxps(y, x) computes, NaNs included, so the
/// two forms give the same bits. A strict > keeps the first maximum in the order 0..3.
inline void
PoolWindow(const float* top, const float* bottom, float bias, float* out, uint8_t* argmax)
{
    const float a = top[0];
    const float b = top[1];
    const float c = bottom[0];
    const float d = bottom[1];
    const float upper = std::max(a, b); // a unless b > a
    const float lower = std::max(c, d);
    const int upperIndex = static_cast<int>(b > a);
    const int lowerIndex = 2 + static_cast<int>(d > c);
    const int lowerWins = static_cast<int>(lower > upper);
    *argmax = static_cast<uint8_t>(upperIndex + lowerWins * (lowerIndex - upperIndex));
    *out = std::max(std::max(upper, lower) + bias, 0.0f);
}

// Per-thread buffers of the backward passes below, so that a training step allocates nothing.
thread_local std::vector<uint32_t> t_pendingPosition;
thread_local std::vector<float> t_pendingValue;
thread_local std::vector<float> t_sums;

/// The window's gradient where the ReLU was on (out > 0), zero elsewhere: a bit mask rather than
/// a branch, which the data-dependent condition would mispredict.
inline float
ReluGate(float out, float grad)
{
    const uint32_t mask = 0u - static_cast<uint32_t>(out > 0.0f);
    uint32_t bits;
    std::memcpy(&bits, &grad, sizeof bits);
    bits &= mask;
    float gated;
    std::memcpy(&gated, &bits, sizeof gated);
    return gated;
}

} // namespace

void
PoolBiasReluForward(const PoolShape& shape,
                    const float* in,
                    const float* biases,
                    float* out,
                    uint8_t* argmax)
{
    const size_t outHeight = shape.OutHeight();
    const size_t outWidth = shape.OutWidth();
    const size_t inPlane = size_t{shape.height} * shape.width;
    for (size_t c = 0; c < shape.channels; ++c)
    {
        const float bias = biases[c];
#if defined(__SSE2__)
        const __m128 biasVec = _mm_set1_ps(bias);
        const __m128i two = _mm_set1_epi32(2);
#endif
        for (size_t s = 0; s < shape.n; ++s)
        {
            const float* plane = in + (c * shape.n + s) * inPlane;
            for (size_t py = 0; py < outHeight; ++py)
            {
                const float* top = plane + 2 * py * shape.width;
                const float* bottom = top + shape.width;
                size_t px = 0;
#if defined(__SSE2__)
                // Four windows at a time: eight floats of each row, split into the windows'
                // left (even) and right (odd) inputs. Only exact operations (max, compare, one
                // addition), so the bits are those of the scalar form.
                for (; px + 4 <= outWidth; px += 4, out += 4, argmax += 4)
                {
                    const __m128 t0 = _mm_loadu_ps(top + 2 * px);
                    const __m128 t1 = _mm_loadu_ps(top + 2 * px + 4);
                    const __m128 b0 = _mm_loadu_ps(bottom + 2 * px);
                    const __m128 b1 = _mm_loadu_ps(bottom + 2 * px + 4);
                    const __m128 a = _mm_shuffle_ps(t0, t1, _MM_SHUFFLE(2, 0, 2, 0));
                    const __m128 b = _mm_shuffle_ps(t0, t1, _MM_SHUFFLE(3, 1, 3, 1));
                    const __m128 cc = _mm_shuffle_ps(b0, b1, _MM_SHUFFLE(2, 0, 2, 0));
                    const __m128 d = _mm_shuffle_ps(b0, b1, _MM_SHUFFLE(3, 1, 3, 1));
                    const __m128 upper = _mm_max_ps(b, a);
                    const __m128 lower = _mm_max_ps(d, cc);
                    // Masks are all ones (-1) where true.
                    const __m128i upperIndex =
                        _mm_sub_epi32(_mm_setzero_si128(), _mm_castps_si128(_mm_cmpgt_ps(b, a)));
                    const __m128i lowerIndex =
                        _mm_sub_epi32(two, _mm_castps_si128(_mm_cmpgt_ps(d, cc)));
                    const __m128i lowerWins = _mm_castps_si128(_mm_cmpgt_ps(lower, upper));
                    const __m128i index = _mm_or_si128(_mm_and_si128(lowerWins, lowerIndex),
                                                       _mm_andnot_si128(lowerWins, upperIndex));
                    const __m128i bytes =
                        _mm_packus_epi16(_mm_packs_epi32(index, index), _mm_setzero_si128());
                    const int packed = _mm_cvtsi128_si32(bytes);
                    std::memcpy(argmax, &packed, 4);
                    const __m128 best = _mm_add_ps(_mm_max_ps(lower, upper), biasVec);
                    _mm_storeu_ps(out, _mm_max_ps(_mm_setzero_ps(), best));
                }
#endif
                for (; px < outWidth; ++px)
                {
                    PoolWindow(top + 2 * px, bottom + 2 * px, bias, out++, argmax++);
                }
            }
        }
    }
}

void
PoolBiasReluBackward(const PoolShape& shape,
                     const float* outGrad,
                     const float* out,
                     const uint8_t* argmax,
                     float* inGrad,
                     float* biasGrad)
{
    const size_t outHeight = shape.OutHeight();
    const size_t outWidth = shape.OutWidth();
    const size_t inPlane = size_t{shape.height} * shape.width;
    // Every window writes its four inputs (the gradient at its maximum, zero elsewhere); only
    // a dropped odd row or column needs clearing beforehand.
    const bool dropped = shape.height % 2 != 0 || shape.width % 2 != 0;
    for (size_t c = 0; c < shape.channels; ++c)
    {
        // The bias gradient sums the windows one by one in order (the bits depend on it).
        float sum = 0.0f;
        for (size_t s = 0; s < shape.n; ++s)
        {
            float* plane = inGrad + (c * shape.n + s) * inPlane;
            if (dropped)
            {
                std::fill(plane, plane + inPlane, 0.0f);
            }
            for (size_t py = 0; py < outHeight; ++py)
            {
                float* top = plane + 2 * py * shape.width;
                float* bottom = top + shape.width;
                size_t px = 0;
#if defined(__SSE2__)
                // Four windows at a time: their gradients (zero where the ReLU was off) are
                // spread to each window's maximum by comparing the index with 0..3, and the
                // left and right inputs interleaved back into rows.
                for (; px + 4 <= outWidth; px += 4, outGrad += 4, out += 4, argmax += 4)
                {
                    const __m128 on = _mm_cmpgt_ps(_mm_loadu_ps(out), _mm_setzero_ps());
                    const __m128 g = _mm_and_ps(on, _mm_loadu_ps(outGrad));
                    int packed;
                    std::memcpy(&packed, argmax, 4);
                    const __m128i bytes = _mm_cvtsi32_si128(packed);
                    const __m128i index =
                        _mm_unpacklo_epi16(_mm_unpacklo_epi8(bytes, _mm_setzero_si128()),
                                           _mm_setzero_si128());
                    const __m128 at[4] = {
                        _mm_and_ps(g, _mm_castsi128_ps(_mm_cmpeq_epi32(index, _mm_set1_epi32(0)))),
                        _mm_and_ps(g, _mm_castsi128_ps(_mm_cmpeq_epi32(index, _mm_set1_epi32(1)))),
                        _mm_and_ps(g, _mm_castsi128_ps(_mm_cmpeq_epi32(index, _mm_set1_epi32(2)))),
                        _mm_and_ps(g, _mm_castsi128_ps(_mm_cmpeq_epi32(index, _mm_set1_epi32(3)))),
                    };
                    _mm_storeu_ps(top + 2 * px, _mm_unpacklo_ps(at[0], at[1]));
                    _mm_storeu_ps(top + 2 * px + 4, _mm_unpackhi_ps(at[0], at[1]));
                    _mm_storeu_ps(bottom + 2 * px, _mm_unpacklo_ps(at[2], at[3]));
                    _mm_storeu_ps(bottom + 2 * px + 4, _mm_unpackhi_ps(at[2], at[3]));
                    float lanes[4];
                    _mm_storeu_ps(lanes, g);
                    sum += lanes[0];
                    sum += lanes[1];
                    sum += lanes[2];
                    sum += lanes[3];
                }
#endif
                for (; px < outWidth; ++px, ++outGrad, ++out, ++argmax)
                {
                    // Branch-free: where the ReLU was off the window gets zeros.
                    const float g = *out > 0.0f ? *outGrad : 0.0f;
                    const unsigned k = *argmax;
                    top[2 * px] = k == 0 ? g : 0.0f;
                    top[2 * px + 1] = k == 1 ? g : 0.0f;
                    bottom[2 * px] = k == 2 ? g : 0.0f;
                    bottom[2 * px + 1] = k == 3 ? g : 0.0f;
                    sum += g;
                }
            }
        }
        biasGrad[c] += sum;
    }
}

void
PoolBiasReluBackwardSparse(const PoolShape& shape,
                           const float* outGrad,
                           const float* out,
                           const uint8_t* argmax,
                           SparseOutputGrad& inGrad,
                           float* biasGrad)
{
    const size_t outHeight = shape.OutHeight();
    const size_t outWidth = shape.OutWidth();
    inGrad.Reset(shape.channels, shape.n, outHeight * outWidth);
    uint32_t* pendingPosition = GrowScratch(t_pendingPosition, outWidth);
    float* pendingValue = GrowScratch(t_pendingValue, outWidth);
    for (size_t c = 0; c < shape.channels; ++c)
    {
        // The bias gradient sums the windows in order, as PoolBiasReluBackward does.
        float sum = 0.0f;
        for (size_t s = 0; s < shape.n; ++s)
        {
            const size_t list = c * shape.n + s;
            uint32_t* position = inGrad.position.data() + list * inGrad.slots;
            float* value = inGrad.value.data() + list * inGrad.slots;
            uint16_t count = 0;
            for (size_t py = 0; py < outHeight; ++py)
            {
                // A window row covers two input rows; its maxima in the upper row come first,
                // so that positions ascend: those in the lower row wait in `pending`. Entries
                // are written unconditionally and kept by advancing the count (the conditions
                // are data-dependent, so branches would mispredict).
                size_t pending = 0;
                for (size_t px = 0; px < outWidth; ++px)
                {
                    const size_t window = py * outWidth + px;
                    const float g = ReluGate(out[window], outGrad[window]);
                    sum += g;
                    const unsigned k = argmax[window];
                    const uint32_t at =
                        static_cast<uint32_t>((2 * py + (k >> 1)) * shape.width + 2 * px + (k & 1));
                    const bool kept = g != 0.0f;
                    const bool lower = (k >> 1) != 0;
                    position[count] = at;
                    value[count] = g;
                    count += kept && !lower;
                    pendingPosition[pending] = at;
                    pendingValue[pending] = g;
                    pending += kept && lower;
                }
                for (size_t j = 0; j < pending; ++j)
                {
                    position[count + j] = pendingPosition[j];
                    value[count + j] = pendingValue[j];
                }
                count += pending;
            }
            inGrad.count[list] = count;
            outGrad += outHeight * outWidth;
            out += outHeight * outWidth;
            argmax += outHeight * outWidth;
        }
        biasGrad[c] += sum;
    }
}

void
PoolBiasReluBackwardChannelsLast(const PoolShape& shape,
                                 const float* outGrad,
                                 const float* out,
                                 const uint8_t* argmax,
                                 float* inGradT,
                                 size_t lanes,
                                 float* biasGrad)
{
    const size_t outHeight = shape.OutHeight();
    const size_t outWidth = shape.OutWidth();
    const size_t windows = outHeight * outWidth;
    const size_t imageFloats = size_t{shape.height} * shape.width * lanes;
    // Image by image, so that the writes stay within one image's few dozen KB. Each channel's
    // bias gradient still sums its windows in order: images ascending, then windows.
    float* sums = GrowScratch(t_sums, shape.channels);
    std::fill_n(sums, shape.channels, 0.0f);
    for (size_t s = 0; s < shape.n; ++s)
    {
        float* image = inGradT + s * imageFloats;
        std::fill_n(image, imageFloats, 0.0f);
        for (size_t c = 0; c < shape.channels; ++c)
        {
            const size_t first = (c * shape.n + s) * windows;
            float sum = sums[c];
            for (size_t py = 0; py < outHeight; ++py)
            {
                for (size_t px = 0; px < outWidth; ++px)
                {
                    const size_t window = first + py * outWidth + px;
                    const float g = ReluGate(out[window], outGrad[window]);
                    sum += g;
                    const unsigned k = argmax[window];
                    image[((2 * py + (k >> 1)) * shape.width + 2 * px + (k & 1)) * lanes + c] = g;
                }
            }
            sums[c] = sum;
        }
    }
    for (size_t c = 0; c < shape.channels; ++c)
    {
        biasGrad[c] += sums[c];
    }
}

} // namespace fedran
