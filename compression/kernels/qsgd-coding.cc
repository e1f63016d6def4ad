#include "compression/internal/qsgd-coding.h"

#include "compression/internal/scales.h"
#include "compression/internal/simd-level.h"

#include <algorithm>
#include <bit>
#include <map>
#include <mutex>
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
constexpr uint32_t kMaxMultiLevels = 127;   ///< levels fit an int8
constexpr unsigned kTableBits = 11;         ///< stream bits per single-code lookup
constexpr uint32_t kTableMask = (1u << kTableBits) - 1;

uint64_t
CodeBits(uint32_t level, uint32_t negative)
{
    const unsigned gamma = EliasGammaLength(uint64_t{level} + 1);
    const uint64_t sign = level > 0 ? uint64_t{negative} << gamma : 0;
    return EliasGammaBits(uint64_t{level} + 1) | sign;
}

/// Parses one code from the low `available` bits of `bits`; false if it does not fit or its
/// level exceeds s (the slow path then reports the error).
bool
ParseCode(uint32_t bits, unsigned available, uint32_t levels, int32_t& level, unsigned& length)
{
    const uint32_t window = available >= 32 ? bits : bits & ((1u << available) - 1);
    if (window == 0)
    {
        return false;
    }
    const auto zeros = static_cast<unsigned>(std::countr_zero(window));
    length = 2 * zeros + 1;
    if (length > available)
    {
        return false;
    }
    const uint32_t value = (1u << zeros) | ((bits >> (zeros + 1)) & ((1u << zeros) - 1));
    if (value > levels + 1)
    {
        return false;
    }
    level = static_cast<int32_t>(value - 1);
    if (level > 0)
    {
        if (length + 1 > available)
        {
            return false;
        }
        level = (bits >> length) & 1 ? -level : level;
        ++length;
    }
    return true;
}

/// The coders of the last few s used in this process. Bounded, because a decoder meets
/// whatever s a payload claims.
template<typename Coder>
std::shared_ptr<const Coder>
SharedCoder(uint32_t levels)
{
    static std::mutex mutex;
    static std::map<uint32_t, std::shared_ptr<const Coder>> cache;
    constexpr size_t kCapacity = 8;
    const std::lock_guard<std::mutex> lock(mutex);
    auto& coder = cache[levels];
    if (!coder)
    {
        if (cache.size() > kCapacity)
        {
            // Drop another entry (the holders keep theirs alive).
            cache.erase(cache.begin()->first != levels ? cache.begin() : std::next(cache.begin()));
        }
        coder = std::make_shared<const Coder>(levels);
    }
    return coder;
}

} // namespace

std::shared_ptr<const QsgdCodeWriter>
QsgdCodeWriter::For(uint32_t levels)
{
    return SharedCoder<QsgdCodeWriter>(levels);
}

