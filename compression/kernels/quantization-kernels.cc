#include "compression/internal/quantization-kernels.h"

#include "compression/internal/simd-level.h"

#include <algorithm>
#include <cmath>

#if defined(__SSE2__)
#    include <emmintrin.h>
#endif
#if defined(__x86_64__)
#    include <immintrin.h>
#endif

namespace fedran::internal
{

namespace
{

constexpr uint32_t kNearest = 32768; ///< the "dither" of round-to-nearest
/// The rounding loop works from L1 (ScanBucket has just read the bucket), so it asks for the
/// data two default buckets ahead, one cache line per 16 elements: memory then streams while
/// this loop computes instead of stalling the next ScanBucket. (Prefetches never fault, so
/// running past the end of the update is harmless.)
constexpr size_t kQuantizationPrefetchAhead = 1024;

inline uint8_t
RoundOne(float x, const QuantizerRounding& q, uint32_t r)
{
    // Written as maxps / minps behave, so a NaN product clamps to -limit on every path.
    float v = x * q.a;
    v = v > -q.limit ? v : -q.limit;
    v = v < q.limit ? v : q.limit;
    const int32_t t = static_cast<int32_t>(v) + q.offset;
    return static_cast<uint8_t>((static_cast<uint32_t>(t) + r) >> 16);
}

inline uint8_t
RoundTiny(float x, const QuantizerRounding& q, uint32_t r)
{
    double v = static_cast<double>(x) / q.scale * q.limit;
    v = std::clamp(v, -static_cast<double>(q.limit), static_cast<double>(q.limit));
    const int32_t t = static_cast<int32_t>(v) + q.offset;
    return static_cast<uint8_t>((static_cast<uint32_t>(t) + r) >> 16);
}

#if defined(__SSE2__)
/// Whole blocks of 16 from the start of x; returns how many elements were done.
template<bool kStochastic>
size_t
QuantizeBlocksSse2(const float* x,
                   size_t n,
                   const QuantizerRounding& q,
                   Dither* dither,
                   uint8_t* codes)
{
    const __m128 a = _mm_set1_ps(q.a);
    const __m128 limit = _mm_set1_ps(q.limit);
    const __m128 negLimit = _mm_set1_ps(-q.limit);
    const __m128i offset = _mm_set1_epi32(q.offset);
    const __m128i zero = _mm_setzero_si128();
    __m128i r[4];
    r[0] = r[1] = r[2] = r[3] = _mm_set1_epi32(kNearest);
    Dither::Lanes lanes{};
    if constexpr (kStochastic)
    {
        lanes = dither->Load();
    }
    size_t i = 0;
    for (; n - i >= 16; i += 16)
    {
        _mm_prefetch(reinterpret_cast<const char*>(x + i + kQuantizationPrefetchAhead),
                     _MM_HINT_T0);
        if constexpr (kStochastic)
        {
            __m128i w0;
            __m128i w1;
            lanes.Step(w0, w1);
            r[0] = _mm_unpacklo_epi16(w0, zero);
            r[1] = _mm_unpackhi_epi16(w0, zero);
            r[2] = _mm_unpacklo_epi16(w1, zero);
            r[3] = _mm_unpackhi_epi16(w1, zero);
        }
        __m128i c[4];
        for (int k = 0; k < 4; ++k)
        {
            __m128 v = _mm_mul_ps(_mm_loadu_ps(x + i + 4 * k), a);
            v = _mm_min_ps(_mm_max_ps(v, negLimit), limit);
            const __m128i t = _mm_add_epi32(_mm_cvttps_epi32(v), offset);
            c[k] = _mm_srli_epi32(_mm_add_epi32(t, r[k]), 16);
        }
        _mm_storeu_si128(
            reinterpret_cast<__m128i*>(codes + i),
            _mm_packus_epi16(_mm_packs_epi32(c[0], c[1]), _mm_packs_epi32(c[2], c[3])));
    }
    if constexpr (kStochastic)
    {
        dither->Store(lanes);
    }
    return i;
}
#endif

#if defined(__x86_64__)
template<bool kStochastic>
__attribute__((target("avx2"))) size_t
QuantizeBlocksAvx2(const float* x,
                   size_t n,
                   const QuantizerRounding& q,
                   Dither* dither,
                   uint8_t* codes)
{
    const __m256 a = _mm256_set1_ps(q.a);
    const __m256 limit = _mm256_set1_ps(q.limit);
    const __m256 negLimit = _mm256_set1_ps(-q.limit);
    const __m256i offset = _mm256_set1_epi32(q.offset);
    // After packs/packus the four 4-code groups sit in dwords 0, 4, 1, 5.
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 0, 0, 0, 0);
    __m256i r0 = _mm256_set1_epi32(kNearest);
    __m256i r1 = r0;
    __m256i s0{};
    __m256i s1{};
    if constexpr (kStochastic)
    {
        s0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(dither->State0()));
        s1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(dither->State1()));
    }
    size_t i = 0;
    for (; n - i >= 16; i += 16)
    {
        _mm_prefetch(reinterpret_cast<const char*>(x + i + kQuantizationPrefetchAhead),
                     _MM_HINT_T0);
        if constexpr (kStochastic)
        {
            SplitDitherAvx2(DitherStepAvx2(s0, s1), r0, r1);
        }
        __m256 v0 = _mm256_mul_ps(_mm256_loadu_ps(x + i), a);
        __m256 v1 = _mm256_mul_ps(_mm256_loadu_ps(x + i + 8), a);
        v0 = _mm256_min_ps(_mm256_max_ps(v0, negLimit), limit);
        v1 = _mm256_min_ps(_mm256_max_ps(v1, negLimit), limit);
        const __m256i t0 = _mm256_add_epi32(_mm256_cvttps_epi32(v0), offset);
        const __m256i t1 = _mm256_add_epi32(_mm256_cvttps_epi32(v1), offset);
        const __m256i c0 = _mm256_srli_epi32(_mm256_add_epi32(t0, r0), 16);
        const __m256i c1 = _mm256_srli_epi32(_mm256_add_epi32(t1, r1), 16);
        const __m256i words = _mm256_packs_epi32(c0, c1);
        const __m256i bytes = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(words, words), order);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(codes + i), _mm256_castsi256_si128(bytes));
    }
    if constexpr (kStochastic)
    {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dither->State0()), s0);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dither->State1()), s1);
    }
    return i;
}
#endif

