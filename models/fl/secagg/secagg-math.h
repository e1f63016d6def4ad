#ifndef FEDRAN_MODELS_FL_SECAGG_SECAGG_MATH_H
#define FEDRAN_MODELS_FL_SECAGG_SECAGG_MATH_H

// The arithmetic of secure aggregation: the prime field of the secrets, Shamir's t-of-n
// sharing over it, the key agreement, the masks' pseudo-random expansion and the b-bit
// packing of the masked vectors.
//
// What is real and what is simulated (docs/privacy.md): the secrets are shared and rebuilt
// for real (Lagrange interpolation over GF(2^61 - 1)), and the pairwise mask seeds come from
// a real Diffie-Hellman exchange, but in the multiplicative group of that 61-bit field, which
// offers no security: a simulation of ECDH on P-384 with the same message flow. The masks
// are xoshiro256** streams seeded by those secrets; the share ciphertexts a stream cipher of
// the same kind. The frames carry the byte counts a P-384 / Fernet implementation sends.

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace fedran
{
class Rng;

namespace secagg
{

/// The Mersenne prime 2^61 - 1: secrets and shares live in GF(kPrime).
constexpr uint64_t kPrime = (uint64_t{1} << 61) - 1;
/// The key agreement's generator (any element works for agreement; this is no security).
constexpr uint64_t kGenerator = 3;

uint64_t AddMod(uint64_t a, uint64_t b);
uint64_t SubMod(uint64_t a, uint64_t b);
uint64_t MulMod(uint64_t a, uint64_t b);
uint64_t PowMod(uint64_t base, uint64_t exp);
/// a^-1 mod kPrime; a must not be 0 mod kPrime.
uint64_t InvMod(uint64_t a);

/// A uniform element of [1, kPrime - 1].
uint64_t DrawFieldElement(Rng& rng);

/// The public key of secret key `sk`: kGenerator^sk.
uint64_t PublicKey(uint64_t sk);
/// The shared secret of `sk` and the other side's `peerPk`: peerPk^sk (both sides agree).
uint64_t AgreeKey(uint64_t sk, uint64_t peerPk);

/**
 * Shamir shares of `secret` (< kPrime) with threshold t: a random polynomial of degree t - 1
 * with f(0) = secret, evaluated at each of `xs` (distinct, non-zero). Coefficients from `rng`.
 */
std::vector<uint64_t> ShamirSplit(uint64_t secret,
                                  uint32_t threshold,
                                  std::span<const uint64_t> xs,
                                  Rng& rng);

/// f(0) from `points` (x, f(x)) with distinct non-zero x, by Lagrange interpolation. With at
/// least t points of a degree t - 1 polynomial it is the secret; throws std::invalid_argument
/// on a repeated or zero x.
uint64_t ShamirReconstruct(std::span<const std::pair<uint64_t, uint64_t>> points);

/// The share abscissa of a client: its id + 1 (never 0).
inline uint64_t
ShareX(uint32_t client)
{
    return uint64_t{client} + 1;
}

/// Adds (sign > 0) or subtracts the mask expanded from `seed` to `values`, element-wise mod
/// 2^bits (`fieldMask` = 2^bits - 1). `stream` separates self masks from pairwise ones.
void ApplyMask(std::span<uint64_t> values,
               uint64_t seed,
               uint64_t stream,
               int sign,
               uint64_t fieldMask);

/// Streams of the mask expansions (of the seed's own Rng).
constexpr uint64_t kSelfMaskStream = 1;
constexpr uint64_t kPairMaskStream = 2;
constexpr uint64_t kCipherStream = 3;

/// Bytes of `count` elements of `bits` bits packed back to back.
inline size_t
PackedBytes(size_t count, uint32_t bits)
{
    return (count * bits + 7) / 8;
}

/// Appends `values` (each < 2^bits) packed little-endian, lowest bit first.
void PackBits(std::span<const uint64_t> values, uint32_t bits, std::vector<uint8_t>& out);

/// The `count` elements PackBits wrote into `bytes` (exactly PackedBytes long).
std::vector<uint64_t> UnpackBits(std::span<const uint8_t> bytes, size_t count, uint32_t bits);

/// XORs `bytes` with the keystream of `key` (encryption and decryption alike).
void XorKeystream(std::span<uint8_t> bytes, uint64_t key);

} // namespace secagg
} // namespace fedran

#endif
