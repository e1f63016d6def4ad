#ifndef FEDRAN_MODELS_FL_SECAGG_SECAGG_MESSAGES_H
#define FEDRAN_MODELS_FL_SECAGG_SECAGG_MESSAGES_H

// The payloads of secure aggregation's frames (update-frame.h types SecAgg*), little-endian.
// Keys, ciphertexts and shares are padded to the sizes Flower's SecAgg+ sends for them
// (reference: PEM P-384 public key 215 B, Fernet ciphertext of a neighbour's shares 612 B,
// share of a 32-byte seed 52 B, share of a PKCS8 P-384 private key 324 B): the secrets here
// are 61-bit field elements (secagg-math.h), the bytes on the wire those of the real thing.
//
//   Setup          server -> client  u32 shares, u32 threshold, u32 bits, f64 c, u64 Q,
//                                    f64 max_weight                                  (36 B)
//   AdvertiseKeys  client -> server  encryption public key, mask public key      (2 x 215 B)
//   Keys           server -> client  u32 n, n x (u32 id, 2 x 215 B): the neighbours' keys
//   ShareKeys      client -> server  u32 n, n x (u32 to, 612 B ciphertext)
//   Shares         server -> client  u32 n, n x (u32 from, 612 B ciphertext): the relay
//   MaskedInput    client -> server  u32 count, count elements of b bits packed
//   Unmask         server -> client  u32 n, n survivor ids, u32 m, m dropped ids
//   UnmaskShares   client -> server  u32 n, n x (u32 id, u8 kind, 52 B | 324 B share)

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace fedran::secagg
{

constexpr size_t kPublicKeyBytes = 215;
constexpr size_t kCiphertextBytes = 612;
constexpr size_t kSeedShareBytes = 52;
constexpr size_t kKeyShareBytes = 324;
constexpr size_t kSetupBytes = 36;
/// What a ciphertext holds before its padding: u32 from, u32 to, u64 key share, u64 seed share.
constexpr size_t kCiphertextPlainBytes = 24;

/// Payload bytes of each message (docs/privacy.md's formulas; the tests hold the encoders to
/// them). `neighbours`: entries in the list; `bits`: field bits.
constexpr size_t
AdvertiseBytes()
{
    return 2 * kPublicKeyBytes;
}

constexpr size_t
KeysBytes(size_t neighbours)
{
    return 4 + neighbours * (4 + 2 * kPublicKeyBytes);
}

constexpr size_t
ShareKeysBytes(size_t neighbours)
{
    return 4 + neighbours * (4 + kCiphertextBytes);
}

constexpr size_t
MaskedBytes(size_t elements, uint32_t bits)
{
    return 4 + (elements * bits + 7) / 8;
}

constexpr size_t
UnmaskBytes(size_t survivors, size_t dropped)
{
    return 8 + 4 * (survivors + dropped);
}

constexpr size_t
UnmaskSharesBytes(size_t seedShares, size_t keyShares)
{
    return 4 + seedShares * (5 + kSeedShareBytes) + keyShares * (5 + kKeyShareBytes);
}

/// The round's parameters, as the Setup frame carries them.
struct SecAggSetup
{
    uint32_t shares = 0;    ///< neighbourhood size, the client included
    uint32_t threshold = 0; ///< t
    uint32_t bits = 32;     ///< field bits b
    double clippingRange = 8.0;
    uint64_t quantizationRange = 1u << 22;
    double maxWeight = 1000.0;

    uint64_t FieldMask() const
    {
        return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    }
};

/// Share kinds in UnmaskShares.
enum class ShareKind : uint8_t
{
    SelfMaskSeed = 1, ///< of a survivor's self-mask seed b_u
    MaskKey = 2,      ///< of a dropped client's mask secret key s_u^SK
};

std::vector<uint8_t> EncodeSetup(const SecAggSetup& setup);
/// Throws DecodeError on a malformed payload.
SecAggSetup DecodeSetup(std::span<const uint8_t> payload);

/// Little-endian writers and a bounds-checked reader (throwing DecodeError).
void PutU32(std::vector<uint8_t>& out, uint32_t v);
void PutU64(std::vector<uint8_t>& out, uint64_t v);
/// A field element padded with zeros to `bytes` (>= 8).
void PutPadded(std::vector<uint8_t>& out, uint64_t v, size_t bytes);

class PayloadReader
{
  public:
    explicit PayloadReader(std::span<const uint8_t> bytes, const char* what);
    uint8_t U8();
    uint32_t U32();
    uint64_t U64();
    /// A padded field element: its first 8 bytes; the padding must be zero.
    uint64_t Padded(size_t bytes);
    std::span<const uint8_t> Bytes(size_t n);
    /// Throws unless every byte was read.
    void End() const;

    size_t Remaining() const
    {
        return m_bytes.size() - m_pos;
    }

  private:
    void Need(size_t n) const;

    std::span<const uint8_t> m_bytes;
    size_t m_pos = 0;
    const char* m_what;
};

} // namespace fedran::secagg

#endif