#if defined(__SSE2__)
/// max|x| and sum x over whole groups of 16; returns how many elements were done.
size_t
ScanBlocksSse2(const float* x, size_t n, float& maxAbs, float& sum)
{
    const __m128 absMask = _mm_castsi128_ps(_mm_set1_epi32(0x7FFFFFFF));
    __m128 m[4];
    __m128 s[4];
    for (int k = 0; k < 4; ++k)
    {
        m[k] = _mm_setzero_ps();
        s[k] = _mm_setzero_ps();
    }
    size_t i = 0;
    for (; n - i >= 16; i += 16)
    {
        for (int k = 0; k < 4; ++k)
        {
            const __m128 v = _mm_loadu_ps(x + i + 4 * k);
            m[k] = _mm_max_ps(m[k], _mm_and_ps(v, absMask));
            s[k] = _mm_add_ps(s[k], v);
        }
    }
    alignas(16) float lanes[4];
    _mm_store_ps(lanes, _mm_max_ps(_mm_max_ps(m[0], m[1]), _mm_max_ps(m[2], m[3])));
    maxAbs = std::max(std::max(lanes[0], lanes[1]), std::max(lanes[2], lanes[3]));
    _mm_store_ps(lanes, _mm_add_ps(_mm_add_ps(s[0], s[1]), _mm_add_ps(s[2], s[3])));
    sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    return i;
}
#endif

#if defined(__x86_64__)
__attribute__((target("avx2"))) size_t
ScanBlocksAvx2(const float* x, size_t n, float& maxAbs, float& sum)
{
    const __m256 absMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    __m256 m[4];
    __m256 s[4];
    for (int k = 0; k < 4; ++k)
    {
        m[k] = _mm256_setzero_ps();
        s[k] = _mm256_setzero_ps();
    }
    size_t i = 0;
    for (; n - i >= 32; i += 32)
    {
        for (int k = 0; k < 4; ++k)
        {
            const __m256 v = _mm256_loadu_ps(x + i + 8 * k);
            m[k] = _mm256_max_ps(m[k], _mm256_and_ps(v, absMask));
            s[k] = _mm256_add_ps(s[k], v);
        }
    }
    const __m256 m8 = _mm256_max_ps(_mm256_max_ps(m[0], m[1]), _mm256_max_ps(m[2], m[3]));
    const __m256 s8 = _mm256_add_ps(_mm256_add_ps(s[0], s[1]), _mm256_add_ps(s[2], s[3]));
    alignas(16) float lanes[4];
    _mm_store_ps(lanes, _mm_max_ps(_mm256_castps256_ps128(m8), _mm256_extractf128_ps(m8, 1)));
    maxAbs = std::max(std::max(lanes[0], lanes[1]), std::max(lanes[2], lanes[3]));
    _mm_store_ps(lanes, _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1)));
    sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    return i;
}
#endif

/// Whole blocks of 16 with the best available kernel; returns how many elements were done.
size_t
QuantizeBlocks(const float* x, size_t n, const QuantizerRounding& q, Dither* dither, uint8_t* codes)
{
    [[maybe_unused]] const SimdLevel level = ActiveSimdLevel();
#if defined(__x86_64__)
    if (level >= SimdLevel::kAvx2)
    {
        return dither ? QuantizeBlocksAvx2<true>(x, n, q, dither, codes)
                      : QuantizeBlocksAvx2<false>(x, n, q, dither, codes);
    }
#endif
#if defined(__SSE2__)
    if (level >= SimdLevel::kSse2)
    {
        return dither ? QuantizeBlocksSse2<true>(x, n, q, dither, codes)
                      : QuantizeBlocksSse2<false>(x, n, q, dither, codes);
    }
#endif
    return 0;
}

} // namespace

