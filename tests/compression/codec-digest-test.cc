// The exact bytes of the stateful sparsifiers over several rounds: payloads, decoded updates
// and the state they carry (error feedback's residual, dgc's momentum and accumulation), as
// FNV-1a 64 digests recorded before their kernels were rewritten for speed. A change of any
// bit fails here, so a faster path has to be the same function, not an approximation.
//
// The input is hostile on purpose: NaNs with payloads, infinities, both zeros, subnormals,
// runs of equal magnitudes (top-k ties), a tensor large enough for every sampled, streamed
// and huge-page path (>= 2^22 floats), one of 1,000 and one of 7 (a partial 64-bit word).

#include "compression/codec-spec.h"
#include "compression/internal/dgc-codec.h"
#include "compression/internal/error-feedback-codec.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <limits>
#include <span>
#include <vector>

namespace fedran
{
namespace
{

using nlohmann::json;

/// FNV-1a 64, fed bytes or floats (by their bits, little-endian).
class Digest
{
  public:
    void Add(std::span<const uint8_t> bytes)
    {
        for (const uint8_t byte : bytes)
        {
            m_hash = (m_hash ^ byte) * 0x100000001b3ull;
        }
    }

    void Add(std::span<const float> values)
    {
        for (const float value : values)
        {
            const uint32_t bits = std::bit_cast<uint32_t>(value);
            for (int shift = 0; shift < 32; shift += 8)
            {
                m_hash = (m_hash ^ ((bits >> shift) & 0xff)) * 0x100000001b3ull;
            }
        }
    }

    uint64_t Value() const
    {
        return m_hash;
    }

