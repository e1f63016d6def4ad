#include "compression/internal/magnitude-filter.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#    include <emmintrin.h>
#endif

namespace fedran::internal
{

namespace
{

constexpr size_t kFilterBlock = 16;

/// Output cursor over two vectors that grow in steps, so the hot loop stores through plain
/// pointers instead of push_back's capacity check; Finish() trims to what was written.
class Sink
{
  public:
    Sink(std::vector<uint32_t>& indices, std::vector<float>& values)
        : m_indices(indices)
        , m_values(values)
        , m_size(indices.size())
    {
        values.resize(m_size);
    }

    /// Makes room for one more block of hits.
    void Reserve()
    {
        if (m_size + kFilterBlock > m_indices.size())
        {
            size_t grown = std::max<size_t>(2 * m_indices.size(), m_size + 64 * kFilterBlock);
            // Up to the reserved capacity first: growing past it copies both buffers.
            if (grown > m_indices.capacity() && m_size + kFilterBlock <= m_indices.capacity())
            {
                grown = m_indices.capacity();
            }
            m_indices.resize(grown);
            m_values.resize(grown);
        }
    }

    void Push(uint32_t index, float value)
    {
        m_indices[m_size] = index;
        m_values[m_size] = value;
        ++m_size;
    }

    void Finish()
    {
        m_indices.resize(m_size);
        m_values.resize(m_size);
    }

