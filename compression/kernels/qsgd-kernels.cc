#include "compression/internal/qsgd-kernels.h"

#include "compression/internal/qsgd-coding.h"
#include "compression/internal/simd-level.h"

#include <algorithm>
#include <bit>
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

constexpr size_t kSumBlock = 1024;
/// The level loop works from L1 (SumOfSquares has just read the bucket), so it asks for the
/// data two default buckets ahead, one cache line per 16 elements, and memory streams while
/// it computes. (Prefetches never fault, so running past the end is harmless.)
constexpr size_t kQsgdPrefetchAhead = 1024;

// Sums of squares over n <= kSumBlock floats in one fixed order, whatever the path: lane j of
// 32 takes elements 32m + j (four independent vector chains, so the loop does not wait on the
// latency of add), the lanes fold as G = L[0..15] + L[16..31], H = G[0..7] + G[8..15],
// I = H[0..3] + H[4..7], then (I0 + I1) + (I2 + I3), and the tail is added in order.

#if defined(__x86_64__)
__attribute__((target("avx2"))) size_t
FoldedSquaresAvx2(const float* p, size_t n, float folded[4])
{
    __m256 a[4] = {_mm256_setzero_ps(),
                   _mm256_setzero_ps(),
                   _mm256_setzero_ps(),
                   _mm256_setzero_ps()};
    size_t i = 0;
    for (; n - i >= 32; i += 32)
    {
        for (int k = 0; k < 4; ++k)
        {
            const __m256 v = _mm256_loadu_ps(p + i + 8 * k);
            a[k] = _mm256_add_ps(a[k], _mm256_mul_ps(v, v));
        }
    }
    const __m256 h = _mm256_add_ps(_mm256_add_ps(a[0], a[2]), _mm256_add_ps(a[1], a[3]));
    _mm_storeu_ps(folded, _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1)));
    return i;
}
#endif

#if defined(__SSE2__)
size_t
FoldedSquaresSse2(const float* p, size_t n, float folded[4])
{
    __m128 x[8];
    for (__m128& v : x)
    {
        v = _mm_setzero_ps();
    }
    size_t i = 0;
    for (; n - i >= 32; i += 32)
    {
        for (int k = 0; k < 8; ++k)
        {
            const __m128 v = _mm_loadu_ps(p + i + 4 * k);
            x[k] = _mm_add_ps(x[k], _mm_mul_ps(v, v));
        }
    }
    const __m128 low = _mm_add_ps(_mm_add_ps(x[0], x[4]), _mm_add_ps(x[2], x[6]));
    const __m128 high = _mm_add_ps(_mm_add_ps(x[1], x[5]), _mm_add_ps(x[3], x[7]));
    _mm_storeu_ps(folded, _mm_add_ps(low, high));
    return i;
}
#endif

size_t
FoldedSquaresScalar(const float* p, size_t n, float folded[4])
{
    float lanes[32] = {};
    size_t i = 0;
    for (; n - i >= 32; i += 32)
    {
        for (int j = 0; j < 32; ++j)
        {
            lanes[j] += p[i + j] * p[i + j];
        }
    }
    float h[8];
    for (int j = 0; j < 8; ++j)
    {
        h[j] = (lanes[j] + lanes[j + 16]) + (lanes[j + 8] + lanes[j + 24]);
    }
    for (int j = 0; j < 4; ++j)
    {
        folded[j] = h[j] + h[j + 4];
    }
    return i;
}

float
BlockSumOfSquares(const float* p, size_t n)
{
    float folded[4];
    size_t i;
    [[maybe_unused]] const SimdLevel level = ActiveSimdLevel();
#if defined(__x86_64__)
    if (level >= SimdLevel::kAvx2)
    {
        i = FoldedSquaresAvx2(p, n, folded);
    }
    else
#endif
#if defined(__SSE2__)
        if (level >= SimdLevel::kSse2)
    {
        i = FoldedSquaresSse2(p, n, folded);
    }
    else
#endif
    {
        i = FoldedSquaresScalar(p, n, folded);
    }
    float sum = (folded[0] + folded[1]) + (folded[2] + folded[3]);
    for (; i < n; ++i)
    {
        sum += p[i] * p[i];
    }
    return sum;
}

