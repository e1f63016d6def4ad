#include "models/learning/activations.h"

#include <cstdint>
#include <cstring>

namespace fedran
{

namespace
{

/**
 * e^x for x in [-87, 88] (callers clamp): x = k ln 2 + r with k the nearest integer to
 * x / ln 2 (the 1.5 * 2^23 shift rounds to nearest), ln 2 split in two so that k ln2_hi is
 * exact, e^r by its Taylor series to r^7 (|r| <= 0.35: truncation below 1e-8 relative), then
 * times 2^k built in the exponent bits.
 */
inline float
ExpClamped(float x)
{
    constexpr float kLog2e = 1.44269504088896341f;
    constexpr float kShift = 12582912.0f;        // 1.5 * 2^23
    constexpr float kLn2Hi = 0.693145751953125f; // 12 significant bits: k * kLn2Hi is exact
    constexpr float kLn2Lo = 1.428606765330187e-06f;
    const float k = (x * kLog2e + kShift) - kShift;
    const float r = (x - k * kLn2Hi) - k * kLn2Lo;
    float p = 1.0f / 5040.0f;
    p = p * r + 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    const int32_t bits = (static_cast<int32_t>(k) + 127) << 23;
    float scale;
    std::memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

inline float
Clamp(float x)
{
    // -87 keeps 2^k normal (k >= -126); 88 keeps e^x finite.
    x = x < -87.0f ? -87.0f : x;
    return x > 88.0f ? 88.0f : x;
}

} // namespace

void
SigmoidInPlace(float* x, size_t count)
{
    for (size_t k = 0; k < count; ++k)
    {
        x[k] = 1.0f / (1.0f + ExpClamped(Clamp(-x[k])));
    }
}

void
Tanh(const float* x, float* out, size_t count)
{
    for (size_t k = 0; k < count; ++k)
    {
        // tanh x = 1 - 2 / (e^{2x} + 1): no overflow after the clamp, and the error of the
        // subtraction near 0 is absolute, about one ulp of 1.
        out[k] = 1.0f - 2.0f / (ExpClamped(Clamp(2.0f * x[k])) + 1.0f);
    }
}

void
TanhInPlace(float* x, size_t count)
{
    Tanh(x, x, count);
}

} // namespace fedran
