#ifndef FEDRAN_COMPRESSION_INTERNAL_MAGNITUDE_FORMS_H
#define FEDRAN_COMPRESSION_INTERNAL_MAGNITUDE_FORMS_H

// What the streaming pass of magnitude-filter.cc forms in each block of 16 before it collects
// the block's hits: nothing (CollectAtLeast), error feedback's p = g + beta * e, or DGC's
// momentum step. Each form computes the same bits on every path (scalar, SSE2, AVX2): the same
// float operations in the same order, each rounded on its own (no fused multiply-add is ever
// enabled). Private to the kernels.

#include "compression/internal/magnitude-filter.h"

#include <cstddef>

#if defined(__SSE2__)
#    include <emmintrin.h>
#endif
#if defined(__x86_64__)
#    include <immintrin.h>
#endif

namespace fedran::internal
{

/// Elements per block of the streaming pass (four SSE2 or two AVX2 vectors, one cache line).
constexpr size_t kFilterBlock = 16;

#if defined(__SSE2__)
/// Forms the block of 16 at `x` in place, y = f(x) four lanes at a time, writing it back only
/// if some lane's bits changed: state formed in the memory of the update it starts from
/// (Codec::EncodeConsuming) from zero is g + 0.0f or s * g + 0.0f, which for s = 1 (no
/// clipping) only changes -0.0 and signalling NaNs, so almost every block costs a read and no
/// write.
template<typename Form>
inline void
FormBlockInPlace(float* x, Form form)
{
    __m128 y[4];
    __m128i changed = _mm_setzero_si128();
    for (size_t j = 0; j < 4; ++j)
    {
        const __m128 before = _mm_loadu_ps(x + 4 * j);
        y[j] = form(before);
        changed =
            _mm_or_si128(changed, _mm_xor_si128(_mm_castps_si128(before), _mm_castps_si128(y[j])));
    }
    if (_mm_movemask_epi8(_mm_cmpeq_epi32(changed, _mm_setzero_si128())) == 0xffff)
    {
        return;
    }
    for (size_t j = 0; j < 4; ++j)
    {
        _mm_storeu_ps(x + 4 * j, y[j]);
    }
}
#endif

#if defined(__x86_64__)
/// FormBlockInPlace with y = x + 0.0f, or scale * x + 0.0f when `scale` is given, eight
/// lanes at a time (the same operations, each rounded on its own: no fused multiply-add is
/// enabled here); the block's 16 values are left in y[0..1].
__attribute__((target("avx2"))) inline void
FormBlockInPlaceAvx2(float* x, const float* scale, __m256* y)
{
    __m256i changed = _mm256_setzero_si256();
    for (size_t j = 0; j < 2; ++j)
    {
        const __m256 before = _mm256_loadu_ps(x + 8 * j);
        const __m256 scaled =
            scale != nullptr ? _mm256_mul_ps(_mm256_set1_ps(*scale), before) : before;
        y[j] = _mm256_add_ps(scaled, _mm256_setzero_ps());
        changed = _mm256_or_si256(
            changed,
            _mm256_xor_si256(_mm256_castps_si256(before), _mm256_castps_si256(y[j])));
    }
    if (_mm256_testz_si256(changed, changed))
    {
        return;
    }
    _mm256_storeu_ps(x, y[0]);
    _mm256_storeu_ps(x + 8, y[1]);
}
#endif

/// What the pass forms in each block before collecting its hits: nothing (CollectAtLeast).
/// A form has Range (scalar, any span), Block (SSE2, the block of 16 at i) and BlockAvx2 (the
/// same operations eight lanes at a time), which all give the same bits.
struct NoForm
{
    void Range(size_t /* begin */, size_t /* end */) const
    {
    }

    /// Requests the lines of element i of every stream the form and the compare read.
    void Prefetch(const float* x, size_t i) const
    {
        __builtin_prefetch(x + i);
    }

    void Block(size_t /* i */) const
    {
    }

#if defined(__x86_64__)
    __attribute__((target("avx2"))) void BlockAvx2(const float* x, size_t i, __m256* y) const
    {
        y[0] = _mm256_loadu_ps(x + i);
        y[1] = _mm256_loadu_ps(x + i + 8);
    }
#endif
};

/// Error feedback's p = g + beta * e, formed in e (Compensation).
struct CompensatedForm
{
    const Compensation& compensation;
    float* e;

    /// p is formed where g is (EncodeConsuming's first call): only changed blocks are written.
    bool InPlace() const
    {
        return compensation.fresh && compensation.g.data() == e;
    }

    void Range(size_t begin, size_t end) const
    {
        compensation.Apply(std::span<float>(e, end), begin, end);
    }