inline uint32_t
LevelIndex(float x, const QsgdRounding& q, uint32_t r)
{
    uint32_t level;
    if (q.tiny)
    {
        const double u = std::min(std::fabs(static_cast<double>(x)) / q.norm * q.cap,
                                  static_cast<double>(q.cap));
        level = (static_cast<uint32_t>(u) + (r >> (16 - q.fraction))) >> q.fraction;
    }
    else
    {
        float u = std::fabs(x) * q.k;
        u = u < q.cap ? u : q.cap;
        level = (static_cast<uint32_t>(static_cast<int32_t>(u)) + (r >> (16 - q.fraction))) >>
                q.fraction;
    }
    return level << 1 | std::bit_cast<uint32_t>(x) >> 31;
}

#if defined(__SSE2__)
/// Whole blocks of 16 from the start of x; returns how many elements were done.
size_t
LevelBlocksSse2(const float* x, size_t n, const QsgdRounding& q, Dither& dither, uint32_t* idx)
{
    const __m128 absMask = _mm_castsi128_ps(_mm_set1_epi32(0x7FFFFFFF));
    const __m128 k = _mm_set1_ps(q.k);
    const __m128 cap = _mm_set1_ps(q.cap);
    const __m128i fraction = _mm_cvtsi32_si128(static_cast<int>(q.fraction));
    const __m128i ditherShift = _mm_cvtsi32_si128(static_cast<int>(16 - q.fraction));
    const __m128i zero = _mm_setzero_si128();
    Dither::Lanes lanes = dither.Load();
    size_t i = 0;
    for (; n - i >= 16; i += 16)
    {
        _mm_prefetch(reinterpret_cast<const char*>(x + i + kQsgdPrefetchAhead), _MM_HINT_T0);
        __m128i w0;
        __m128i w1;
        lanes.Step(w0, w1);
        const __m128i r[4] = {_mm_unpacklo_epi16(w0, zero),
                              _mm_unpackhi_epi16(w0, zero),
                              _mm_unpacklo_epi16(w1, zero),
                              _mm_unpackhi_epi16(w1, zero)};
        for (int j = 0; j < 4; ++j)
        {
            const __m128 v = _mm_loadu_ps(x + i + 4 * j);
            const __m128 u = _mm_min_ps(_mm_mul_ps(_mm_and_ps(v, absMask), k), cap);
            const __m128i t = _mm_add_epi32(_mm_cvttps_epi32(u), _mm_srl_epi32(r[j], ditherShift));
            const __m128i level = _mm_srl_epi32(t, fraction);
            const __m128i sign = _mm_srli_epi32(_mm_castps_si128(v), 31);
            _mm_storeu_si128(reinterpret_cast<__m128i*>(idx + i + 4 * j),
                             _mm_or_si128(_mm_slli_epi32(level, 1), sign));
        }
    }
    dither.Store(lanes);
    return i;
}
#endif

#if defined(__x86_64__)
/// The rounding constants of one bucket in AVX2 registers.
struct RoundingAvx2
{
    __m256 absMask, k, cap;
    __m128i fraction, ditherShift;

