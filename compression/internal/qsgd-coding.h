#ifndef FEDRAN_COMPRESSION_INTERNAL_QSGD_CODING_H
#define FEDRAN_COMPRESSION_INTERNAL_QSGD_CODING_H

// The element codes of the "qsgd" codec and the table-driven loops that write and read them.
//
// Level l of s levels, with its sign, is Elias gamma(l + 1) (bit-stream.h order) followed by
// a sign bit (1 = negative) when l > 0. The rounding kernel hands the writer
// idx = l << 1 | negative; the reader returns l or -l.
//
// Why tables: a code is 1 to 42 bits, so a plain loop spends a dozen instructions per
// element and, when decoding, waits on a load-shift-load chain for every single code. The
// writer looks codes up four at a time (s <= 31, levels <= 3); the reader decodes up to four
// codes per lookup (s <= 127), which shortens that chain up to fourfold.

#include "compression/internal/bit-stream.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fedran::internal
{

/// Bits of the code of level l (with its sign bit).
inline unsigned
QsgdCodeLength(uint32_t level)
{
    return EliasGammaLength(uint64_t{level} + 1) + (level > 0 ? 1 : 0);
}

class QsgdCodeWriter
{
  public:
    explicit QsgdCodeWriter(uint32_t levels);

    /// Appends the codes of idx[0 .. n), n <= kMaxCodes.
    void Write(BitWriter& writer, const uint32_t* idx, size_t n) const;

    static constexpr size_t kMaxCodes = 1024;

  private:
    /// Takes and returns the cursor by value so that it stays in registers.
    BitCursor WriteQuads(BitCursor c, const uint32_t* idx, size_t n) const;

    unsigned m_maxLength;
    std::vector<uint32_t> m_single; ///< code | length << 24 by idx, when s <= 2047
    /// The same for four codes of levels <= 3, by idx0 | idx1 << 3 | idx2 << 6 | idx3 << 9,
    /// when s <= 31 (where such quads are the rule).
    std::vector<uint32_t> m_quad;
};

class QsgdCodeReader
{
  public:
    explicit QsgdCodeReader(uint32_t levels);

    uint32_t Levels() const
    {
        return m_levels;
    }

    /// Decodes n codes starting at bit `pos` of `bits` (and advances `pos`), writing
    /// level * step to out[0 .. n). Throws DecodeError for a level above s, a code longer
    /// than any valid one, or the end of the stream.
    void Read(BitReader& bits, uint64_t& pos, float step, float* out, size_t n) const;

  private:
    int32_t ReadOne(BitReader& bits, uint64_t& pos) const;
    int32_t ReadLong(BitReader& bits, uint64_t& pos) const;

    uint32_t m_levels;
    unsigned m_maxZeros;
    std::vector<int32_t> m_single; ///< level << 8 | length, 0 when the code needs ReadLong
    std::vector<uint64_t> m_multi; ///< levels (4 x int8) << 32 | count << 8 | length
};

} // namespace fedran::internal

#endif