  private:
    uint64_t m_hash = 0xcbf29ce484222325ull;
};

const TensorLayout&
Layout()
{
    static const TensorLayout layout({{"big", {(1u << 22) + 37}}, {"mid", {1000}}, {"tiny", {7}}});
    return layout;
}

/// Round `round`'s update: normal values with every kind of special value mixed in (infinities
/// and NaNs only with `nonFinite`).
std::vector<float>
Update(uint32_t round, bool nonFinite)
{
    Rng rng(11, round);
    std::vector<float> x(Layout().TotalSize());
    for (float& value : x)
    {
        value = static_cast<float>(rng.Normal());
    }
    const float specials[] = {
        std::bit_cast<float>(0x7fc01234u), // quiet NaN with a payload
        std::bit_cast<float>(0xffc00001u), // negative NaN
        std::numeric_limits<float>::infinity(),
        -std::numeric_limits<float>::infinity(),
        0.0f,
        -0.0f,
        std::numeric_limits<float>::denorm_min(),
        -3.0f * std::numeric_limits<float>::denorm_min(),
        std::numeric_limits<float>::max(),
    };
    // A few specials per round (a NaN only every other round, so the state is not all NaN).
    for (size_t j = 0; j < 64; ++j)
    {
        const size_t which = rng.UniformInt(std::size(specials));
        if ((which < 2 && round % 2 == 1) || (which < 4 && !nonFinite))
        {
            continue;
        }
        x[rng.UniformInt(x.size())] = specials[which];
    }
    // Ties: a run of one magnitude with both signs, near the top-1% cut of N(0, 1).
    for (size_t j = 0; j < 3000; ++j)
    {
        x[1000 + 7 * j] = (j % 2 == 0 ? 2.5f : -2.5f);
    }
    // Zeros and subnormals throughout the small tensors.
    const uint64_t mid = Layout().Offset(1);
    for (size_t j = 0; j < 1007; j += 3)
    {
        x[mid + j] = j % 2 == 0 ? -0.0f : std::numeric_limits<float>::denorm_min() * float(j);
    }
    return x;
}

struct Digests
{
    uint64_t payloads;
    uint64_t decoded;
    uint64_t state;
};

/// Encodes rounds 1..`rounds` with one encoder, decodes each payload with one decoder, and
/// digests the payloads, the decoded updates and `state` of the encoder after the last round.
template<typename State>
Digests
RunRounds(const json& spec, uint32_t rounds, State state, bool nonFinite = true)
{
    auto encoder = MakeCodec(spec, "test");
    auto decoder = MakeCodec(spec, "test");
    Rng rng(5, 5);
    Digest payloads;
    Digest decoded;
    std::vector<float> out(Layout().TotalSize());
    for (uint32_t round = 1; round <= rounds; ++round)
    {
        encoder->BeginRound(round);
        decoder->BeginRound(round);
        std::vector<uint8_t> payload;
        encoder->Encode(Layout(), Update(round, nonFinite), rng, payload);
        payloads.Add(payload);
        decoder->Decode(Layout(), payload, out);
        decoded.Add(out);
    }
    Digest stateDigest;
    state(*encoder, stateDigest);
    return {payloads.Value(), decoded.Value(), stateDigest.Value()};
}

void
NoState(const Codec&, Digest&)
{
}

void
Residual(const Codec& codec, Digest& digest)
{
    digest.Add(dynamic_cast<const internal::ErrorFeedbackCodec&>(codec).Residual());
}

void
MomentumAndAccumulation(const Codec& codec, Digest& digest)
{
    const auto& dgc = dynamic_cast<const internal::DgcCodec&>(codec);
    digest.Add(dgc.Momentum());
    digest.Add(dgc.Accumulation());
}

void
ExpectDigests(const Digests& got, const Digests& want)
{
    // Printed in full on a mismatch, so that a deliberate format change can be recorded.
    if (got.payloads != want.payloads || got.decoded != want.decoded || got.state != want.state)
    {
        std::printf("{0x%016llxull, 0x%016llxull, 0x%016llxull}\n",
                    static_cast<unsigned long long>(got.payloads),
                    static_cast<unsigned long long>(got.decoded),
                    static_cast<unsigned long long>(got.state));
    }
    EXPECT_EQ(got.payloads, want.payloads) << "payload bytes changed";
    EXPECT_EQ(got.decoded, want.decoded) << "decoded floats changed";
    EXPECT_EQ(got.state, want.state) << "the encoder's state changed";
}

TEST(CodecDigest, TopK)
{
    ExpectDigests(RunRounds({{"type", "top_k"}, {"ratio", 0.01}}, 2, NoState),
                  {0x67b8d5cea79e78c5ull, 0xb0d4e8dd404b52cfull, 0xcbf29ce484222325ull});
}

TEST(CodecDigest, ErrorFeedbackOverTopK)
{
    ExpectDigests(
        RunRounds({{"type", "error_feedback"}, {"base", {{"type", "top_k"}, {"ratio", 0.01}}}},
                  4,
                  Residual),
        {0x16dfeefdc2b2ba1cull, 0xab3aa3a3113d0a03ull, 0x05dfb1e07617be39ull});
}

TEST(CodecDigest, ErrorFeedbackOverDenseTopKWithCompensation)
{
    // 30%: bitmap index sets; beta 0.5 weighs the carried residual.
    ExpectDigests(RunRounds({{"type", "error_feedback"},
                             {"error_compensation", 0.5},
                             {"base", {{"type", "top_k"}, {"ratio", 0.3}}}},
                            3,
                            Residual),
                  {0x6c20b0f3efff9a2aull, 0x279ddce661e332deull, 0x46a8343f0066c580ull});
}

TEST(CodecDigest, ErrorFeedbackOverThresholdAndRandomK)
{
    ExpectDigests(RunRounds({{"type", "error_feedback"},
                             {"base", {{"type", "threshold"}, {"threshold", 1.5}}}},
                            3,
                            Residual),
                  {0xa54a629bcfab9d45ull, 0xddf4e7c99d7a3648ull, 0xd7bd5e715ec61f2bull});
    ExpectDigests(RunRounds({{"type", "error_feedback"},
                             {"base", {{"type", "random_k"}, {"ratio", 0.05}, {"scale", false}}}},
                            3,
                            Residual),
                  {0x1c831d21735c05edull, 0x186da6b923f6406bull, 0x8da3144e403aa0b0ull});
}

TEST(CodecDigest, DgcRoundMode)
{
    ExpectDigests(
        RunRounds({{"type", "dgc"}, {"mode", "round"}, {"ratio", 0.01}, {"warmup_rounds", 0}},
                  4,
                  MomentumAndAccumulation),
        {0x8f11ad5e3fb4658full, 0xd954d6b02cf7c5b8ull, 0x02348e5b39d1507aull});
}

TEST(CodecDigest, DgcRoundModeWithWarmupAndClipping)
{
    // Round 1 of the default warm-up sends 25% (bitmaps); clip_norm scales every tensor (the
    // input is finite, or every norm would be infinite).
    ExpectDigests(RunRounds({{"type", "dgc"},
                             {"mode", "round"},
                             {"ratio", 0.001},
                             {"momentum", 0.5},
                             {"clip_norm", 100.0}},
                            3,
                            MomentumAndAccumulation,
                            false),
                  {0x9fe5435b8be5fe49ull, 0xd39e98ed257c4b92ull, 0x973af471933464b1ull});
}

TEST(CodecDigest, RandomK)
{
    ExpectDigests(RunRounds({{"type", "random_k"}, {"ratio", 0.01}}, 2, NoState),
                  {0x23f7b8a5100454ccull, 0x0e1d19559fd9e9e3ull, 0xcbf29ce484222325ull});
    ExpectDigests(RunRounds({{"type", "random_k"}, {"ratio", 0.6}, {"scale", false}}, 2, NoState),
                  {0xfc654a7f30c9922eull, 0x08e506d1b3347ea3ull, 0xcbf29ce484222325ull});
    ExpectDigests(RunRounds({{"type", "random_k"}, {"k", 5}}, 1, NoState),
                  {0xdedaa4c8334bbaa3ull, 0x4ad331b96f28aa85ull, 0xcbf29ce484222325ull});
}

} // namespace
} // namespace fedran