    __attribute__((target("avx2"))) explicit RoundingAvx2(const QsgdRounding& q)
        : absMask(_mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF)))
        , k(_mm256_set1_ps(q.k))
        , cap(_mm256_set1_ps(q.cap))
        , fraction(_mm_cvtsi32_si128(static_cast<int>(q.fraction)))
        , ditherShift(_mm_cvtsi32_si128(static_cast<int>(16 - q.fraction)))
    {
    }

    /// The levels of eight elements, r their dither values (u32 lanes).
    __attribute__((target("avx2"), always_inline)) __m256i Levels(__m256 v, __m256i r) const
    {
        const __m256 u = _mm256_min_ps(_mm256_mul_ps(_mm256_and_ps(v, absMask), k), cap);
        const __m256i t =
            _mm256_add_epi32(_mm256_cvttps_epi32(u), _mm256_srl_epi32(r, ditherShift));
        return _mm256_srl_epi32(t, fraction);
    }

    /// The same for 16 fraction bits (every s < 2^14), where shifts by constants do.
    __attribute__((target("avx2"), always_inline)) __m256i Levels16(__m256 v, __m256i r) const
    {
        const __m256 u = _mm256_min_ps(_mm256_mul_ps(_mm256_and_ps(v, absMask), k), cap);
        return _mm256_srli_epi32(_mm256_add_epi32(_mm256_cvttps_epi32(u), r), 16);
    }
};

__attribute__((target("avx2"))) size_t
LevelBlocksAvx2(const float* x, size_t n, const QsgdRounding& q, Dither& dither, uint32_t* idx)
{
    const RoundingAvx2 rounding(q);
    __m256i s0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(dither.State0()));
    __m256i s1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(dither.State1()));
    size_t i = 0;
    for (; n - i >= 16; i += 16)
    {
        _mm_prefetch(reinterpret_cast<const char*>(x + i + kQsgdPrefetchAhead), _MM_HINT_T0);
        __m256i r[2];
        SplitDitherAvx2(DitherStepAvx2(s0, s1), r[0], r[1]);
        for (int j = 0; j < 2; ++j)
        {
            const __m256 v = _mm256_loadu_ps(x + i + 8 * j);
            const __m256i level = rounding.Levels(v, r[j]);
            const __m256i sign = _mm256_srli_epi32(_mm256_castps_si256(v), 31);
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(idx + i + 8 * j),
                                _mm256_or_si256(_mm256_slli_epi32(level, 1), sign));
        }
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dither.State0()), s0);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dither.State1()), s1);
    return i;
}

/// pshufb tables over idx = l << 1 | negative for l <= 3: the code (at most 6 bits), its
/// length, and 2^length. Both 128-bit halves are the same.
struct SmallCodeTables
{
    alignas(32) uint8_t code[32] = {};
    alignas(32) uint8_t length[32] = {};
    alignas(32) uint8_t power[32] = {};

    SmallCodeTables()
    {
        for (uint32_t idx = 0; idx < 8; ++idx)
        {
            const uint32_t level = idx >> 1;
            const unsigned gamma = EliasGammaLength(level + 1);
            const uint64_t sign = level > 0 ? uint64_t{idx & 1} << gamma : 0;
            const unsigned bits = QsgdCodeLength(level);
            for (int half = 0; half < 2; ++half)
            {
                code[16 * half + idx] = static_cast<uint8_t>(EliasGammaBits(level + 1) | sign);
                length[16 * half + idx] = static_cast<uint8_t>(bits);
                power[16 * half + idx] = static_cast<uint8_t>(1u << bits);
            }
        }
    }
};

