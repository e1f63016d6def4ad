// QsgdCodeWriter (qsgd-coding.h): the code tables built once per s and the loops that append
// codes, four at a time from a table or eight at a time in AVX2 registers; reading them back
// is in qsgd-code-reader.cc.

#include "compression/internal/qsgd-coding.h"

#include "compression/internal/scales.h"
#include "compression/internal/simd-level.h"

#include <algorithm>
#include <bit>
#include <string>

#if defined(__SSE2__)
#    include <emmintrin.h>
#endif

namespace fedran::internal
{

namespace
{

constexpr uint32_t kMaxSingleLevels = 2047; ///< codes of up to 24 bits fit a table entry
constexpr uint32_t kMaxQuadLevels = 31;     ///< quads pay off when levels <= 3 are the rule

uint64_t
CodeBits(uint32_t level, uint32_t negative)
{
    const unsigned gamma = EliasGammaLength(uint64_t{level} + 1);
    const uint64_t sign = level > 0 ? uint64_t{negative} << gamma : 0;
    return EliasGammaBits(uint64_t{level} + 1) | sign;
}

} // namespace

std::shared_ptr<const QsgdCodeWriter>
QsgdCodeWriter::For(uint32_t levels)
{
    return SharedQsgdCoder<QsgdCodeWriter>(levels);
}

QsgdCodeWriter::QsgdCodeWriter(uint32_t levels)
    : m_levels(levels)
    , m_maxLength(QsgdCodeLength(levels))
{
    if (levels <= kMaxSingleLevels)
    {
        m_single.resize(2 * (size_t{levels} + 1));
        for (uint32_t idx = 0; idx < m_single.size(); ++idx)
        {
            const uint32_t level = idx >> 1;
            m_single[idx] = static_cast<uint32_t>(CodeBits(level, idx & 1)) | QsgdCodeLength(level)
                                                                                  << 24;
        }
    }
    if (levels <= kMaxQuadLevels)
    {
        m_quad.resize(size_t{1} << 12);
        for (uint32_t quad = 0; quad < m_quad.size(); ++quad)
        {
            uint64_t code = 0;
            unsigned length = 0;
            for (int k = 0; k < 4; ++k)
            {
                const uint32_t idx = (quad >> (3 * k)) & 7;
                code |= CodeBits(idx >> 1, idx & 1) << length;
                length += QsgdCodeLength(idx >> 1);
            }
            m_quad[quad] = static_cast<uint32_t>(code) | length << 24;
        }
    }
}

BitCursor
QsgdCodeWriter::WriteQuads(BitCursor c, const uint32_t* idx, size_t n) const
{
    // Per 8 elements: two quad indices, and a mask that is non-zero when some idx >= 8.
    uint32_t quads[kMaxCodes / 4];
    uint16_t overflow[kMaxCodes / 8];
    const size_t groups = n / 8;
    size_t g = 0;
#if defined(__SSE2__)
    if (ActiveSimdLevel() >= SimdLevel::kSse2)
    {
        const __m128i seven = _mm_set1_epi16(7);
        const __m128i radix8 = _mm_set1_epi32(1 | 8 << 16);
        const __m128i radix64 = _mm_set1_epi32(1 | 64 << 16);
        for (; groups - g >= 2; g += 2)
        {
            const auto* p = reinterpret_cast<const __m128i*>(idx + 8 * g);
            // Saturation to int16 keeps large idx large, so the masks still flag them.
            const __m128i a = _mm_packs_epi32(_mm_loadu_si128(p), _mm_loadu_si128(p + 1));
            const __m128i b = _mm_packs_epi32(_mm_loadu_si128(p + 2), _mm_loadu_si128(p + 3));
            overflow[g] = static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpgt_epi16(a, seven)));
            overflow[g + 1] = static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpgt_epi16(b, seven)));
            const __m128i halves =
                _mm_packs_epi32(_mm_madd_epi16(a, radix8), _mm_madd_epi16(b, radix8));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(quads + 2 * g),
                             _mm_madd_epi16(halves, radix64));
        }
    }
#endif
    for (; g < groups; ++g)
    {
        const uint32_t* e = idx + 8 * g;
        uint32_t any = 0;
        for (int k = 0; k < 8; ++k)
        {
            any |= e[k] > 7 ? 1u : 0u;
        }
        overflow[g] = static_cast<uint16_t>(any);
        quads[2 * g] = e[0] | e[1] << 3 | e[2] << 6 | e[3] << 9;
        quads[2 * g + 1] = e[4] | e[5] << 3 | e[6] << 6 | e[7] << 9;
    }
    const uint32_t* quad = m_quad.data();
    const uint32_t* single = m_single.data();
    for (g = 0; g < groups; ++g)
    {
        if (overflow[g] == 0) [[likely]]
        {
            const uint32_t first = quad[quads[2 * g]];
            const uint32_t second = quad[quads[2 * g + 1]];
            const unsigned firstLength = first >> 24;
            PutBits(c,
                    (first & 0xFFFFFF) | uint64_t{second & 0xFFFFFF} << firstLength,
                    firstLength + (second >> 24));
            continue;
        }
        // A level above 3: four codes of at most 12 bits (s <= 31) per store.
        for (int half = 0; half < 2; ++half)
        {
            uint64_t bits = 0;
            unsigned length = 0;
            for (int k = 0; k < 4; ++k)
            {
                const uint32_t entry = single[idx[8 * g + 4 * half + k]];
                bits |= uint64_t{entry & 0xFFFFFF} << length;
                length += entry >> 24;
            }
            PutBits(c, bits, length);
        }
    }
    return c;
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) BitCursor
QsgdCodeWriter::WriteAvx2(BitCursor c, const uint32_t* idx, size_t n) const
{
    const __m256i one = _mm256_set1_epi32(1);
    for (size_t i = 0; i < n; i += 8)
    {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(idx + i));
        PutQsgdCodes8Avx2(c, _mm256_srli_epi32(x, 1), _mm256_and_si256(x, one));
    }
    return c;
}
#else
BitCursor
QsgdCodeWriter::WriteAvx2(BitCursor c, const uint32_t*, size_t) const
{
    return c;
}
#endif

void
QsgdCodeWriter::Write(BitWriter& writer, const uint32_t* idx, size_t n) const
{
    BitCursor c = writer.Open(n * m_maxLength);
    size_t i = 0;
#if defined(__x86_64__)
    if (m_levels <= kQsgdMaxAvx2WriteLevels && ActiveSimdLevel() >= SimdLevel::kAvx2)
    {
        i = n & ~size_t{7};
        c = WriteAvx2(c, idx, i);
    }
    else
#endif
        if (!m_quad.empty())
    {
        i = n & ~size_t{7};
        c = WriteQuads(c, idx, i);
    }
    if (!m_single.empty())
    {
        // As many codes as surely fit in 56 bits per store.
        const size_t batch = 56 / m_maxLength;
        const uint32_t* table = m_single.data();
        while (i < n)
        {
            const size_t end = std::min(n, i + batch);
            uint64_t bits = 0;
            unsigned length = 0;
            for (; i < end; ++i)
            {
                const uint32_t entry = table[idx[i]];
                bits |= uint64_t{entry & 0xFFFFFF} << length;
                length += entry >> 24;
            }
            PutBits(c, bits, length);
        }
    }
    for (; i < n; ++i)
    {
        const uint32_t level = idx[i] >> 1;
        PutBits(c, CodeBits(level, idx[i] & 1), QsgdCodeLength(level));
    }
    writer.Commit(c);
}

} // namespace fedran::internal
