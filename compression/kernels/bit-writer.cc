// BitWriter: see internal/bit-stream.h for the bit order and the Elias codes.

#include "compression/internal/bit-stream.h"

#include <algorithm>
#include <stdexcept>

#if defined(__SSE2__)
#    include <emmintrin.h>
#endif

namespace fedran::internal
{

#if defined(__SSE2__)
namespace
{

/// PackCodes8 on both 64-bit halves of `x` at once (16 codes; codes masked to `bits` here).
__m128i
PackCodes16(__m128i x, unsigned bits)
{
    x = _mm_and_si128(x, _mm_set1_epi8(static_cast<char>((1u << bits) - 1)));
    const __m128i b1 = _mm_cvtsi32_si128(static_cast<int>(bits));
    const __m128i b2 = _mm_cvtsi32_si128(static_cast<int>(2 * bits));
    const __m128i b4 = _mm_cvtsi32_si128(static_cast<int>(4 * bits));
    x = _mm_or_si128(_mm_and_si128(x, _mm_set1_epi16(0x00FF)),
                     _mm_sll_epi16(_mm_srli_epi16(x, 8), b1));
    x = _mm_or_si128(_mm_and_si128(x, _mm_set1_epi32(0xFFFF)),
                     _mm_sll_epi32(_mm_srli_epi32(x, 16), b2));
    return _mm_or_si128(_mm_and_si128(x, _mm_set_epi32(0, -1, 0, -1)),
                        _mm_sll_epi64(_mm_srli_epi64(x, 32), b4));
}

} // namespace
#endif

BitWriter::BitWriter(std::vector<uint8_t>& out)
    : m_out(out)
    , m_cursor{m_buffer.data(), 0, 0}
{
}

void
BitWriter::Put(uint64_t value, unsigned count)
{
    if (m_cursor.next >= m_buffer.data() + kBufferBytes)
    {
        Drain();
    }
    PutBits(m_cursor, value, count);
}

void
BitWriter::Drain()
{
    const size_t bytes = static_cast<size_t>(m_cursor.next - m_buffer.data());
    m_out.insert(m_out.end(), m_buffer.data(), m_cursor.next);
    m_drainedBytes += bytes;
    m_cursor.next = m_buffer.data();
}

void
BitWriter::WriteBits(uint64_t value, unsigned count)
{
    if (count > 64)
    {
        throw std::invalid_argument("WriteBits: at most 64 bits at a time");
    }
    value &= LowMask(count);
    if (count > 32)
    {
        Put(value & 0xFFFFFFFFu, 32);
        value >>= 32;
        count -= 32;
    }
    if (count > 0)
    {
        Put(value, count);
    }
}

void
BitWriter::WriteEliasGamma(uint64_t value)
{
    if (value == 0)
    {
        throw std::invalid_argument("Elias codes start at 1");
    }
    const unsigned length = EliasGammaLength(value);
    if (length <= 56)
    {
        Put(EliasGammaBits(value), length);
        return;
    }
    const unsigned n = (length - 1) / 2;
    WriteBits(0, n);
    Put(1, 1);
    WriteBits(value, n); // masks off the leading one
}

void
BitWriter::WriteEliasDelta(uint64_t value)
{
    if (value == 0)
    {
        throw std::invalid_argument("Elias codes start at 1");
    }
    const unsigned n = static_cast<unsigned>(std::bit_width(value)) - 1;
    WriteEliasGamma(n + 1);
    WriteBits(value, n);
}

void
BitWriter::WritePacked(std::span<const uint8_t> codes, unsigned bits)
{
    CheckCodeWidth(bits);
    const uint64_t laneMask = ((uint64_t{1} << bits) - 1) * 0x0101010101010101ull;
    const unsigned half = 4 * bits;
    size_t i = 0;
    const size_t n = codes.size();
    while (n - i >= 8)
    {
        const size_t groups = std::min<size_t>((n - i) / 8, kMaxOpenBits / 64);
        BitCursor c = Open(groups * 8 * bits);
        if (c.bits == 0 && bits == 8)
        {
            std::memcpy(c.next, codes.data() + i, 8 * groups);
            c.next += 8 * groups;
            i += 8 * groups;
        }
        else if (c.bits == 0)
        {
            // Byte-aligned: each group of 8 codes becomes exactly `bits` bytes. The 8-byte
            // stores write zeros past them, which the next group overwrites.
            size_t g = 0;
#if defined(__SSE2__)
            for (; groups - g >= 2; g += 2, i += 16)
            {
                const __m128i x =
                    _mm_loadu_si128(reinterpret_cast<const __m128i*>(codes.data() + i));
                const __m128i packed = PackCodes16(x, bits);
                _mm_storel_epi64(reinterpret_cast<__m128i*>(c.next), packed);
                _mm_storel_epi64(reinterpret_cast<__m128i*>(c.next + bits),
                                 _mm_srli_si128(packed, 8));
                c.next += 2 * bits;
            }
#endif
            for (; g < groups; ++g, i += 8)
            {
                StoreLe64(c.next, PackCodes8(LoadLe64(codes.data() + i) & laneMask, bits));
                c.next += bits;
            }
        }
        else
        {
            for (size_t g = 0; g < groups; ++g, i += 8)
            {
                const uint64_t x = PackCodes8(LoadLe64(codes.data() + i) & laneMask, bits);
                PutBits(c, x & LowMask(half), half);
                PutBits(c, x >> half, half);
            }
        }
        Commit(c);
    }
    for (; i < n; ++i)
    {
        Put(codes[i] & LowMask(bits), bits);
    }
}

void
BitWriter::AlignToByte()
{
    if (m_cursor.bits != 0)
    {
        Put(0, 8 - m_cursor.bits);
    }
}

uint64_t
BitWriter::BitCount() const
{
    return 8 * (m_drainedBytes + static_cast<uint64_t>(m_cursor.next - m_buffer.data())) +
           m_cursor.bits;
}

void
BitWriter::Finish()
{
    AlignToByte();
    Drain();
}

BitCursor
BitWriter::Open(uint64_t maxBits)
{
    if (maxBits > kMaxOpenBits)
    {
        throw std::logic_error("BitWriter::Open: too many bits requested");
    }
    // The last PutBits starts at most maxBits / 8 + 1 bytes on and stores 8 bytes.
    const size_t used = static_cast<size_t>(m_cursor.next - m_buffer.data());
    if (used + maxBits / 8 + 9 > m_buffer.size())
    {
        Drain();
    }
    return m_cursor;
}

} // namespace fedran::internal