/// Appends the codes of 32 elements whose idx bytes (in element order) are all below 8.
/// Pairs, quads and octets of codes are merged with byte multiplies and variable shifts; two
/// 16-code words go out when each fits 63 bits (at the default s nearly always), else four
/// 8-code words.
__attribute__((target("avx2,bmi2"), always_inline)) inline void
PutSmallCodes32Avx2(BitCursor& c, __m256i idx, const SmallCodeTables& tables)
{
    const auto* t = reinterpret_cast<const __m256i*>(&tables);
    const __m256i code = _mm256_shuffle_epi8(_mm256_load_si256(t), idx);
    const __m256i length = _mm256_shuffle_epi8(_mm256_load_si256(t + 1), idx);
    const __m256i power = _mm256_shuffle_epi8(_mm256_load_si256(t + 2), idx);
    // 16-bit lanes: code0 * 1 + code1 * 2^length0.
    const __m256i factors = _mm256_or_si256(_mm256_slli_epi16(power, 8), _mm256_set1_epi16(1));
    const __m256i pair = _mm256_maddubs_epi16(code, factors);
    const __m256i pairLength = _mm256_maddubs_epi16(length, _mm256_set1_epi8(1));
    // 32-bit lanes.
    const __m256i low16 = _mm256_set1_epi32(0xFFFF);
    const __m256i quad = _mm256_or_si256(
        _mm256_and_si256(pair, low16),
        _mm256_sllv_epi32(_mm256_srli_epi32(pair, 16), _mm256_and_si256(pairLength, low16)));
    const __m256i quadLength = _mm256_madd_epi16(pairLength, _mm256_set1_epi16(1));
    // 64-bit lanes.
    const __m256i low32 = _mm256_set1_epi64x(0xFFFFFFFF);
    const __m256i quadLow = _mm256_and_si256(quadLength, low32);
    const __m256i octet = _mm256_or_si256(_mm256_and_si256(quad, low32),
                                          _mm256_sllv_epi64(_mm256_srli_epi64(quad, 32), quadLow));
    const __m256i octetLength = _mm256_add_epi64(quadLow, _mm256_srli_epi64(quadLength, 32));
    // 16 codes in 64-bit lanes 0 and 2 (bits beyond 64 are lost; used only when they fit).
    const __m256i hex =
        _mm256_or_si256(octet, _mm256_sllv_epi64(_mm256_srli_si256(octet, 8), octetLength));
    const __m256i hexLength = _mm256_add_epi64(octetLength, _mm256_srli_si256(octetLength, 8));
    const __m256i both = _mm256_blend_epi32(hex, _mm256_slli_si256(hexLength, 8), 0xCC);
    const __m128i first = _mm256_castsi256_si128(both);
    const __m128i second = _mm256_extracti128_si256(both, 1);
    const auto firstLength = static_cast<unsigned>(_mm_extract_epi64(first, 1));
    const auto secondLength = static_cast<unsigned>(_mm_extract_epi64(second, 1));
    if ((firstLength | secondLength) < 64) [[likely]] // each is at least 16
    {
        PutBitsWide(c, static_cast<uint64_t>(_mm_cvtsi128_si64(first)), firstLength);
        PutBitsWide(c, static_cast<uint64_t>(_mm_cvtsi128_si64(second)), secondLength);
        return;
    }
    alignas(32) uint64_t octets[4];
    alignas(32) uint64_t lengths[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(octets), octet);
    _mm256_store_si256(reinterpret_cast<__m256i*>(lengths), octetLength);
    for (int k = 0; k < 4; ++k)
    {
        PutBits(c, octets[k], static_cast<unsigned>(lengths[k]));
    }
}

