#ifndef FEDRAN_MODELS_LEARNING_FMA_VECTOR_IMPL_H
#define FEDRAN_MODELS_LEARNING_FMA_VECTOR_IMPL_H

// Vectors of FEDRAN_GEMM_LANES floats and a fused multiply-add on them that gives the same bits
// on every instruction set, for the portable kernels (gemm-portable-impl.h,
// sparse-conv-impl.h). Included by the per-instruction-set kernel files only, after they define
// FEDRAN_GEMM_LANES; they are compiled with -ffp-contract=off.
//
// Why the bits agree: a lane never meets another lane's value, and each multiply-add is rounded
// once, by the FMA instruction where the instruction set has one and by the double-precision
// emulation below where it does not (SSE2).

#ifndef FEDRAN_GEMM_LANES
#    error "define FEDRAN_GEMM_LANES before including fma-vector-impl.h"
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__AVX512F__) || defined(__FMA__) || defined(__SSE2__)
#    include <immintrin.h>
#endif

namespace fedran::gemm
{

namespace
{

constexpr size_t kLanes = FEDRAN_GEMM_LANES;

typedef float Vec __attribute__((vector_size(kLanes * sizeof(float))));

typedef double Wide2 __attribute__((vector_size(2 * sizeof(double))));
typedef int64_t WideBits2 __attribute__((vector_size(2 * sizeof(double))));
typedef float Pair __attribute__((vector_size(2 * sizeof(float))));

/// p + c in double, rounded to odd: truncated, then its last bit set when the addition was
/// inexact. Rounding that to float gives p + c rounded once, for p exact in double (a product
/// of two floats), because double carries more than twice float's 24 bits plus two.
inline Wide2
SumRoundedToOdd(Wide2 p, Wide2 c)
{
    const Wide2 s = p + c;
    // Knuth's two-sum: s + e == p + c exactly. NaN and inf inputs leave e NaN: no change.
    const Wide2 pv = s - c;
    const Wide2 e = (p - pv) + (c - (s - pv));
    const WideBits2 above = e > 0.0;
    const WideBits2 below = e < 0.0;
    const WideBits2 inexact = above | below;
    // s was rounded away from zero when the error points back towards zero: one step back
    // (the bits of a double order like its magnitude) truncates it.
    const WideBits2 roundedAway = inexact & ~((above & (s > 0.0)) | (below & (s < 0.0)));
    WideBits2 bits;
    std::memcpy(&bits, &s, sizeof bits);
    bits = (bits + roundedAway) | (inexact & 1);
    Wide2 odd;
    std::memcpy(&odd, &bits, sizeof odd);
    return odd;
}

/// kLanes floats from anywhere (b read in place need not be aligned).
inline Vec
LoadVec(const float* p)
{
    Vec v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

/// fma(b, x, acc) in every lane: b * x + acc with one rounding.
inline Vec
FusedMultiplyAdd(Vec b, float x, Vec acc)
{
#if FEDRAN_GEMM_LANES == 16 && defined(__AVX512F__)
    return Vec(_mm512_fmadd_ps(__m512(b), _mm512_set1_ps(x), __m512(acc)));
#elif FEDRAN_GEMM_LANES == 8 && defined(__FMA__)
    return Vec(_mm256_fmadd_ps(__m256(b), _mm256_set1_ps(x), __m256(acc)));
#elif FEDRAN_GEMM_LANES == 4 && defined(__FMA__)
    return Vec(_mm_fmadd_ps(__m128(b), _mm_set1_ps(x), __m128(acc)));
#else
    // No FMA instruction: the product of two floats is exact in double, and their sum is
    // rounded to odd there (SumRoundedToOdd), then once to float. Two doubles at a time: one
    // SSE2 register (wider generic vectors would be compared lane by lane).
#    if FEDRAN_GEMM_LANES == 4 && defined(__SSE2__)
    const __m128 b4 = __m128(b);
    const __m128 c4 = __m128(acc);
    const __m128d xx = _mm_set1_pd(double(x));
    const Wide2 lo =
        SumRoundedToOdd(Wide2(_mm_mul_pd(_mm_cvtps_pd(b4), xx)), Wide2(_mm_cvtps_pd(c4)));
    const Wide2 hi = SumRoundedToOdd(Wide2(_mm_mul_pd(_mm_cvtps_pd(_mm_movehl_ps(b4, b4)), xx)),
                                     Wide2(_mm_cvtps_pd(_mm_movehl_ps(c4, c4))));
    return Vec(_mm_movelh_ps(_mm_cvtpd_ps(__m128d(lo)), _mm_cvtpd_ps(__m128d(hi))));
#    else
    Vec out;
    for (size_t h = 0; h < kLanes; h += 2)
    {
        const Pair bh{b[h], b[h + 1]};
        const Pair ch{acc[h], acc[h + 1]};
        const Pair r =
            __builtin_convertvector(SumRoundedToOdd(__builtin_convertvector(bh, Wide2) * double(x),
                                                    __builtin_convertvector(ch, Wide2)),
                                    Pair);
        out[h] = r[0];
        out[h + 1] = r[1];
    }
    return out;
#    endif
#endif
}

/// kLanes floats to anywhere.
inline void
StoreVec(float* p, Vec v)
{
    std::memcpy(p, &v, sizeof v);
}

/// Accumulators a kernel's inner loop may keep in registers; the rest of the register file
/// holds its operands (32 vector registers with AVX-512, 16 below).
constexpr size_t kAccumulators = kLanes == 16 ? 26 : 12;

} // namespace

} // namespace fedran::gemm

#endif
