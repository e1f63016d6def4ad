#ifndef FEDRAN_COMPRESSION_INTERNAL_PAYLOAD_HEADER_H
#define FEDRAN_COMPRESSION_INTERNAL_PAYLOAD_HEADER_H

// The header every codec payload starts with, and the argument checks every codec shares.
//
//   0  signature  u32  TensorLayout::Signature() of the layout the update was encoded for
//   4  tensors    u32  TensorLayout::TensorCount()
//   8  ...             codec body
//
// Writing and checking it in one place means no codec can forget to, and a payload for the
// wrong model fails at byte 0 or 4 instead of being decoded into garbage.

#include "compression/codec.h"
#include "compression/internal/byte-io.h"

#include <cstddef>
#include <span>

namespace fedran::internal
{

constexpr size_t kPayloadHeaderSize = 8;

/// Throws std::invalid_argument unless `update` has layout.TotalSize() floats. A mismatch is a
/// bug in the caller, not bad input, hence not a DecodeError.
void CheckUpdateSize(const TensorLayout& layout, size_t size, std::string_view codec);

void WritePayloadHeader(const TensorLayout& layout, ByteWriter& writer);

/// Reads the header and throws DecodeError unless it matches `layout`.
void ReadPayloadHeader(const TensorLayout& layout, ByteReader& reader);

} // namespace fedran::internal

#endif
