#ifndef FEDRAN_COMPRESSION_INTERNAL_SCALES_H
#define FEDRAN_COMPRESSION_INTERNAL_SCALES_H

// The f32 scales (max|x|, L2 norm or mean |x|) that quantization, qsgd and sign put in front of
// their codes. They are validated the same way everywhere: a scale is >= 0 and finite, or NaN,
// which marks a bucket that held NaN or inf and decodes to NaN.

#include "compression/internal/byte-io.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace fedran::internal
{

/// Elements in `d` rounded up to whole groups of `group` (buckets, bytes of packed bits).
constexpr uint64_t
CeilDiv(uint64_t d, uint64_t group)
{
    return d / group + (d % group != 0);
}

/// Overwrites the scale reserved at byte `at` of `out` once the bucket's value is known.
inline void
PatchScale(std::vector<uint8_t>& out, size_t at, float value)
{
    const auto bits = std::bit_cast<uint32_t>(value);
    for (int k = 0; k < 4; ++k)
    {
        out[at + k] = static_cast<uint8_t>(bits >> (8 * k));
    }
}

/// Scale j of a block of little-endian f32 scales.
inline float
ScaleAt(std::span<const uint8_t> bytes, size_t j)
{
    uint32_t bits = 0;
    for (int k = 0; k < 4; ++k)
    {
        bits |= uint32_t{bytes[4 * j + k]} << (8 * k);
    }
    return std::bit_cast<float>(bits);
}

/// Reads `count` scales and rejects a negative or infinite one, naming its byte offset.
/// `what` names them in the message ("bucket scale", "bucket norm", "sign scale").
inline std::span<const uint8_t>
ReadScales(ByteReader& reader, size_t count, const char* what)
{
    const size_t at = reader.Offset();
    const auto bytes = reader.ReadBytes(4 * count);
    for (size_t j = 0; j < count; ++j)
    {
        const float scale = ScaleAt(bytes, j);
        if (std::signbit(scale) || std::isinf(scale))
        {
            throw DecodeError(std::string(what) + " must be >= 0 and finite (or NaN), got " +
                                  std::to_string(scale),
                              at + 4 * j);
        }
    }
    return bytes;
}

} // namespace fedran::internal

#endif
