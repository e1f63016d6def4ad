// The float <-> binary16 conversions behind the fp16 codec, checked against a slow, obviously
// correct reference: every half, every rounding midpoint, and random float bit patterns.

#include "compression/internal/half.h"
#include "compression/rng.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

namespace fedran::internal
{
namespace
{

bool
IsNanHalf(uint16_t h)
{
    return (h & 0x7C00u) == 0x7C00u && (h & 0x03FFu) != 0;
}

/// Value of a finite half by its definition.
double
ReferenceHalfValue(uint16_t h)
{
    const int exponent = (h >> 10) & 0x1F;
    const int fraction = h & 0x3FF;
    const double magnitude =
        exponent == 0 ? std::ldexp(fraction, -24) : std::ldexp(1024 + fraction, exponent - 25);
    return (h & 0x8000u) ? -magnitude : magnitude;
}

/// Round to nearest, ties to even, by searching the two neighbouring halves.
uint16_t
ReferenceFloatToHalf(float x)
{
    const uint16_t sign = std::signbit(x) ? 0x8000u : 0;
    if (std::isnan(x))
    {
        return static_cast<uint16_t>(sign | 0x7E00u);
    }
    const double a = std::fabs(static_cast<double>(x));
    if (a >= 65520.0) // halfway between 65504 and the next step (65536), ties to even -> inf
    {
        return static_cast<uint16_t>(sign | 0x7C00u);
    }
    uint16_t lo = 0; // largest half magnitude <= a (halves are ordered like their bits)
    for (int bit = 14; bit >= 0; --bit)
    {
        const auto candidate = static_cast<uint16_t>(lo | (1u << bit));
        if (candidate <= 0x7BFFu && ReferenceHalfValue(candidate) <= a)
        {
            lo = candidate;
        }
    }
    if (ReferenceHalfValue(lo) == a)
    {
        return static_cast<uint16_t>(sign | lo);
    }
    const double below = a - ReferenceHalfValue(lo);
    const double above = ReferenceHalfValue(lo + 1) - a;
    const bool up = above < below || (above == below && (lo & 1u));
    return static_cast<uint16_t>(sign | (up ? lo + 1 : lo));
}

TEST(Half, EveryHalfConvertsExactlyAndBack)
{
    for (uint32_t h = 0; h <= 0xFFFFu; ++h)
    {
        const auto half = static_cast<uint16_t>(h);
        const float f = HalfToFloat(half);
        if (IsNanHalf(half))
        {
            ASSERT_TRUE(std::isnan(f)) << h;
            ASSERT_EQ(std::signbit(f), (h & 0x8000u) != 0) << h;
            ASSERT_TRUE(IsNanHalf(FloatToHalf(f))) << h;
            continue;
        }
        if ((h & 0x7FFFu) == 0x7C00u)
        {
            ASSERT_TRUE(std::isinf(f)) << h;
        }
        else
        {
            ASSERT_EQ(static_cast<double>(f), ReferenceHalfValue(half)) << h;
        }
        ASSERT_EQ(FloatToHalf(f), half) << h; // also keeps the sign of zero
    }
}

TEST(Half, MidpointsRoundToEven)
{
    // Between each pair of adjacent finite halves: the midpoint goes to the even one, and the
    // floats just beside it go to the nearer one.
    for (uint16_t h = 0; h < 0x7BFFu; ++h)
    {
        const float lo = HalfToFloat(h);
        const float hi = HalfToFloat(static_cast<uint16_t>(h + 1));
        const float mid = (lo + hi) / 2; // exact: needs 12 significant bits
        const uint16_t even = (h & 1u) ? static_cast<uint16_t>(h + 1) : h;
        ASSERT_EQ(FloatToHalf(mid), even) << h;
        ASSERT_EQ(FloatToHalf(std::nextafter(mid, 0.0f)), h) << h;
        ASSERT_EQ(FloatToHalf(std::nextafter(mid, INFINITY)), h + 1) << h;
        ASSERT_EQ(FloatToHalf(-mid), even | 0x8000u) << h;
    }
}

TEST(Half, RandomFloatsMatchReference)
{
    Rng rng(16, 16);
    for (int i = 0; i < 200000; ++i)
    {
        // Bias the exponent towards the interesting range [2^-30, 2^20] half of the time.
        auto bits = static_cast<uint32_t>(rng.NextU64());
        if (i % 2 == 0)
        {
            bits = (bits & 0x807FFFFFu) | static_cast<uint32_t>(97 + rng.UniformInt(50)) << 23;
        }
        const float x = std::bit_cast<float>(bits);
        ASSERT_EQ(FloatToHalf(x), ReferenceFloatToHalf(x)) << std::hex << bits;
    }
}

TEST(Half, OverflowUnderflowAndSpecials)
{
    EXPECT_EQ(FloatToHalf(65504.0f), 0x7BFFu);
    EXPECT_EQ(FloatToHalf(65519.99f), 0x7BFFu);
    EXPECT_EQ(FloatToHalf(65520.0f), 0x7C00u);
    EXPECT_EQ(FloatToHalf(1e10f), 0x7C00u);
    EXPECT_EQ(FloatToHalf(-1e10f), 0xFC00u);
    EXPECT_EQ(FloatToHalf(INFINITY), 0x7C00u);
    EXPECT_EQ(FloatToHalf(-INFINITY), 0xFC00u);
    EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -24)), 0x0001u);  // smallest subnormal
    EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -25)), 0x0000u);  // tie -> even (zero)
    EXPECT_EQ(FloatToHalf(std::ldexp(3.0f, -26)), 0x0001u);  // above the tie
    EXPECT_EQ(FloatToHalf(-std::ldexp(1.0f, -30)), 0x8000u); // underflow keeps sign
    EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::denorm_min()), 0x0000u);
    EXPECT_TRUE(IsNanHalf(FloatToHalf(std::nanf(""))));
}

} // namespace
} // namespace fedran::internal
