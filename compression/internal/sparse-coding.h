#ifndef FEDRAN_COMPRESSION_INTERNAL_SPARSE_CODING_H
#define FEDRAN_COMPRESSION_INTERNAL_SPARSE_CODING_H

// The body shared by every sparsifying codec (top_k, threshold, dgc): the kept positions of
// one tensor and their values.
//
//   0  mode    u8   0 = delta varint, 1 = bitmap
//   1  count   u32  n, the number of kept elements (n <= tensor size)
//   5  index set:
//        mode 0: n LEB128 varints (at most 5 bytes each, no redundant trailing 0x00 byte);
//                the j-th is idx[j] - idx[j-1] - 1 with idx[-1] = -1, i.e. how many positions
//                were skipped. Indices are strictly ascending by construction.
//        mode 1: ceil(size / 8) bytes; bit (i mod 8) of byte i / 8 is set iff i is kept.
//                Exactly n bits are set and the padding bits of the last byte are zero.
//      values: n float32, in index order.
//
// The writer picks the smaller index set (varint on a tie). A bitmap wins once more than
// about one element in 8-16 is kept; below that, gaps of ~d/n cost ~log2(d/n)/7 bytes each.

#include "compression/internal/byte-io.h"

#include <cstdint>
#include <span>

namespace fedran::internal
{

/// Appends one sparse body: `indices` (strictly ascending, each < size) and their `values`
/// (same length). Throws std::invalid_argument if they are not, or if size > 2^32.
void WriteSparse(ByteWriter& w,
                 std::span<const uint32_t> indices,
                 std::span<const float> values,
                 uint64_t size);

/// Reads one body into `out` (size = out.size()): zero-fills it, then writes the kept values
/// bit-exactly. Throws DecodeError (unknown mode, count > size, index out of range, overlong
/// or redundant varint, wrong bitmap population or padding, truncated body); `out` then holds
/// unspecified values. Never reads outside the reader's span or writes outside `out`.
void ReadSparse(ByteReader& r, std::span<float> out);

/// As ReadSparse, and also throws DecodeError unless the body keeps exactly `expectedCount`
/// elements (for codecs whose decoder knows the count, like top_k).
void ReadSparse(ByteReader& r, std::span<float> out, uint64_t expectedCount);

/// As ReadSparse, but subtracts each kept value from `out` at its position (out[i] -= value)
/// and leaves the other elements untouched. On a DecodeError `out` is partly updated.
void SubtractSparse(ByteReader& r, std::span<float> out);
void SubtractSparse(ByteReader& r, std::span<float> out, uint64_t expectedCount);

/// The bytes WriteSparse would append for `indices` in a tensor of `size` elements.
uint64_t SparseBytes(std::span<const uint32_t> indices, uint64_t size);

} // namespace fedran::internal

#endif