BucketScan
ScanBucket(const float* x, size_t n)
{
    // A NaN or inf makes the plain sum non-finite, for one add per element; a sum that merely
    // overflowed is re-checked element by element. Four independent accumulators of each
    // kind keep the loop from waiting on the latency of max and add.
    float maxAbs = 0.0f;
    float sum = 0.0f;
    size_t i = 0;
    [[maybe_unused]] const SimdLevel level = ActiveSimdLevel();
#if defined(__x86_64__)
    if (level >= SimdLevel::kAvx2)
    {
        i = ScanBlocksAvx2(x, n, maxAbs, sum);
    }
    else
#endif
#if defined(__SSE2__)
        if (level >= SimdLevel::kSse2)
    {
        i = ScanBlocksSse2(x, n, maxAbs, sum);
    }
#endif
    for (; i < n; ++i)
    {
        const float a = std::fabs(x[i]);
        maxAbs = a > maxAbs ? a : maxAbs;
        sum += x[i];
    }
    bool finite = std::isfinite(sum);
    if (!finite)
    {
        finite = std::all_of(x, x + n, [](float v) { return std::isfinite(v); });
    }
    return {maxAbs, finite};
}

void
QuantizeRun(const float* x, size_t n, const QuantizerRounding& q, Dither* dither, uint8_t* codes)
{
    size_t i = 0;
    if (q.tiny)
    {
        for (; i < n; ++i)
        {
            codes[i] = RoundTiny(x[i], q, dither ? dither->NextValue() : kNearest);
        }
        return;
    }
    // Scalar up to the next block boundary of the draw order, then whole blocks.
    if (dither != nullptr)
    {
        for (; i < n && !dither->AtBlockStart(); ++i)
        {
            codes[i] = RoundOne(x[i], q, dither->NextValue());
        }
    }
    i += QuantizeBlocks(x + i, n - i, q, dither, codes + i);
    for (; i < n; ++i)
    {
        codes[i] = RoundOne(x[i], q, dither ? dither->NextValue() : kNearest);
    }
}

namespace
{

#if defined(__SSE2__)
/// Whole groups of 16; kStream writes with non-temporal stores (`out` 16-byte aligned).
template<bool kStream>
size_t
DequantizeBlocksSse2(const uint8_t* codes, size_t n, float center, float scale, float* out)
{
    const __m128i zero = _mm_setzero_si128();
    const __m128 c = _mm_set1_ps(center);
    const __m128 inverse = _mm_set1_ps(1.0f / center);
    const __m128 s = _mm_set1_ps(scale);
    size_t i = 0;
    for (; n - i >= 16; i += 16)
    {
        const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(codes + i));
        const __m128i lo = _mm_unpacklo_epi8(bytes, zero);
        const __m128i hi = _mm_unpackhi_epi8(bytes, zero);
        const __m128i q[4] = {_mm_unpacklo_epi16(lo, zero),
                              _mm_unpackhi_epi16(lo, zero),
                              _mm_unpacklo_epi16(hi, zero),
                              _mm_unpackhi_epi16(hi, zero)};
        for (int k = 0; k < 4; ++k)
        {
            const __m128 ratio = _mm_mul_ps(_mm_sub_ps(_mm_cvtepi32_ps(q[k]), c), inverse);
            if constexpr (kStream)
            {
                _mm_stream_ps(out + i + 4 * k, _mm_mul_ps(ratio, s));
            }
            else
            {
                _mm_storeu_ps(out + i + 4 * k, _mm_mul_ps(ratio, s));
            }
        }
    }
    return i;
}
#endif

} // namespace

void
DequantizeRun(const uint8_t* codes, size_t n, float center, float scale, float* out, bool stream)
{
    // ((q - c) / c) * scale lies within [-scale, scale], so unlike (q - c) * (scale / c) it
    // cannot overflow for scales near FLT_MAX.
    size_t i = 0;
#if defined(__SSE2__)
    if (ActiveSimdLevel() >= SimdLevel::kSse2)
    {
        i = stream && reinterpret_cast<uintptr_t>(out) % 16 == 0
                ? DequantizeBlocksSse2<true>(codes, n, center, scale, out)
                : DequantizeBlocksSse2<false>(codes, n, center, scale, out);
    }
#endif
    const float inverse = 1.0f / center;
    for (; i < n; ++i)
    {
        out[i] = ((static_cast<float>(codes[i]) - center) * inverse) * scale;
    }
}

} // namespace fedran::internal
