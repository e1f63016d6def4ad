#include "compression/rng.h"

#include "compression/portable-math.h"

#include <cmath>
#include <stdexcept>

// Every draw here is built from integer operations plus IEEE-754 +, *, / and sqrt (all
// correctly rounded), and std::log / std::pow in Normal and Gamma. Traces are therefore
// bit-identical wherever the libm is the same (all our Debian/glibc x86-64 hosts); a different
// libm may differ in the last bit of a log, which is why no std:: distribution is used at all.

namespace fedran
{

namespace
{

/// One step of splitmix64 (Steele, Lea, Flood 2014): a bijective 64-bit mix of a Weyl sequence.
uint64_t
SplitMix64(uint64_t& state)
{
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t
RotateLeft(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

} // namespace

Rng::Rng(uint64_t seed, uint64_t stream)
{
    // Mix the seed, then the stream, through splitmix64. Each mix is a bijection, so for one
    // seed every stream yields a different splitmix64 starting point, and the 256-bit xoshiro
    // state drawn from it is decorrelated from its neighbours' (the mixer's avalanche is what
    // makes stream 1 and stream 2 independent rather than shifted copies). Four consecutive
    // splitmix64 outputs are never all zero, so the xoshiro state is always valid.
    uint64_t mix = seed;
    uint64_t h = SplitMix64(mix);
    mix = h ^ stream;
    h = SplitMix64(mix);
    for (uint64_t& word : m_s)
    {
        word = SplitMix64(h);
    }
}

uint64_t
Rng::NextU64()
{
    // xoshiro256** 1.0 (Blackman and Vigna 2018), transcribed from the reference C code.
    const uint64_t result = RotateLeft(m_s[1] * 5, 7) * 9;
    const uint64_t t = m_s[1] << 17;
    m_s[2] ^= m_s[0];
    m_s[3] ^= m_s[1];
    m_s[1] ^= m_s[2];
    m_s[0] ^= m_s[3];
    m_s[2] ^= t;
    m_s[3] = RotateLeft(m_s[3], 45);
    return result;
}

double
Rng::Uniform()
{
    // The top 53 bits are the best ones of xoshiro256** and exactly fill a double's mantissa.
    return static_cast<double>(NextU64() >> 11) * 0x1.0p-53;
}

uint64_t
Rng::UniformInt(uint64_t n)
{
    if (n == 0)
    {
        throw std::invalid_argument("Rng::UniformInt: n must be > 0");
    }
    // Lemire's multiply-and-reject (ACM TOMACS 2019): the high word of x*n is uniform on [0, n)
    // once the low words below 2^64 mod n are rejected. Usually no division at all.
    __extension__ using U128 = unsigned __int128;
    U128 m = static_cast<U128>(NextU64()) * n;
    auto low = static_cast<uint64_t>(m);
    if (low < n)
    {
        const uint64_t threshold = (0 - n) % n; // 2^64 mod n
        while (low < threshold)
        {
            m = static_cast<U128>(NextU64()) * n;
            low = static_cast<uint64_t>(m);
        }
    }
    return static_cast<uint64_t>(m >> 64);
}

double
Rng::Normal()
{
    if (m_hasSpare)
    {
        m_hasSpare = false;
        return m_spare;
    }
    // Marsaglia polar method: a point uniform in the unit disc gives two independent normals;
    // the second is cached so each pair of uniforms is used fully.
    double u;
    double v;
    double s;
    do
    {
        u = 2.0 * Uniform() - 1.0;
        v = 2.0 * Uniform() - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double m = std::sqrt(-2.0 * pmath::Log(s) / s);
    m_spare = v * m;
    m_hasSpare = true;
    return u * m;
}

double
Rng::Gamma(double shape)
{
    // A NaN shape would make the rejection loop below spin forever, so reject it here.
    if (!(shape > 0.0) || std::isinf(shape))
    {
        throw std::invalid_argument("Rng::Gamma: shape must be finite and > 0");
    }
    if (shape < 1.0)
    {
        // Marsaglia-Tsang need shape >= 1; X ~ Gamma(a+1) times U^(1/a) is Gamma(a). 1 - U is
        // in (0, 1], so the boost is never an exact zero unless it underflows.
        const double boost = pmath::Pow(1.0 - Uniform(), 1.0 / shape);
        return Gamma(shape + 1.0) * boost;
    }
    // Marsaglia and Tsang (ACM TOMS 2000), with their squeeze test before the log test.
    const double d = shape - 1.0 / 3.0;
    const double c = 1.0 / std::sqrt(9.0 * d);
    while (true)
    {
        double x;
        double v;
        do
        {
            x = Normal();
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        const double u = Uniform();
        const double x2 = x * x;
        if (u < 1.0 - 0.0331 * x2 * x2)
        {
            return d * v;
        }
        if (pmath::Log(u) < 0.5 * x2 + d * (1.0 - v + pmath::Log(v)))
        {
            return d * v;
        }
    }
}

} // namespace fedran
