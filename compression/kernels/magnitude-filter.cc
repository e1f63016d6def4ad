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

} // namespace

void
CollectAtLeast(std::span<const float> x,
               uint32_t minKey,
               std::vector<uint32_t>& indices,
               std::vector<float>& values)
{
    Sink sink(indices, values);
    const float* data = x.data();
    const size_t n = x.size();
    size_t i = 0;
    if (minKey > 0x7fffffffu)
    {
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
        const float* p = data + i;
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
            continue;
        }
        unsigned mask = unsigned(_mm_movemask_ps(_mm_castsi128_ps(h0))) |
                        unsigned(_mm_movemask_ps(_mm_castsi128_ps(h1))) << 4 |
                        unsigned(_mm_movemask_ps(_mm_castsi128_ps(h2))) << 8 |
                        unsigned(_mm_movemask_ps(_mm_castsi128_ps(h3))) << 12;
        sink.Reserve();
        do
        {
            const unsigned lane = __builtin_ctz(mask);
            sink.Push(static_cast<uint32_t>(i + lane), p[lane]);
            mask &= mask - 1;
        } while (mask != 0);
    }
#endif
    CollectScalar(data, i, n, minKey, sink);
    sink.Finish();
}

} // namespace fedran::internal
