#ifndef FEDRAN_COMPRESSION_INTERNAL_BIT_STREAM_H
#define FEDRAN_COMPRESSION_INTERNAL_BIT_STREAM_H

// Bit-granular serialisation for the quantizing codecs. Private to the compression library.
//
// Bit order is LSB-first: bit i of a stream is bit (i % 8) of byte (i / 8), and WriteBits(v, n)
// stores the n low bits of v there, least significant first. A stream is thus one long
// little-endian integer, so both sides move 57 or more bits per unaligned 64-bit access.
//
// Elias codes, for v >= 1 with N = floor(log2 v):
//   gamma(v)  N zero bits, a one bit, then the N bits of v below its leading one, LSB first
//             (2N + 1 bits);
//   delta(v)  gamma(N + 1), then the N bits of v below its leading one, LSB first.
// These are the textbook codes with the N payload bits in reverse order: the lengths and the
// prefix property are unchanged, and a decoder finds N with one count-trailing-zeros and the
// payload with one shift instead of a bit reversal.

#include "compression/codec.h"

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace fedran::internal
{

/// The count <= 64 low bits set.
inline uint64_t
LowMask(unsigned count)
{
    return count >= 64 ? ~uint64_t{0} : (uint64_t{1} << count) - 1;
}

inline uint64_t
LoadLe64(const uint8_t* p)
{
    uint64_t word;
    std::memcpy(&word, p, 8);
    return std::endian::native == std::endian::big ? __builtin_bswap64(word) : word;
}

inline void
StoreLe64(uint8_t* p, uint64_t word)
{
    word = std::endian::native == std::endian::big ? __builtin_bswap64(word) : word;
    std::memcpy(p, &word, 8);
}

/// Throws std::invalid_argument unless 1 <= bits <= 8 (a caller bug, not bad input).
inline void
CheckCodeWidth(unsigned bits)
{
    if (bits < 1 || bits > 8)
    {
        throw std::invalid_argument("packed code width must be 1..8 bits, got " +
                                    std::to_string(bits));
    }
}

/// A hot loop's view of a BitWriter: local, so the compiler keeps it in registers (stores
/// through a uint8_t pointer would otherwise make it reload the writer's members each time).
struct BitCursor
{
    uint8_t* next; ///< the byte that holds the first pending bit
    uint64_t acc;  ///< pending bits, LSB first; bits at and above `bits` are zero
    unsigned bits; ///< pending bit count, below 8 between calls
};

/// Appends the `count` <= 56 low bits of `value`, which must be < 2^count. Stores 8 bytes at
/// c.next, so the buffer needs that much room (BitWriter::Open guarantees it).
inline void
PutBits(BitCursor& c, uint64_t value, unsigned count)
{
    c.acc |= value << c.bits;
    c.bits += count; // <= 63
    StoreLe64(c.next, c.acc);
    const unsigned whole = c.bits & ~7u;
    c.next += whole >> 3;
    c.acc >>= whole; // < 64
    c.bits &= 7;
}

/// PutBits for 8 <= count <= 63: the bits that do not fit the accumulator are taken from
/// `value` again, so `count` may exceed 56. The accumulator's next value depends on `value`
/// and the pending bit count only, which shortens the dependency chain between calls.
inline void
PutBitsWide(BitCursor& c, uint64_t value, unsigned count)
{
    c.acc |= value << c.bits;
    StoreLe64(c.next, c.acc);
    const unsigned total = c.bits + count;
    const unsigned whole = total & ~7u; // >= 8 > c.bits
    c.next += whole >> 3;
    c.acc = value >> (whole - c.bits); // <= count < 64
    c.bits = total & 7;
}

/// Packs 8 codes, one per byte of `x` (each < 2^bits, bits 1..8), into the low 8*bits bits of
/// the result, code 0 lowest: a three-step shift-and-merge with no loop over codes.
inline uint64_t
PackCodes8(uint64_t x, unsigned bits)
{
    x = (x & 0x00FF00FF00FF00FFull) | ((x >> 8) & 0x00FF00FF00FF00FFull) << bits;
    x = (x & 0x0000FFFF0000FFFFull) | ((x >> 16) & 0x0000FFFF0000FFFFull) << (2 * bits);
    return (x & 0xFFFFFFFFull) | (x >> 32) << (4 * bits);
}

/// The inverse of PackCodes8: the low 8*bits bits of `x` spread into 8 bytes. Higher bits of
/// `x` are ignored.
inline uint64_t
UnpackCodes8(uint64_t x, unsigned bits)
{
    const uint64_t m4 = (uint64_t{1} << (4 * bits)) - 1;
    x = (x & m4) | ((x >> (4 * bits)) & m4) << 32;
    const uint64_t m2 = ((uint64_t{1} << (2 * bits)) - 1) * 0x0000000100000001ull;
    x = (x & m2) | ((x >> (2 * bits)) & m2) << 16;
    const uint64_t m1 = ((uint64_t{1} << bits) - 1) * 0x0001000100010001ull;
    return (x & m1) | ((x >> bits) & m1) << 8;
}

/// Length in bits of gamma(value), value >= 1.
inline unsigned
EliasGammaLength(uint64_t value)
{
    return 2 * static_cast<unsigned>(std::bit_width(value)) - 1;
}

/// gamma(value) as bits to write LSB-first, for value >= 1 with EliasGammaLength(value) <= 63.
inline uint64_t
EliasGammaBits(uint64_t value)
{
    const unsigned n = static_cast<unsigned>(std::bit_width(value)) - 1;
    // (value << 1 | 1) without value's leading one is "1, then the N payload bits"; shifting
    // it up by N puts the N zeros first.
    return (((value << 1) | 1) ^ (uint64_t{2} << n)) << n;
}

/**
 * Appends bits to a byte vector through a 64-bit accumulator and a 16 KiB staging buffer.
 *
 * Call Finish() before anything else appends to the vector: until then the bits sit in the
 * buffer. Finish() pads the last byte with zero bits.
 */
class BitWriter
{
  public:
    explicit BitWriter(std::vector<uint8_t>& out);
    BitWriter(const BitWriter&) = delete;
    BitWriter& operator=(const BitWriter&) = delete;

    /// Appends the `count` <= 64 low bits of `value`; higher bits of `value` are ignored.
    void WriteBits(uint64_t value, unsigned count);

    /// Throws std::invalid_argument for 0, which has no Elias code.
    void WriteEliasGamma(uint64_t value);
    void WriteEliasDelta(uint64_t value);

    /// Appends each code as a `bits`-bit field (bits 1..8; codes must be < 2^bits). Moves 8
    /// codes per step; fastest when the stream is at a byte boundary.
    void WritePacked(std::span<const uint8_t> codes, unsigned bits);

    /// Pads with zero bits up to the next byte boundary.
    void AlignToByte();

    /// Bits written so far, including those still staged.
    uint64_t BitCount() const;

    /// Pads to a byte boundary and appends every staged byte to the vector.
    void Finish();

    /// For hot loops: a cursor with room for `maxBits` more bits (at most kMaxOpenBits), used
    /// with PutBits. Nothing else may touch the writer until Commit.
    BitCursor Open(uint64_t maxBits);

    /// Inline so that the caller's cursor never escapes to memory: stores through its
    /// uint8_t pointer would then force a reload of the cursor after every PutBits.
    void Commit(BitCursor cursor)
    {
        m_cursor = cursor;
    }

    static constexpr uint64_t kMaxOpenBits = 8 * 8192;

  private:
    static constexpr size_t kBufferBytes = 16384;

    /// PutBits on the writer's own cursor, draining the buffer when needed.
    void Put(uint64_t value, unsigned count);
    /// Moves the complete bytes to the vector; the partial byte stays in the accumulator.
    void Drain();

    std::vector<uint8_t>& m_out;
    uint64_t m_drainedBytes = 0;
    BitCursor m_cursor;
    std::array<uint8_t, kBufferBytes + 8> m_buffer; ///< +8: PutBits stores 8 bytes
};

/**
 * Reads a bit stream written by BitWriter. Every read is bounds-checked and throws DecodeError
 * naming the payload offset of the byte where the missing or bad bits are; Elias decoding
 * gives up after 64 leading zeros, so garbage can neither hang it nor overflow the value.
 */
class BitReader
{
  public:
    /// Reads `data`, which starts at byte `baseOffset` of the payload (for error messages).
    BitReader(std::span<const uint8_t> data, size_t baseOffset);

    /// The next `count` <= 64 bits.
    uint64_t ReadBits(unsigned count);
    uint64_t ReadEliasGamma();
    uint64_t ReadEliasDelta();

    /// Reads codes.size() fields of `bits` bits (1..8) into bytes. Checks the length first, so
    /// a truncated stream leaves `codes` untouched.
    void ReadPacked(std::span<uint8_t> codes, unsigned bits);

    /// Skips to the next byte boundary; throws unless the skipped padding bits are zero, so
    /// that every payload has exactly one valid encoding.
    void SkipPadding();

    uint64_t BitPosition() const
    {
        return m_pos;
    }

    uint64_t BitsRemaining() const
    {
        return 8 * static_cast<uint64_t>(m_data.size()) - m_pos;
    }

    /// Bytes touched so far: ceil(BitPosition() / 8).
    size_t BytesConsumed() const
    {
        return static_cast<size_t>((m_pos + 7) / 8);
    }

    /// Payload offset of the byte holding bit `bitPos` of this stream.
    size_t OffsetOf(uint64_t bitPos) const
    {
        return m_base + static_cast<size_t>(bitPos / 8);
    }

    /// Throws DecodeError for the byte holding bit `bitPos`.
    [[noreturn]] void FailAt(const std::string& what, uint64_t bitPos) const;

    // Hot loops keep the position in a local and use these two directly.

    /// Positions below FastLimit() may be read with PeekFast: 8 bytes from there are in range.
    uint64_t FastLimit() const
    {
        return m_data.size() >= 8 ? 8 * static_cast<uint64_t>(m_data.size() - 7) : 0;
    }

    /// At least 57 stream bits starting at bit `pos` < FastLimit(), LSB first.
    uint64_t PeekFast(uint64_t pos) const
    {
        return LoadLe64(m_data.data() + pos / 8) >> (pos % 8);
    }

    /// The stream's bytes, for hot loops that do their own PeekFast.
    const uint8_t* Data() const
    {
        return m_data.data();
    }

    /// Moves to bit `pos` <= 8 * size (checked).
    void Seek(uint64_t pos);

  private:
    /// Up to 64 bits from m_pos, zero-filled past the end; `valid` gets how many are real.
    uint64_t Peek(unsigned& valid) const;
    void Require(uint64_t bits) const;

    std::span<const uint8_t> m_data;
    size_t m_base;
    uint64_t m_pos = 0;
};

} // namespace fedran::internal

#endif