    void Prefetch(const float* /* e */, size_t i) const
    {
        __builtin_prefetch(e + i);
        if (!compensation.fresh)
        {
            __builtin_prefetch(compensation.g.data() + i);
        }
    }

#if defined(__SSE2__)
    void Block(size_t begin) const
    {
        // The same operations as Compensation::At, four lanes at a time.
        if (InPlace())
        {
            FormBlockInPlace(e + begin, [](__m128 x) { return _mm_add_ps(x, _mm_setzero_ps()); });
            return;
        }
        const float* g = compensation.g.data();
        const __m128 beta = _mm_set1_ps(compensation.beta);
        for (size_t i = begin; i < begin + kFilterBlock; i += 4)
        {
            const __m128 term =
                compensation.fresh ? _mm_setzero_ps() : _mm_mul_ps(beta, _mm_loadu_ps(e + i));
            _mm_storeu_ps(e + i, _mm_add_ps(_mm_loadu_ps(g + i), term));
        }
    }
#endif

#if defined(__x86_64__)
    __attribute__((target("avx2"))) void BlockAvx2(const float* /* e */,
                                                   size_t begin,
                                                   __m256* y) const
    {
        if (InPlace())
        {
            FormBlockInPlaceAvx2(e + begin, nullptr, y);
            return;
        }
        const float* g = compensation.g.data();
        const __m256 beta = _mm256_set1_ps(compensation.beta);
        for (size_t j = 0; j < 2; ++j)
        {
            const size_t i = begin + 8 * j;
            const __m256 term = compensation.fresh ? _mm256_setzero_ps()
                                                   : _mm256_mul_ps(beta, _mm256_loadu_ps(e + i));
            y[j] = _mm256_add_ps(_mm256_loadu_ps(g + i), term);
            _mm256_storeu_ps(e + i, y[j]);
        }
    }
#endif
};

/// DGC's u = momentum * u + scale * g and v = v + u (MomentumStep).
struct SteppedForm
{
    const MomentumStep& step;
    float* u;
    float* v;

    /// u is formed where g is from zero (EncodeConsuming's first call): only changed blocks
    /// are written, and v is u.
    bool InPlace() const
    {
        return step.before == MomentumStep::Before::Zero && step.g.data() == u;
    }

    void Range(size_t begin, size_t end) const
    {
        step.Apply(u, v, begin, end);
    }

    void Prefetch(const float* /* v */, size_t i) const
    {
        __builtin_prefetch(step.g.data() + i);
        if (!InPlace())
        {
            __builtin_prefetch(u + i);
        }
        if (step.before == MomentumStep::Before::Separate)
        {
            __builtin_prefetch(v + i);
        }
    }

#if defined(__SSE2__)
    void Block(size_t begin) const
    {
        // The same operations as MomentumStep::Apply, four lanes at a time.
        const float* g = step.g.data();
        const __m128 m = _mm_set1_ps(step.momentum);
        const __m128 s = _mm_set1_ps(step.scale);
        if (InPlace())
        {
            FormBlockInPlace(u + begin, [&](__m128 x) {
                return _mm_add_ps(_mm_mul_ps(s, x), _mm_setzero_ps());
            });
            return;
        }
        for (size_t i = begin; i < begin + kFilterBlock; i += 4)
        {
            const __m128 scaled = _mm_mul_ps(s, _mm_loadu_ps(g + i));
            if (step.before == MomentumStep::Before::Zero)
            {
                _mm_storeu_ps(u + i, _mm_add_ps(scaled, _mm_setzero_ps()));
                continue;
            }
            const __m128 uBefore = _mm_loadu_ps(u + i);
            const __m128 uAfter = _mm_add_ps(_mm_mul_ps(m, uBefore), scaled);
            _mm_storeu_ps(u + i, uAfter);
            const __m128 vBefore =
                step.before == MomentumStep::Before::VIsU ? uBefore : _mm_loadu_ps(v + i);
            _mm_storeu_ps(v + i, _mm_add_ps(vBefore, uAfter));
        }
    }
#endif

#if defined(__x86_64__)
    __attribute__((target("avx2"))) void BlockAvx2(const float* /* v */,
                                                   size_t begin,
                                                   __m256* y) const
    {
        if (InPlace())
        {
            FormBlockInPlaceAvx2(u + begin, &step.scale, y);
            return;
        }
        const float* g = step.g.data();
        const __m256 m = _mm256_set1_ps(step.momentum);
        const __m256 s = _mm256_set1_ps(step.scale);
        for (size_t j = 0; j < 2; ++j)
        {
            const size_t i = begin + 8 * j;
            const __m256 scaled = _mm256_mul_ps(s, _mm256_loadu_ps(g + i));
            if (step.before == MomentumStep::Before::Zero)
            {
                y[j] = _mm256_add_ps(scaled, _mm256_setzero_ps());
                _mm256_storeu_ps(u + i, y[j]);
                continue;
            }
            const __m256 uBefore = _mm256_loadu_ps(u + i);
            const __m256 uAfter = _mm256_add_ps(_mm256_mul_ps(m, uBefore), scaled);
            _mm256_storeu_ps(u + i, uAfter);
            const __m256 vBefore =
                step.before == MomentumStep::Before::VIsU ? uBefore : _mm256_loadu_ps(v + i);
            y[j] = _mm256_add_ps(vBefore, uAfter);
            _mm256_storeu_ps(v + i, y[j]);
        }
    }
#endif
};

} // namespace fedran::internal

#endif