std::shared_ptr<const QsgdCodeReader>
QsgdCodeReader::For(uint32_t levels)
{
    return SharedCoder<QsgdCodeReader>(levels);
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

QsgdCodeReader::QsgdCodeReader(uint32_t levels)
    : m_levels(levels)
    , m_maxZeros(static_cast<unsigned>(std::bit_width(levels + 1)) - 1)
    , m_maxLength(QsgdCodeLength(levels))
    , m_single(size_t{1} << kTableBits, 0)
{
    for (uint32_t bits = 0; bits <= kTableMask; ++bits)
    {
        int32_t level;
        unsigned length;
        if (ParseCode(bits, kTableBits, levels, level, length))
        {
            m_single[bits] = static_cast<int32_t>(static_cast<uint32_t>(level) << 8 | length);
        }
    }
    if (levels <= kMaxMultiLevels)
    {
        m_multi.resize(size_t{1} << kQsgdMultiBits);
        for (uint32_t bits = 0; bits <= kQsgdMultiMask; ++bits)
        {
            unsigned used = 0;
            unsigned count = 0;
            uint64_t entry = 0;
            int32_t level;
            unsigned length;
            while (count < kQsgdMultiCodes &&
                   ParseCode(bits >> used, kQsgdMultiBits - used, levels, level, length))
            {
                entry |= uint64_t{static_cast<uint32_t>(level) & 0xFF} << (8 * count);
                used += length;
                ++count;
            }
            m_multi[bits] = entry | uint64_t{count} << 48 | uint64_t{used} << 56;
        }
    }
}

int32_t
QsgdCodeReader::ReadLong(BitReader& bits, uint64_t& pos) const
{
    const uint64_t start = pos;
    uint64_t value;
    if (pos < bits.FastLimit())
    {
        // Every valid code fits in the 57 peeked bits.
        const uint64_t word = bits.PeekFast(pos);
        const auto zeros = static_cast<unsigned>(std::countr_zero(word));
        if (zeros > m_maxZeros)
        {
            bits.FailAt("Elias code too long for s = " + std::to_string(m_levels), start);
        }
        value = (uint64_t{1} << zeros) | ((word >> (zeros + 1)) & ((uint64_t{1} << zeros) - 1));
        pos += 2 * zeros + 1;
    }
    else
    {
        bits.Seek(pos);
        value = bits.ReadEliasGamma();
        pos = bits.BitPosition();
    }
    if (value > uint64_t{m_levels} + 1)
    {
        bits.FailAt("level " + std::to_string(value - 1) +
                        " exceeds s = " + std::to_string(m_levels),
                    start);
    }
    auto level = static_cast<int32_t>(value - 1);
    if (level > 0)
    {
        bits.Seek(pos);
        if (bits.ReadBits(1) != 0)
        {
            level = -level;
        }
        ++pos;
    }
    return level;
}

int32_t
QsgdCodeReader::ReadOne(BitReader& bits, uint64_t& pos) const
{
    if (pos < bits.FastLimit())
    {
        const int32_t entry = m_single[bits.PeekFast(pos) & kTableMask];
        if (entry != 0)
        {
            pos += static_cast<uint32_t>(entry) & 0xFF;
            return entry >> 8;
        }
    }
    return ReadLong(bits, pos);
}

uint64_t
QsgdCodeReader::StoreLong(BitReader& bits, uint64_t pos, float* out, float scale) const
{
    *out = static_cast<float>(ReadLong(bits, pos)) * scale;
    return pos;
}

void
QsgdCodeReader::FailLength(const QsgdBuckets& buckets, size_t j, uint64_t used) const
{
    throw DecodeError("the codes of bucket " + std::to_string(j) + " take " + std::to_string(used) +
                          " bits, its length field says " +
                          std::to_string(buckets.starts[j + 1] - buckets.starts[j]),
                      buckets.lengthsAt + j * buckets.lengthBytes);
}

void
QsgdCodeReader::ReadBucket(BitReader& bits, const QsgdBuckets& buckets, size_t j) const
{
    const size_t first = j * size_t{buckets.size};
    const size_t n = std::min<size_t>(buckets.size, buckets.out.size() - first);
    const float step = ScaleAt(buckets.norms, j) / static_cast<float>(m_levels);
    float* out = buckets.out.data() + first;
    uint64_t pos = buckets.starts[j];
    for (size_t i = 0; i < n; ++i)
    {
        out[i] = static_cast<float>(ReadOne(bits, pos)) * step;
    }
    if (pos != buckets.starts[j + 1])
    {
        FailLength(buckets, j, pos - buckets.starts[j]);
    }
}

void
QsgdCodeReader::ReadBuckets(BitReader& bits, const QsgdBuckets& buckets) const
{
    try
    {
        if (ReadInterleaved(bits, buckets))
        {
            return;
        }
    }
    catch (const DecodeError&)
    {
        // The interleaved order may meet a later bucket's error first: decode again in order
        // below, which throws the first one, so that every path reports the same error.
    }
    for (size_t j = 0; j + 1 < buckets.starts.size(); ++j)
    {
        ReadBucket(bits, buckets, j);
    }
}

bool
QsgdCodeReader::ReadInterleaved(BitReader& bits, const QsgdBuckets& buckets) const
{
#if defined(__x86_64__)
    if (!m_multi.empty() && ActiveSimdLevel() >= SimdLevel::kAvx2)
    {
        ReadInterleavedAvx2(bits, buckets);
        return true;
    }
#endif
    return false;
}

} // namespace fedran::internal
