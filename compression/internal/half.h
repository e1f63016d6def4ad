#ifndef FEDRAN_COMPRESSION_INTERNAL_HALF_H
#define FEDRAN_COMPRESSION_INTERNAL_HALF_H

// float <-> IEEE 754 binary16 without F16C, so the result cannot depend on the host CPU.
//
// Both directions are branch-free (masks only) so the conversion loops vectorise with SSE2.
// They follow Maratyszcza's FP16 library (MIT): the rounding is done by the FPU's own
// round-to-nearest-even through a scaled addition, which is exact for every float, including
// subnormal halves. They therefore assume the default IEEE environment: round-to-nearest and
// no flush-to-zero (never build this file with -ffast-math).

#include <bit>
#include <cstdint>

namespace fedran::internal
{

/// Rounds to the nearest half, ties to even. |x| >= 65520 gives +-inf; NaN gives a quiet NaN
/// with the sign kept (payload bits are not preserved).
inline uint16_t
FloatToHalf(float x)
{
    const uint32_t w = std::bit_cast<uint32_t>(x);
    const uint32_t sign = w & 0x80000000u;
    const uint32_t twiceW = w + w; // drops the sign
    // base = 4|x| exactly, except that the first product overflows to inf once |x| >= 2^16.
    float base = (std::bit_cast<float>(twiceW >> 1) * 0x1.0p+112f) * 0x1.0p-110f;
    // Adding 2^(E+15), where E = max(exponent of x, -14), leaves 4|x| with exactly 10
    // fraction bits (fewer for half subnormals), so the FPU rounds it to half precision, ties
    // to even, in this one addition. A carry into the next binade, up to inf at 65520, falls
    // out of the bit extraction below.
    uint32_t bias = twiceW & 0xFF000000u;
    bias = bias < 0x71000000u ? 0x71000000u : bias;
    base = std::bit_cast<float>((bias >> 1) + 0x07800000u) + base;
    const uint32_t bits = std::bit_cast<uint32_t>(base);
    const uint32_t expBits = (bits >> 13) & 0x00007C00u;
    const uint32_t mantissaBits = bits & 0x00000FFFu;
    const uint32_t nonSign = expBits + mantissaBits;
    // A mask rather than ?: because GCC turns the ?: into a branch around the float maths,
    // which -ftrapping-math then forbids it to if-convert back, and the loop stays scalar.
    const uint32_t nanMask = 0u - static_cast<uint32_t>(twiceW > 0xFF000000u);
    const uint32_t result = (nanMask & 0x7E00u) | (~nanMask & nonSign);
    return static_cast<uint16_t>((sign >> 16) | result);
}

/// Exact: every half is a float.
inline float
HalfToFloat(uint16_t h)
{
    const uint32_t w = static_cast<uint32_t>(h) << 16;
    const uint32_t sign = w & 0x80000000u;
    const uint32_t twiceW = w + w;
    // Normal halves: move exponent and fraction into place, then rebias by multiplying with
    // 2^-112 (exact; also maps the all-ones exponent to inf/NaN).
    const float normalized = std::bit_cast<float>((twiceW >> 4) + (0xE0u << 23)) * 0x1.0p-112f;
    // Subnormal halves: place the fraction under the exponent of 0.5 and subtract 0.5.
    const float denormalized = std::bit_cast<float>((twiceW >> 17) | (126u << 23)) - 0.5f;
    const uint32_t subnormalMask = 0u - static_cast<uint32_t>(twiceW < (1u << 27)); // see above
    const uint32_t result = (subnormalMask & std::bit_cast<uint32_t>(denormalized)) |
                            (~subnormalMask & std::bit_cast<uint32_t>(normalized));
    return std::bit_cast<float>(sign | result);
}

} // namespace fedran::internal

#endif
