// QsgdCodeReader (qsgd-coding.h): the lookup tables built once per s, and the loops that read
// a payload's codes back, four buckets interleaved where they can be, with each failure named
// by its payload offset. qsgd-coding.cc writes them.

#include "compression/internal/qsgd-coding.h"
#include "compression/internal/scales.h"
#include "compression/internal/simd-level.h"

#include <bit>
#include <string>

namespace fedran::internal
{

namespace
{

constexpr uint32_t kMaxMultiLevels = 127; ///< levels fit an int8
constexpr unsigned kTableBits = 11;       ///< stream bits per single-code lookup
constexpr uint32_t kTableMask = (1u << kTableBits) - 1;

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

} // namespace

std::shared_ptr<const QsgdCodeReader>
QsgdCodeReader::For(uint32_t levels)
{
    return SharedQsgdCoder<QsgdCodeReader>(levels);
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