/// See QsgdCodeBlocks.
__attribute__((target("avx2,bmi2"))) size_t
CodeBlocksAvx2(const float* x, size_t n, const QsgdRounding& q, Dither& dither, BitWriter& writer)
{
    static const SmallCodeTables tables;
    constexpr size_t kBlock = 32;
    constexpr unsigned kMaxCodeBits = 14; // levels <= kQsgdMaxAvx2WriteLevels
    const size_t blocks = std::min(n / kBlock, BitWriter::kMaxOpenBits / (kBlock * kMaxCodeBits));
    BitCursor c = writer.Open(blocks * kBlock * kMaxCodeBits);
    const RoundingAvx2 rounding(q);
    const __m256i one = _mm256_set1_epi32(1);
    const __m256i large = _mm256_set1_epi8(static_cast<char>(0xF8));
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    __m256i s0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(dither.State0()));
    __m256i s1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(dither.State1()));
    for (size_t b = 0; b < blocks; ++b)
    {
        const float* p = x + kBlock * b;
        _mm_prefetch(reinterpret_cast<const char*>(p + kQsgdPrefetchAhead), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(p + kQsgdPrefetchAhead + 16), _MM_HINT_T0);
        __m256i r[4];
        SplitDitherAvx2(DitherStepAvx2(s0, s1), r[0], r[1]);
        SplitDitherAvx2(DitherStepAvx2(s0, s1), r[2], r[3]);
        __m256i idx[4];
        for (int j = 0; j < 4; ++j)
        {
            const __m256 v = _mm256_loadu_ps(p + 8 * j);
            const __m256i negative = _mm256_srli_epi32(_mm256_castps_si256(v), 31);
            idx[j] = _mm256_or_si256(_mm256_slli_epi32(rounding.Levels16(v, r[j]), 1), negative);
        }
        // To bytes in element order; saturation keeps large idx large.
        const __m256i bytes =
            _mm256_permutevar8x32_epi32(_mm256_packus_epi16(_mm256_packus_epi32(idx[0], idx[1]),
                                                            _mm256_packus_epi32(idx[2], idx[3])),
                                        order);
        if (_mm256_testz_si256(bytes, large)) [[likely]]
        {
            PutSmallCodes32Avx2(c, bytes, tables);
            continue;
        }
        for (int j = 0; j < 4; ++j)
        {
            PutQsgdCodes8Avx2(c, _mm256_srli_epi32(idx[j], 1), _mm256_and_si256(idx[j], one));
        }
    }
    writer.Commit(c);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dither.State0()), s0);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dither.State1()), s1);
    return blocks * kBlock;
}
#endif

size_t
LevelBlocks(const float* x, size_t n, const QsgdRounding& q, Dither& dither, uint32_t* idx)
{
    [[maybe_unused]] const SimdLevel level = ActiveSimdLevel();
#if defined(__x86_64__)
    if (level >= SimdLevel::kAvx2)
    {
        return LevelBlocksAvx2(x, n, q, dither, idx);
    }
#endif
#if defined(__SSE2__)
    if (level >= SimdLevel::kSse2)
    {
        return LevelBlocksSse2(x, n, q, dither, idx);
    }
#endif
    return 0;
}

} // namespace

double
SumOfSquares(const float* x, size_t n)
{
    double total = 0.0;
    for (size_t begin = 0; begin < n; begin += kSumBlock)
    {
        const size_t m = std::min(kSumBlock, n - begin);
        const float block = BlockSumOfSquares(x + begin, m);
        // Squares of |x| > 2^63 may overflow and of |x| < 2^-50 lose bits: redo in double.
        if (block < 0x1p126f && block > 0x1p-100f)
        {
            total += block;
            continue;
        }
        double exact = 0.0;
        for (size_t i = begin; i < begin + m; ++i)
        {
            exact += static_cast<double>(x[i]) * x[i];
        }
        total += exact;
    }
    return total;
}

size_t
QsgdCodeBlocks(const float* x,
               size_t n,
               const QsgdRounding& q,
               uint32_t levels,
               Dither& dither,
               BitWriter& writer)
{
#if defined(__x86_64__)
    // Such s have 16 fraction bits, which CodeBlocksAvx2 assumes.
    if (!q.tiny && levels <= kQsgdMaxAvx2WriteLevels && q.fraction == 16 && dither.AtBlockStart() &&
        ActiveSimdLevel() >= SimdLevel::kAvx2)
    {
        return CodeBlocksAvx2(x, n, q, dither, writer);
    }
#endif
    return 0;
}

void
QsgdLevelRun(const float* x, size_t n, const QsgdRounding& q, Dither& dither, uint32_t* idx)
{
    size_t i = 0;
    // Scalar up to the next block boundary of the draw order (or throughout for tiny
    // buckets), then whole blocks.
    for (; i < n && (q.tiny || !dither.AtBlockStart()); ++i)
    {
        idx[i] = LevelIndex(x[i], q, dither.NextValue());
    }
    i += LevelBlocks(x + i, n - i, q, dither, idx + i);
    for (; i < n; ++i)
    {
        idx[i] = LevelIndex(x[i], q, dither.NextValue());
    }
}

} // namespace fedran::internal
