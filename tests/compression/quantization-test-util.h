#ifndef FEDRAN_TESTS_COMPRESSION_QUANTIZATION_TEST_UTIL_H
#define FEDRAN_TESTS_COMPRESSION_QUANTIZATION_TEST_UTIL_H

// Helpers shared by the tests of the quantizing codecs (quantization, qsgd, sign). Test-only.

#include "compression/codec-spec.h"
#include "compression/internal/simd-level.h"
#include "compression/rng.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fedran::testing
{

/// Caps the SIMD level of the quantizing kernels for its lifetime (see simd-level.h).
class SimdCap
{
  public:
    explicit SimdCap(internal::SimdLevel cap)
        : m_previous(internal::SetSimdLevelCapForTesting(cap))
    {
    }

    ~SimdCap()
    {
        internal::SetSimdLevelCapForTesting(m_previous);
    }

    SimdCap(const SimdCap&) = delete;
    SimdCap& operator=(const SimdCap&) = delete;

  private:
    internal::SimdLevel m_previous;
};

/// Every path; those the CPU lacks fall back to the best it has.
inline const std::vector<internal::SimdLevel> kSimdLevels = {internal::SimdLevel::kScalar,
                                                             internal::SimdLevel::kSse2,
                                                             internal::SimdLevel::kAvx2};

inline std::unique_ptr<Codec>
MakeFromJson(const nlohmann::json& spec)
{
    return MakeCodec(spec, "compression.uplink");
}

/// The message of the CodecConfigError that `spec` raises, or "(no error)".
inline std::string
ConfigError(const nlohmann::json& spec)
{
    try
    {
        MakeCodec(spec, "compression.uplink");
    }
    catch (const CodecConfigError& e)
    {
        return e.what();
    }
    return "(no error)";
}

inline std::vector<float>
NormalUpdate(size_t n, uint64_t seed, double scale = 1.0)
{
    Rng rng(seed, 3);
    std::vector<float> update(n);
    for (float& x : update)
    {
        x = static_cast<float>(rng.Normal() * scale);
    }
    return update;
}

inline std::vector<uint8_t>
EncodeWithSeed(Codec& codec,
               const TensorLayout& layout,
               const std::vector<float>& update,
               uint64_t seed)
{
    Rng rng(seed, 7);
    std::vector<uint8_t> payload;
    codec.Encode(layout, update, rng, payload);
    return payload;
}

inline std::vector<float>
DecodeAll(Codec& codec, const TensorLayout& layout, const std::vector<uint8_t>& payload)
{
    std::vector<float> out(layout.TotalSize());
    codec.Decode(layout, payload, out);
    return out;
}

/// Offset of the DecodeError that decoding `payload` raises, or SIZE_MAX (and a failure).
inline size_t
DecodeErrorOffset(Codec& codec, const TensorLayout& layout, const std::vector<uint8_t>& payload)
{
    std::vector<float> out(layout.TotalSize());
    try
    {
        codec.Decode(layout, payload, out);
    }
    catch (const DecodeError& e)
    {
        return e.Offset();
    }
    ADD_FAILURE() << "no DecodeError";
    return SIZE_MAX;
}

inline void
PutU32(std::vector<uint8_t>& bytes, size_t at, uint32_t value)
{
    for (int k = 0; k < 4; ++k)
    {
        bytes[at + k] = static_cast<uint8_t>(value >> (8 * k));
    }
}

inline float
F32At(const std::vector<uint8_t>& bytes, size_t at)
{
    uint32_t bits = 0;
    for (int k = 0; k < 4; ++k)
    {
        bits |= uint32_t{bytes[at + k]} << (8 * k);
    }
    return std::bit_cast<float>(bits);
}

/// An independent transcription of the documented dither sequence (internal/dither.h): four
/// xorshift128+ lanes seeded s0, s1 per lane from the Rng; value j of a block is bits
/// 16 (j % 4) of lane j / 4.
class ReferenceDither
{
  public:
    explicit ReferenceDither(Rng& rng)
    {
        for (int lane = 0; lane < 4; ++lane)
        {
            m_state[lane][0] = rng.NextU64();
            m_state[lane][1] = rng.NextU64();
        }
    }

    void StartTensor()
    {
        m_used = 16;
    }

    uint32_t Next()
    {
        if (m_used == 16)
        {
            for (int lane = 0; lane < 4; ++lane)
            {
                uint64_t s1 = m_state[lane][0];
                const uint64_t s0 = m_state[lane][1];
                m_state[lane][0] = s0;
                s1 ^= s1 << 23;
                m_state[lane][1] = s1 ^ s0 ^ (s1 >> 17) ^ (s0 >> 26);
                m_out[lane] = m_state[lane][1] + s0;
            }
            m_used = 0;
        }
        const int j = m_used++;
        return static_cast<uint32_t>(m_out[j / 4] >> (16 * (j % 4))) & 0xFFFF;
    }

  private:
    uint64_t m_state[4][2];
    uint64_t m_out[4] = {};
    int m_used = 16;
};

/// Flips random bytes of `payload` many times; decoding must either succeed or throw a
/// DecodeError inside the payload (and never crash, which the sanitizer build checks).
inline void
ExpectCorruptionIsHandled(Codec& codec,
                          const TensorLayout& layout,
                          const std::vector<uint8_t>& payload,
                          uint64_t seed,
                          int trials)
{
    Rng rng(seed, 9);
    std::vector<float> out(layout.TotalSize());
    for (int trial = 0; trial < trials; ++trial)
    {
        auto bad = payload;
        const int flips = 1 + static_cast<int>(rng.UniformInt(4));
        for (int k = 0; k < flips; ++k)
        {
            // Mostly the body; sometimes the codec header after the 8-byte layout header.
            const size_t at = 8 + rng.UniformInt(bad.size() - 8);
            bad[at] ^= static_cast<uint8_t>(1 + rng.UniformInt(255));
        }
        try
        {
            codec.Decode(layout, bad, out);
        }
        catch (const DecodeError& e)
        {
            EXPECT_LE(e.Offset(), bad.size());
        }
    }
}

} // namespace fedran::testing

#endif
