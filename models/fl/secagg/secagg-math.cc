#include "models/fl/secagg/secagg-math.h"

#include "compression/rng.h"

#include <algorithm>
#include <stdexcept>

namespace fedran::secagg
{

namespace
{

uint64_t
Reduce(unsigned __int128 x)
{
    // 2^61 = 1 mod p: fold the high bits onto the low ones twice, then subtract once.
    uint64_t lo = static_cast<uint64_t>(x & kPrime);
    uint64_t hi = static_cast<uint64_t>(x >> 61);
    uint64_t r = lo + hi;
    r = (r & kPrime) + (r >> 61);
    return r >= kPrime ? r - kPrime : r;
}

} // namespace

uint64_t
AddMod(uint64_t a, uint64_t b)
{
    const uint64_t r = a + b; // both < 2^61: no overflow
    return r >= kPrime ? r - kPrime : r;
}

uint64_t
SubMod(uint64_t a, uint64_t b)
{
    return a >= b ? a - b : a + kPrime - b;
}

uint64_t
MulMod(uint64_t a, uint64_t b)
{
    return Reduce(static_cast<unsigned __int128>(a) * b);
}

uint64_t
PowMod(uint64_t base, uint64_t exp)
{
    uint64_t result = 1;
    base %= kPrime;
    while (exp)
    {
        if (exp & 1)
        {
            result = MulMod(result, base);
        }
        base = MulMod(base, base);
        exp >>= 1;
    }
    return result;
}

uint64_t
InvMod(uint64_t a)
{
    if (a % kPrime == 0)
    {
        throw std::invalid_argument("secagg: no inverse of 0");
    }
    return PowMod(a, kPrime - 2); // Fermat
}

uint64_t
DrawFieldElement(Rng& rng)
{
    return 1 + rng.UniformInt(kPrime - 1);
}

uint64_t
PublicKey(uint64_t sk)
{
    return PowMod(kGenerator, sk);
}

uint64_t
AgreeKey(uint64_t sk, uint64_t peerPk)
{
    return PowMod(peerPk, sk);
}

std::vector<uint64_t>
ShamirSplit(uint64_t secret, uint32_t threshold, std::span<const uint64_t> xs, Rng& rng)
{
    if (threshold == 0 || secret >= kPrime)
    {
        throw std::invalid_argument("secagg: Shamir split needs t >= 1 and a field element");
    }
    std::vector<uint64_t> coefficients{secret};
    for (uint32_t i = 1; i < threshold; ++i)
    {
        coefficients.push_back(rng.UniformInt(kPrime));
    }
    std::vector<uint64_t> shares;
    shares.reserve(xs.size());
    for (uint64_t x : xs)
    {
        // Horner, highest coefficient first.
        uint64_t y = 0;
        for (size_t i = coefficients.size(); i-- > 0;)
        {
            y = AddMod(MulMod(y, x), coefficients[i]);
        }
        shares.push_back(y);
    }
    return shares;
}

uint64_t
ShamirReconstruct(std::span<const std::pair<uint64_t, uint64_t>> points)
{
    uint64_t secret = 0;
    for (size_t i = 0; i < points.size(); ++i)
    {
        // L_i(0) = prod_{j != i} x_j / (x_j - x_i)
        uint64_t num = 1;
        uint64_t den = 1;
        for (size_t j = 0; j < points.size(); ++j)
        {
            if (j == i)
            {
                continue;
            }
            if (points[j].first == points[i].first || points[j].first % kPrime == 0)
            {
                throw std::invalid_argument("secagg: repeated or zero share abscissa");
            }
            num = MulMod(num, points[j].first);
            den = MulMod(den, SubMod(points[j].first, points[i].first));
        }
        secret = AddMod(secret, MulMod(points[i].second, MulMod(num, InvMod(den))));
    }
    return secret;
}

void
ApplyMask(std::span<uint64_t> values, uint64_t seed, uint64_t stream, int sign, uint64_t fieldMask)
{
    Rng prg(seed, stream);
    if (sign > 0)
    {
        for (uint64_t& v : values)
        {
            v = (v + prg.NextU64()) & fieldMask;
        }
    }
    else
    {
        for (uint64_t& v : values)
        {
            v = (v - prg.NextU64()) & fieldMask;
        }
    }
}

void
PackBits(std::span<const uint64_t> values, uint32_t bits, std::vector<uint8_t>& out)
{
    const size_t start = out.size();
    out.resize(start + PackedBytes(values.size(), bits), 0);
    uint8_t* dst = out.data() + start;
    size_t bit = 0;
    for (uint64_t v : values)
    {
        for (uint32_t done = 0; done < bits;)
        {
            const size_t byte = bit / 8;
            const uint32_t offset = bit % 8;
            const uint32_t take = std::min<uint32_t>(8 - offset, bits - done);
            dst[byte] |= static_cast<uint8_t>(((v >> done) & ((1u << take) - 1)) << offset);
            done += take;
            bit += take;
        }
    }
}

std::vector<uint64_t>
UnpackBits(std::span<const uint8_t> bytes, size_t count, uint32_t bits)
{
    if (bytes.size() != PackedBytes(count, bits))
    {
        throw std::invalid_argument("secagg: packed vector of the wrong length");
    }
    std::vector<uint64_t> values(count, 0);
    size_t bit = 0;
    for (uint64_t& v : values)
    {
        for (uint32_t done = 0; done < bits;)
        {
            const size_t byte = bit / 8;
            const uint32_t offset = bit % 8;
            const uint32_t take = std::min<uint32_t>(8 - offset, bits - done);
            v |= uint64_t((bytes[byte] >> offset) & ((1u << take) - 1)) << done;
            done += take;
            bit += take;
        }
    }
    return values;
}

void
XorKeystream(std::span<uint8_t> bytes, uint64_t key)
{
    Rng stream(key, kCipherStream);
    for (size_t i = 0; i < bytes.size(); i += 8)
    {
        const uint64_t word = stream.NextU64();
        for (size_t j = 0; j < 8 && i + j < bytes.size(); ++j)
        {
            bytes[i + j] ^= static_cast<uint8_t>(word >> (8 * j));
        }
    }
}

} // namespace fedran::secagg
