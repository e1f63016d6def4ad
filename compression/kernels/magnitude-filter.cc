#include "compression/internal/magnitude-filter.h"

#include "compression/internal/magnitude-forms.h"
#include "compression/internal/simd-level.h"

#include <algorithm>
#include <cstring>

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

/// The streaming pass requests each line this many elements (2 KiB) before it reaches it: the
/// hardware prefetcher alone left one thread of the machine in docs/performance.md reading
/// 100 MB in 15 ms with error feedback's form and 11.6 ms with this.
constexpr size_t kPrefetchAhead = 512;

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

#if defined(__x86_64__)
/// CollectFormed's whole blocks with 32-byte loads and 8-lane compares: the same hits in the
/// same order. Worth it for the memory it streams rather than the compares: one thread of the
/// machine in docs/performance.md reads 100 MB in 10 ms with 32-byte loads and in 16 ms with
/// 16-byte ones. Returns where the blocks end.
template<typename Form>
__attribute__((target("avx2"))) size_t
CollectBlocksAvx2(const float* data, size_t n, uint32_t minKey, Sink& sink, const Form& form)
{
    const __m256i signMask = _mm256_set1_epi32(0x7fffffff);
    const __m256i cut = _mm256_set1_epi32(static_cast<int32_t>(minKey) - 1);
    size_t i = 0;
    for (; i + kFilterBlock <= n; i += kFilterBlock)
    {
        if (i + kPrefetchAhead < n)
        {
            form.Prefetch(data, i + kPrefetchAhead);
        }
        __m256 y[2];
        form.BlockAvx2(data, i, y);
        const __m256i h0 =
            _mm256_cmpgt_epi32(_mm256_and_si256(_mm256_castps_si256(y[0]), signMask), cut);
        const __m256i h1 =
            _mm256_cmpgt_epi32(_mm256_and_si256(_mm256_castps_si256(y[1]), signMask), cut);
        const __m256i any = _mm256_or_si256(h0, h1);
        if (!_mm256_testz_si256(any, any))
        {
            const unsigned mask = unsigned(_mm256_movemask_ps(_mm256_castsi256_ps(h0))) |
                                  unsigned(_mm256_movemask_ps(_mm256_castsi256_ps(h1))) << 8;
            PushHits(data + i, i, mask, sink);
        }
    }
    return i;
}
#endif

/// The streaming pass of every entry point: for each block of 16 (and then the tail), the
/// form first (nothing for CollectAtLeast; error feedback's p or DGC's u and v, while the
/// block is in L1), then the block's hits go to `sink`.
template<typename Form>
void
CollectFormed(const float* data, size_t n, uint32_t minKey, Sink& sink, const Form& form)
{
    size_t i = 0;
    if (minKey > 0x7fffffffu)
    {
        form.Range(0, n);
        sink.Finish();
        return;
    }
#if defined(__x86_64__)
    if (ActiveSimdLevel() >= SimdLevel::kAvx2)
    {
        i = CollectBlocksAvx2(data, n, minKey, sink, form);
    }
#endif
#if defined(__SSE2__)
    // key >= minKey  <=>  key > minKey - 1, as a signed compare: keys and minKey - 1 are in
    // [-1, 2^31 - 1], where signed and unsigned order agree.
    const __m128i signMask = _mm_set1_epi32(0x7fffffff);
    const __m128i cut = _mm_set1_epi32(static_cast<int32_t>(minKey) - 1);
    for (; i + kFilterBlock <= n; i += kFilterBlock)
    {
        form.Block(i);
        const unsigned mask = HitMask(data + i, signMask, cut);
        if (mask != 0)
        {
            PushHits(data + i, i, mask, sink);
        }
    }
#endif
    form.Range(i, n);
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
    CollectFormed(x.data(), x.size(), minKey, sink, NoForm{});
}

void
CollectAtLeastCompensated(const Compensation& compensation,
                          std::span<float> e,
                          uint32_t minKey,
                          std::vector<uint32_t>& indices,
                          std::vector<float>& values)
{
    Sink sink(indices, values);
    CollectFormed(e.data(), e.size(), minKey, sink, CompensatedForm{compensation, e.data()});
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
    CollectFormed(v, n, minKey, sink, SteppedForm{step, u, v});
}

} // namespace fedran::internal
