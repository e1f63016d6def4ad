#include "compression/portable-math.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

// Compiled with -ffp-contract=off (compression/CMakeLists.txt): every a * b + c below is two
// roundings on every CPU, never a fused multiply-add on some of them.

namespace fedran::pmath
{

namespace
{

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// ln 2 split so that k * kLn2Hi is exact for |k| < 2^20 (kLn2Hi has 32 significant bits).
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kInvLn2 = 1.44269504088896338700e+00;

// pi / 2 as two pieces of 33 bits, so that n * each is exact for |n| < 2^20, and the rest.
constexpr double kPio2Part1 = 1.57079632673412561417e+00;
constexpr double kPio2Part2 = 6.07710050630396597660e-11;
constexpr double kPio2Part3 = 2.02226624879595063154e-21; // the rest of pi/2, rounded
constexpr double kTwoOverPi = 6.36619772367581382433e-01;

uint64_t
BitsOf(double x)
{
    uint64_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}

double
FromBits(uint64_t u)
{
    double x;
    std::memcpy(&x, &u, sizeof x);
    return x;
}

/// 2^k for -1022 <= k <= 1023, built from its bits.
double
TwoTo(int k)
{
    return FromBits(static_cast<uint64_t>(k + 1023) << 52);
}

/// Round half away from zero to an integer-valued double, without the rounding mode.
double
NearestInteger(double x)
{
    return x >= 0.0 ? std::floor(x + 0.5) : -std::floor(0.5 - x);
}

/// e^r - 1 - r for |r| <= ln2 / 2 + a little: Taylor terms r^2/2! .. r^14/14!, Horner's rule.
/// The truncation error is below 1e-18 relative to e^r on that interval.
double
ExpTail(double r)
{
    constexpr double c[] = {
        1.0 / 2,
        1.0 / 6,
        1.0 / 24,
        1.0 / 120,
        1.0 / 720,
        1.0 / 5040,
        1.0 / 40320,
        1.0 / 362880,
        1.0 / 3628800,
        1.0 / 39916800,
        1.0 / 479001600,
        1.0 / 6227020800.0,
        1.0 / 87178291200.0,
    };
    double p = c[12];
    for (int i = 11; i >= 0; --i)
    {
        p = p * r + c[i];
    }
    return r * r * p;
}

/// sin(r) and cos(r) for |r| <= pi / 4 (Taylor to r^17 and r^18: error below 1e-18).
double
SinKernel(double r)
{
    const double z = r * r;
    // (-1)^k / (2k+1)! for k = 1 .. 8
    constexpr double c[] = {
        -1.0 / 6,
        1.0 / 120,
        -1.0 / 5040,
        1.0 / 362880,
        -1.0 / 39916800,
        1.0 / 6227020800.0,
        -1.0 / 1307674368000.0,
        1.0 / 355687428096000.0,
    };
    double p = c[7];
    for (int i = 6; i >= 0; --i)
    {
        p = p * z + c[i];
    }
    return r + r * z * p;
}

double
CosKernel(double r)
{
    const double z = r * r;
    // (-1)^k / (2k)! for k = 2 .. 9
    constexpr double c[] = {
        1.0 / 24,
        -1.0 / 720,
        1.0 / 40320,
        -1.0 / 3628800,
        1.0 / 479001600,
        -1.0 / 87178291200.0,
        1.0 / 20922789888000.0,
        -1.0 / 6402373705728000.0,
    };
    double p = c[7];
    for (int i = 6; i >= 0; --i)
    {
        p = p * z + c[i];
    }
    const double half = 0.5 * z;
    // 1 - z/2 loses the low bits of z/2 when it is rounded; add them back (w + (1 - w - half)).
    const double w = 1.0 - half;
    return w + (((1.0 - w) - half) + z * z * p);
}

/// x - n * pi / 2 in [-pi/4, pi/4] (a little beyond from rounding), and n mod 4.
double
ReduceQuarterTurns(double x, int& quadrant)
{
    const double n = NearestInteger(x * kTwoOverPi);
    quadrant = static_cast<int>(static_cast<int64_t>(n) & 3);
    return ((x - n * kPio2Part1) - n * kPio2Part2) - n * kPio2Part3;
}

/// cos(x + shift * pi / 2): the kernel and sign of the quadrant x falls in, moved on by
/// `shift` quarter turns.
double
CosOfQuarterTurnsAhead(double x, int shift)
{
    if (!(std::fabs(x) < kInf))
    {
        return kNan;
    }
    int quadrant;
    const double r = ReduceQuarterTurns(x, quadrant);
    switch ((quadrant + shift) & 3)
    {
        case 0:
            return CosKernel(r);
        case 1:
            return -SinKernel(r);
        case 2:
            return -CosKernel(r);
        default:
            return SinKernel(r);
    }
}

} // namespace

double
Exp(double x)
{
    if (x != x)
    {
        return x;
    }
    if (x > 709.782712893383973096)
    {
        return kInf;
    }
    if (x < -745.133219101941108420)
    {
        return 0.0;
    }
    const double k = NearestInteger(x * kInvLn2);
    const double r = (x - k * kLn2Hi) - k * kLn2Lo;
    const double y = 1.0 + (r + ExpTail(r));
    const int ki = static_cast<int>(k);
    if (ki > 1023)
    {
        return y * TwoTo(1023) * 2.0;
    }
    if (ki < -1022)
    {
        // A subnormal result: scale in two steps so the only rounding is the final one.
        return y * TwoTo(ki + 600) * TwoTo(-600);
    }
    return y * TwoTo(ki);
}

double
Log(double x)
{
    if (x != x || x < 0.0)
    {
        return kNan;
    }
    if (x == 0.0)
    {
        return -kInf;
    }
    if (x == kInf)
    {
        return kInf;
    }
    int e = 0;
    if (x < std::numeric_limits<double>::min())
    {
        x *= TwoTo(54); // subnormal: normalise first
        e = -54;
    }
    const uint64_t bits = BitsOf(x);
    e += static_cast<int>((bits >> 52) & 0x7ff) - 1023;
    // m in [1, 2), then folded into [sqrt(1/2), sqrt(2)) so that |f| <= 0.4143.
    double m = FromBits((bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);
    if (m > 1.41421356237309504880)
    {
        m *= 0.5;
        e += 1;
    }
    const double f = m - 1.0; // exact (Sterbenz)
    // log(1 + f) = 2 atanh(s) with s = f / (2 + f) = f - hfsq + s (hfsq + R), where
    // R = sum_k 2 s^(2k) / (2k + 1); s^2 <= 0.0295, so eleven terms leave < 1e-18.
    const double s = f / (2.0 + f);
    const double z = s * s;
    double p = 2.0 / 23;
    for (int k = 10; k >= 1; --k)
    {
        p = p * z + 2.0 / (2 * k + 1);
    }
    const double r = z * p;
    const double hfsq = 0.5 * f * f;
    const double dk = e;
    return dk * kLn2Hi - ((hfsq - (s * (hfsq + r) + dk * kLn2Lo)) - f);
}

double
Log2(double x)
{
    constexpr double kInvLn2Value = 1.44269504088896340736;
    const uint64_t bits = BitsOf(x);
    if (x > 0.0 && x < kInf && (bits & 0x000fffffffffffffULL) == 0)
    {
        return static_cast<double>(static_cast<int>((bits >> 52) & 0x7ff) - 1023);
    }
    return Log(x) * kInvLn2Value;
}

double
Log10(double x)
{
    constexpr double kInvLn10 = 0.434294481903251827651;
    return Log(x) * kInvLn10;
}

double
Pow(double x, double y)
{
    if (y == 0.0 || x == 1.0)
    {
        return 1.0;
    }
    if (x != x || y != y)
    {
        return kNan;
    }
    if (x == 0.0)
    {
        return y > 0.0 ? 0.0 : kInf;
    }
    if (y == std::floor(y) && std::fabs(y) <= 64.0)
    {
        // Small integer powers by repeated squaring: exact whenever the result is representable
        // (10^3, 2^-10), as pow() is.
        auto n = static_cast<int64_t>(std::fabs(y));
        double base = x;
        double result = 1.0;
        while (n > 0)
        {
            if (n & 1)
            {
                result *= base;
            }
            base *= base;
            n >>= 1;
        }
        return y < 0.0 ? 1.0 / result : result;
    }
    if (x < 0.0)
    {
        if (y != std::floor(y))
        {
            return kNan;
        }
        const double magnitude = Exp(y * Log(-x));
        const bool odd = std::fmod(y, 2.0) != 0.0;
        return odd ? -magnitude : magnitude;
    }
    return Exp(y * Log(x));
}

double
Cos(double x)
{
    return CosOfQuarterTurnsAhead(x, 0);
}

double
Sin(double x)
{
    return CosOfQuarterTurnsAhead(x, 3); // sin x = cos(x - pi/2) = cos(x + 3 pi/2)
}

double
NormalCdf(double x)
{
    if (x != x)
    {
        return kNan;
    }
    // Beyond 38 standard deviations the tail is below the smallest double.
    if (x < -38.0)
    {
        return 0.0;
    }
    if (x > 38.0)
    {
        return 1.0;
    }
    // Phi(x) = 1/2 + phi(x) (x + x^3/3 + x^5/(3*5) + ...): every term has x's sign, so the sum
    // stops when adding a term no longer changes it.
    const double q = x * x;
    double sum = x;
    double term = x;
    double previous = 0.0;
    for (double i = 1.0; sum != previous;)
    {
        previous = sum;
        i += 2.0;
        term *= q / i;
        sum = previous + term;
    }
    constexpr double kLogSqrtTwoPi = 0.91893853320467274178;
    return 0.5 + sum * Exp(-0.5 * q - kLogSqrtTwoPi);
}

} // namespace fedran::pmath