  private:
    std::vector<uint32_t>& m_indices;
    std::vector<float>& m_values;
    size_t m_size;
};

void
CollectScalar(const float* x, size_t begin, size_t end, uint32_t minKey, Sink& sink)
{
    for (size_t i = begin; i < end; ++i)
    {
        if (MagnitudeKey(x[i]) >= minKey)
        {
            sink.Reserve();
            sink.Push(static_cast<uint32_t>(i), x[i]);
        }
    }
}

/// The block's 16 hit lanes as a bit mask (SSE2): bit j set when key(p[j]) >= cut + 1.
#if defined(__SSE2__)
unsigned
HitMask(const float* p, __m128i signMask, __m128i cut)
{
    auto hits = [&](size_t lane) {
        __m128i v;
        std::memcpy(&v, p + 4 * lane, sizeof(v));
        return _mm_cmpgt_epi32(_mm_and_si128(v, signMask), cut);
    };
    const __m128i h0 = hits(0);
    const __m128i h1 = hits(1);
    const __m128i h2 = hits(2);
    const __m128i h3 = hits(3);
    const __m128i any = _mm_or_si128(_mm_or_si128(h0, h1), _mm_or_si128(h2, h3));
    if (_mm_movemask_epi8(any) == 0)
    {
        return 0;
    }
    return unsigned(_mm_movemask_ps(_mm_castsi128_ps(h0))) |
           unsigned(_mm_movemask_ps(_mm_castsi128_ps(h1))) << 4 |
           unsigned(_mm_movemask_ps(_mm_castsi128_ps(h2))) << 8 |
           unsigned(_mm_movemask_ps(_mm_castsi128_ps(h3))) << 12;
}
#endif

void
PushHits(const float* p, size_t i, unsigned mask, Sink& sink)
{
    sink.Reserve();
    do
    {
        const unsigned lane = __builtin_ctz(mask);
        sink.Push(static_cast<uint32_t>(i + lane), p[lane]);
        mask &= mask - 1;
    } while (mask != 0);
}

} // namespace

void
Compensation::Apply(std::span<float> e, size_t begin, size_t end) const
{
    float* out = e.data();
    const float* in = g.data();
    if (fresh)
    {
        for (size_t i = begin; i < end; ++i)
        {
            out[i] = in[i] + 0.0f;
        }
        return;
    }
    const float b = beta;
    for (size_t i = begin; i < end; ++i)
    {
        out[i] = in[i] + b * out[i];
    }
}

namespace
{

/// The streaming pass of both entry points: for each block of 16 (and then the tail),
/// form(begin, end) first (nothing for CollectAtLeast; error feedback's p for the compensated
/// form, while the block is in L1), then the block's hits go to `sink`.
template<typename Form>
void
CollectFormed(const float* data, size_t n, uint32_t minKey, Sink& sink, Form form)
{
    size_t i = 0;
    if (minKey > 0x7fffffffu)
    {
        form(size_t{0}, n);
        sink.Finish();
        return;
    }
#if defined(__SSE2__)
    // key >= minKey  <=>  key > minKey - 1, as a signed compare: keys and minKey - 1 are in
    // [-1, 2^31 - 1], where signed and unsigned order agree.
    const __m128i signMask = _mm_set1_epi32(0x7fffffff);
    const __m128i cut = _mm_set1_epi32(static_cast<int32_t>(minKey) - 1);
    for (; i + kFilterBlock <= n; i += kFilterBlock)
    {
        form(i, i + kFilterBlock);
        const unsigned mask = HitMask(data + i, signMask, cut);
        if (mask != 0)
        {
            PushHits(data + i, i, mask, sink);
        }
    }
#endif
    form(i, n);
    CollectScalar(data, i, n, minKey, sink);
    sink.Finish();
}

} // namespace

void
CollectAtLeast(std::span<const float> x,
               uint32_t minKey,
               std::vector<uint32_t>& indices,
               std::vector<float>& values)
{
    Sink sink(indices, values);
    CollectFormed(x.data(), x.size(), minKey, sink, [](size_t, size_t) {});
}

void
CollectAtLeastCompensated(const Compensation& compensation,
                          std::span<float> e,
                          uint32_t minKey,
                          std::vector<uint32_t>& indices,
                          std::vector<float>& values)
{
    Sink sink(indices, values);
    float* data = e.data();
    CollectFormed(data, e.size(), minKey, sink, [&](size_t begin, size_t end) {
#if defined(__SSE2__)
        if (end - begin == kFilterBlock)
        {
            // The same operations as Compensation::At, four lanes at a time.
            const float* g = compensation.g.data();
            const __m128 beta = _mm_set1_ps(compensation.beta);
            for (size_t i = begin; i < end; i += 4)
            {
                const __m128 term = compensation.fresh ? _mm_setzero_ps()
                                                       : _mm_mul_ps(beta, _mm_loadu_ps(data + i));
                _mm_storeu_ps(data + i, _mm_add_ps(_mm_loadu_ps(g + i), term));
            }
            return;
        }
#endif
        compensation.Apply(e, begin, end);
    });
}

void
MomentumStep::Apply(float* u, float* v, size_t begin, size_t end) const
{
    const float* in = g.data();
    const float m = momentum;
    const float s = scale;
    switch (before)
    {
        case Before::Zero:
            for (size_t i = begin; i < end; ++i)
            {
                u[i] = s * in[i] + 0.0f;
            }
            return;
        case Before::VIsU:
            for (size_t i = begin; i < end; ++i)
            {
                const float before = u[i];
                u[i] = m * before + s * in[i];
                v[i] = before + u[i];
            }
            return;
        case Before::Separate:
            break;
    }
    for (size_t i = begin; i < end; ++i)
    {
        u[i] = m * u[i] + s * in[i];
        v[i] += u[i];
    }
}

void
CollectAtLeastStepped(const MomentumStep& step,
                      float* u,
                      float* v,
                      size_t n,
                      uint32_t minKey,
                      std::vector<uint32_t>& indices,
                      std::vector<float>& values)
{
    Sink sink(indices, values);
    CollectFormed(v, n, minKey, sink, [&](size_t begin, size_t end) {
#if defined(__SSE2__)
        if (end - begin == kFilterBlock)
        {
            // The same operations as MomentumStep::Apply, four lanes at a time.
            const float* g = step.g.data();
            const __m128 m = _mm_set1_ps(step.momentum);
            const __m128 s = _mm_set1_ps(step.scale);
            for (size_t i = begin; i < end; i += 4)
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
            return;
        }
#endif
        step.Apply(u, v, begin, end);
    });
}

} // namespace fedran::internal
