// BitReader: see internal/bit-stream.h for the bit order and the Elias codes.

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

/// UnpackCodes8 on both 64-bit halves of `x` at once.
__m128i
UnpackCodes16(__m128i x, unsigned bits)
{
    const __m128i b1 = _mm_cvtsi32_si128(static_cast<int>(bits));
    const __m128i b2 = _mm_cvtsi32_si128(static_cast<int>(2 * bits));
    const __m128i b4 = _mm_cvtsi32_si128(static_cast<int>(4 * bits));
    const __m128i m4 = _mm_set1_epi64x(static_cast<long long>((uint64_t{1} << (4 * bits)) - 1));
    const __m128i m2 = _mm_set1_epi32(static_cast<int>((1u << (2 * bits)) - 1));
    const __m128i m1 = _mm_set1_epi16(static_cast<short>((1u << bits) - 1));
    x = _mm_or_si128(_mm_and_si128(x, m4),
                     _mm_slli_epi64(_mm_and_si128(_mm_srl_epi64(x, b4), m4), 32));
    x = _mm_or_si128(_mm_and_si128(x, m2),
                     _mm_slli_epi32(_mm_and_si128(_mm_srl_epi32(x, b2), m2), 16));
    return _mm_or_si128(_mm_and_si128(x, m1),
                        _mm_slli_epi16(_mm_and_si128(_mm_srl_epi16(x, b1), m1), 8));
}

} // namespace
#endif

BitReader::BitReader(std::span<const uint8_t> data, size_t baseOffset)
    : m_data(data)
    , m_base(baseOffset)
{
}

void
BitReader::FailAt(const std::string& what, uint64_t bitPos) const
{
    throw DecodeError(what, OffsetOf(bitPos));
}

void
BitReader::Require(uint64_t bits) const
{
    if (bits > BitsRemaining())
    {
        FailAt("truncated bit stream: need " + std::to_string(bits) + " bits, " +
                   std::to_string(BitsRemaining()) + " remain",
               m_pos);
    }
}

uint64_t
BitReader::Peek(unsigned& valid) const
{
    const uint64_t byte = m_pos / 8;
    const unsigned shift = static_cast<unsigned>(m_pos % 8);
    if (byte + 8 <= m_data.size())
    {
        valid = 64 - shift;
        return LoadLe64(m_data.data() + byte) >> shift;
    }
    uint64_t word = 0;
    for (uint64_t k = byte; k < m_data.size(); ++k)
    {
        word |= uint64_t{m_data[k]} << (8 * (k - byte));
    }
    valid = static_cast<unsigned>(8 * (m_data.size() - byte) - shift);
    return word >> shift;
}

uint64_t
BitReader::ReadBits(unsigned count)
{
    if (count > 64)
    {
        throw std::invalid_argument("ReadBits: at most 64 bits at a time");
    }
    if (count == 0)
    {
        return 0;
    }
    Require(count);
    if (count > 56)
    {
        const uint64_t low = ReadBits(32);
        return low | ReadBits(count - 32) << 32;
    }
    unsigned valid;
    const uint64_t word = Peek(valid);
    m_pos += count;
    return word & LowMask(count);
}

uint64_t
BitReader::ReadEliasGamma()
{
    const uint64_t start = m_pos;
    unsigned zeros = 0;
    for (;;)
    {
        unsigned valid;
        const uint64_t word = Peek(valid);
        if (valid == 0)
        {
            FailAt("truncated Elias code", m_pos);
        }
        if (word != 0)
        {
            const unsigned tz = static_cast<unsigned>(std::countr_zero(word));
            zeros += tz;
            m_pos += tz + 1;
            break;
        }
        zeros += valid;
        m_pos += valid;
        if (zeros > 63)
        {
            break;
        }
    }
    // Each pass consumes at least 57 bits or ends, so at most three passes reach this point.
    if (zeros > 63)
    {
        FailAt("Elias code with " + std::to_string(zeros) +
                   "+ leading zeros: its value would not fit in 64 bits",
               start);
    }
    return (uint64_t{1} << zeros) | ReadBits(zeros);
}

uint64_t
BitReader::ReadEliasDelta()
{
    const uint64_t start = m_pos;
    const uint64_t length = ReadEliasGamma();
    if (length > 64)
    {
        FailAt("Elias delta code of a " + std::to_string(length) + "-bit value", start);
    }
    const unsigned n = static_cast<unsigned>(length - 1);
    return (uint64_t{1} << n) | ReadBits(n);
}

void
BitReader::ReadPacked(std::span<uint8_t> codes, unsigned bits)
{
    CheckCodeWidth(bits);
    const size_t n = codes.size();
    Require(static_cast<uint64_t>(n) * bits);
    size_t i = 0;
    if (m_pos % 8 == 0)
    {
        // Byte-aligned: 8 codes per `bits` bytes, while 8 bytes can be loaded.
        const uint8_t* p = m_data.data() + m_pos / 8;
        const uint8_t* const end = m_data.data() + m_data.size();
        if (bits == 8)
        {
            if (n != 0)
            {
                std::memcpy(codes.data(), p, n);
            }
            m_pos += 8 * static_cast<uint64_t>(n);
            return;
        }
#if defined(__SSE2__)
        for (; n - i >= 16 && end - p >= static_cast<ptrdiff_t>(bits) + 8; i += 16, p += 2 * bits)
        {
            const __m128i x =
                _mm_unpacklo_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)),
                                   _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + bits)));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(codes.data() + i), UnpackCodes16(x, bits));
        }
#endif
        for (; n - i >= 8 && end - p >= 8; i += 8, p += bits)
        {
            StoreLe64(codes.data() + i, UnpackCodes8(LoadLe64(p), bits));
        }
        m_pos = 8 * static_cast<uint64_t>(p - m_data.data());
    }
    for (; n - i >= 8; i += 8)
    {
        StoreLe64(codes.data() + i, UnpackCodes8(ReadBits(8 * bits), bits));
    }
    for (; i < n; ++i)
    {
        codes[i] = static_cast<uint8_t>(ReadBits(bits));
    }
}

void
BitReader::SkipPadding()
{
    const unsigned pad = static_cast<unsigned>((8 - m_pos % 8) % 8);
    const uint64_t start = m_pos;
    if (pad != 0 && ReadBits(pad) != 0)
    {
        FailAt("non-zero padding bits", start);
    }
}

void
BitReader::Seek(uint64_t pos)
{
    if (pos > 8 * static_cast<uint64_t>(m_data.size()))
    {
        FailAt("truncated bit stream", 8 * static_cast<uint64_t>(m_data.size()));
    }
    m_pos = pos;
}

} // namespace fedran::internal
