// dgc: warm-up schedule, momentum correction with factor masking, conservation of the
// accumulated update, the sampled selection's count bound, and payload validation (mode
// "round"). Mode step: dgc-step-mode-test.cc, and against a direct implementation of the
// paper's Algorithm 1, tests/fl/dgc-per-step-test.cc.

#include "compression/codec-spec.h"
#include "compression/internal/dgc-codec.h"
#include "compression/internal/dgc-select.h"
#include "compression/internal/sum-of-squares.h"
#include "compression/internal/top-k-select.h"
#include "dgc-test-util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace fedran
{
namespace
{

using internal::DgcCodec;
using internal::SparsityWarmup;
using nlohmann::json;

/// The tests below before the mode-step ones are of mode "round" (Encode on the finished
/// update), which a dgc spec without "mode" gets here.
json
RoundMode(json spec)
{
    if (spec.value("type", "") == "dgc" && !spec.contains("mode"))
    {
        spec["mode"] = "round";
    }
    return spec;
}

std::unique_ptr<Codec>
Make(const json& spec)
{
    return MakeCodec(RoundMode(spec), "compression.uplink");
}

using testing::AsDgc;
using testing::Decode;
using testing::Encode;
using testing::NonZeros;
using testing::RandomVector;

TEST(DgcCodec, WarmupScheduleIsExponential)
{
    const SparsityWarmup warmup(4, 4);          // dgc's default
    EXPECT_EQ(warmup.Density(0.001, 0), 0.001); // no BeginRound yet: final ratio
    EXPECT_EQ(warmup.Density(0.001, 1), 0.25);
    EXPECT_EQ(warmup.Density(0.001, 2), 0.0625);
    EXPECT_EQ(warmup.Density(0.001, 3), 0.015625);
    EXPECT_EQ(warmup.Density(0.001, 4), 0.00390625);
    EXPECT_EQ(warmup.Density(0.001, 5), 0.001);
    EXPECT_EQ(warmup.Density(0.01, 4), 0.01); // never below the final ratio
    EXPECT_EQ(SparsityWarmup(0, 0).Density(0.001, 1), 0.001);
    // Stages of several rounds: 20 rounds in 4 steps of 5.
    const SparsityWarmup slow(20, 4);
    const std::vector<double> expected = {0.25, 0.0625, 0.015625, 0.00390625};
    for (uint32_t round = 1; round <= 20; ++round)
    {
        EXPECT_EQ(slow.Density(0.001, round), expected[(round - 1) / 5]) << "round " << round;
    }
    EXPECT_EQ(slow.Density(0.001, 21), 0.001);
    // Uneven: 10 rounds in 4 steps; every stage appears, in order, ending at round 10.
    const SparsityWarmup uneven(10, 4);
    std::vector<double> seen;
    for (uint32_t round = 1; round <= 10; ++round)
    {
        if (seen.empty() || seen.back() != uneven.MinDensity(round))
        {
            seen.push_back(uneven.MinDensity(round));
        }
    }
    EXPECT_EQ(seen, expected);
    EXPECT_EQ(uneven.MinDensity(11), 0.0);
    EXPECT_EQ(DgcCodec::SentCount(0.001, 4096), 4u);
    EXPECT_EQ(DgcCodec::SentCount(0.001, 10), 1u);
    EXPECT_EQ(DgcCodec::SentCount(0.25, 0), 0u);
    EXPECT_EQ(DgcCodec::SentCount(1.0, 7), 7u);
}

TEST(DgcCodec, SendsTheScheduledCountPerRound)
{
    // One small tensor (exact selection) and one large enough for the sampled threshold.
    const TensorLayout layout({{"small", {64, 64}}, {"large", {1u << 20}}});
    auto codec = Make({{"type", "dgc"}});
    EXPECT_EQ(codec->Name(), "dgc");
    EXPECT_EQ(codec->Id(), 32);
    Rng data(1, 0);
    Rng rng(1, 1);
    const std::vector<std::pair<uint32_t, std::pair<size_t, size_t>>> rounds = {
        {1, {1024, 262144}},
        {2, {256, 65536}},
        {3, {64, 16384}},
        {4, {16, 4096}},
        {5, {4, 1048}},
        {50, {4, 1048}},
    };
    for (const auto& [round, counts] : rounds)
    {
        codec->BeginRound(round);
        const auto payload = Encode(*codec, layout, RandomVector(layout.TotalSize(), data), rng);
        const auto decoded = Decode(*codec, layout, payload);
        const std::vector<float> small(decoded.begin(), decoded.begin() + 4096);
        const std::vector<float> large(decoded.begin() + 4096, decoded.end());
        EXPECT_EQ(NonZeros(small), counts.first) << "round " << round;
        // The sampled path may send fewer, never more, and never under 0.8 k.
        EXPECT_LE(NonZeros(large), counts.second) << "round " << round;
        EXPECT_GE(5 * NonZeros(large), 4 * counts.second) << "round " << round;
    }
}

TEST(DgcCodec, MasksMomentumAndAccumulationAtSentIndices)
{
    const TensorLayout layout({{"w", {32, 32}}, {"b", {32}}});
    auto codec = Make({{"type", "dgc"}, {"ratio", 0.05}, {"warmup_rounds", 0}});
    Rng data(2, 0);
    Rng rng(2, 1);
    for (int round = 0; round < 5; ++round)
    {
        const auto payload = Encode(*codec, layout, RandomVector(layout.TotalSize(), data), rng);
        const auto decoded = Decode(*codec, layout, payload);
        const auto u = AsDgc(*codec).Momentum();
        const auto v = AsDgc(*codec).Accumulation();
        size_t sent = 0;
        for (size_t i = 0; i < decoded.size(); ++i)
        {
            if (decoded[i] != 0.0f)
            {
                ++sent;
                EXPECT_EQ(u[i], 0.0f) << i;
                EXPECT_EQ(v[i], 0.0f) << i;
            }
            else
            {
                EXPECT_NE(v[i], 0.0f) << i; // unsent: still accumulating
            }
        }
        EXPECT_EQ(sent, 51u + 1u); // floor(0.05 * 1024) + max(1, floor(0.05 * 32))
    }
}

TEST(DgcCodec, ConservesTheAccumulatedMomentum)
{
    // sum over rounds of what was sent, plus v, equals the sum of the momentum terms u_t that
    // were added to v: DGC delays, it never drops.
    const TensorLayout layout({{"w", {40, 50}}, {"b", {50}}});
    const size_t n = layout.TotalSize();
    auto codec = Make({{"type", "dgc"}, {"ratio", 0.01}, {"momentum", 0.9}});
    Rng data(3, 0);
    Rng rng(3, 1);
    std::vector<double> sent(n, 0.0);
    std::vector<double> added(n, 0.0);
    std::vector<float> uBefore(n, 0.0f); // u after the previous round's masking
    constexpr uint32_t kRounds = 30;
    for (uint32_t round = 1; round <= kRounds; ++round)
    {
        codec->BeginRound(round);
        const auto g = RandomVector(n, data);
        const auto decoded = Decode(*codec, layout, Encode(*codec, layout, g, rng));
        for (size_t i = 0; i < n; ++i)
        {
            added[i] += 0.9f * uBefore[i] + g[i]; // the same float ops as the codec
            sent[i] += decoded[i];
        }
        const auto u = AsDgc(*codec).Momentum();
        uBefore.assign(u.begin(), u.end());
    }
    const auto v = AsDgc(*codec).Accumulation();
    size_t accumulating = 0;
    for (size_t i = 0; i < n; ++i)
    {
        // v sums up to ~30 terms of size ~10 in float: allow that rounding.
        EXPECT_NEAR(sent[i] + v[i], added[i], 30 * 4 * 6e-8 * 20) << i;
        accumulating += v[i] != 0.0f;
    }
    EXPECT_GT(accumulating, n / 2); // most of the mass is still local at 1% density
}

TEST(DgcCodec, RoundModeMatchesFormingTheStateFirstAndSharesItsFirstBuffer)
{
    // The encoder forms u and v in the pass that collects the candidates, and keeps v in u's
    // buffer until a second round makes them differ. Against the plain order (u = m u + s g,
    // v += u over the whole update, then SelectDgc per tensor, then masking), bit for bit:
    // payloads, u and v, over rounds, with clipping, -0.0f, infinities and NaNs in g.
    const TensorLayout layout({{"w", {1u << 16}}, {"b", {300}}});
    const size_t n = layout.TotalSize();
    const float momentum = 0.9f;
    const float clipNorm = 500.0f;
    auto codec = Make({{"type", "dgc"},
                       {"ratio", 0.01},
                       {"momentum", momentum},
                       {"clip_norm", clipNorm},
                       {"warmup_rounds", 0}});
    Rng data(9, 0);
    Rng rng(9, 1);
    Rng reference(9, 1);
    std::vector<float> u(n, 0.0f);
    std::vector<float> v(n, 0.0f);
    for (uint32_t round = 1; round <= 4; ++round)
    {
        auto g = RandomVector(n, data, 2.0);
        g[7] = -0.0f;
        // In "b" (its norm is NaN, so it is not clipped); "w" (norm ~512) is clipped.
        g[n - 100 + round] = std::numeric_limits<float>::infinity();
        g[n - 5] = std::numeric_limits<float>::quiet_NaN();
        g[round == 2 ? 11 : 12] = 0.0f;
        codec->BeginRound(round);
        const auto payload = Encode(*codec, layout, g, rng);

        std::vector<float> want(n, 0.0f);
        for (size_t t = 0; t < layout.TensorCount(); ++t)
        {
            const size_t offset = layout.Offset(t);
            const size_t size = layout.Tensors()[t].Size();
            const double norm =
                std::sqrt(internal::SumOfSquares(std::span<const float>(g).subspan(offset, size)));
            const float scale = norm > clipNorm ? float(clipNorm / norm) : 1.0f;
            for (size_t i = offset; i < offset + size; ++i)
            {
                u[i] = momentum * u[i] + scale * g[i];
                v[i] += u[i];
            }
            std::vector<uint32_t> indices;
            std::vector<float> values;
            internal::SelectDgc(std::span<const float>(v).subspan(offset, size),
                                DgcCodec::SentCount(0.01, size),
                                0.01,
                                reference,
                                indices,
                                values);
            for (size_t j = 0; j < indices.size(); ++j)
            {
                want[offset + indices[j]] = values[j];
                u[offset + indices[j]] = 0.0f;
                v[offset + indices[j]] = 0.0f;
            }
        }
        const auto got = Decode(*codec, layout, payload);
        ASSERT_EQ(0, std::memcmp(got.data(), want.data(), n * sizeof(float))) << round;
        const auto codecU = AsDgc(*codec).Momentum();
        const auto codecV = AsDgc(*codec).Accumulation();
        ASSERT_EQ(codecU.size(), n);
        ASSERT_EQ(codecV.size(), n);
        EXPECT_EQ(0, std::memcmp(codecU.data(), u.data(), n * sizeof(float))) << round;
        EXPECT_EQ(0, std::memcmp(codecV.data(), v.data(), n * sizeof(float))) << round;
        // One buffer after the first round, two once the second made u and v differ.
        EXPECT_EQ(codecV.data() == codecU.data(), round == 1) << round;
    }
}

TEST(DgcCodec, RoundTripSendsTheLargestAccumulatedValues)
{
    // momentum 0, first round: v = g, so the payload must be the exact top-k of g.
    const TensorLayout layout({{"w", {1u << 19}}, {"b", {100}}});
    auto codec = Make({{"type", "dgc"}, {"momentum", 0}, {"ratio", 0.002}});
    Rng data(4, 0);
    Rng rng(4, 1);
    const auto g = RandomVector(layout.TotalSize(), data);
    const auto payload = Encode(*codec, layout, g, rng);
    const auto decoded = Decode(*codec, layout, payload);

    std::vector<uint32_t> expected;
    internal::SelectTopK(std::span<const float>(g).first(1u << 19), 1048, expected);
    std::vector<float> want(layout.TotalSize(), 0.0f);
    for (const uint32_t i : expected)
    {
        want[i] = g[i];
    }
    size_t biggestBias = (1u << 19) + 0;
    for (size_t i = 1u << 19; i < g.size(); ++i)
    {
        if (std::abs(g[i]) > std::abs(g[biggestBias]))
        {
            biggestBias = i;
        }
    }
    want[biggestBias] = g[biggestBias];
    EXPECT_EQ(decoded, want);
    // Header, then per tensor u8 mode + u32 count + varint gaps + k float32.
    EXPECT_GT(payload.size(), 8u + 5 + 1048 * 5 + 5 + 4);
    EXPECT_LT(payload.size(), 8u + 5 + 1048 * 7 + 5 + 5);
}

TEST(DgcCodec, SampledSelectionStaysWithinTheCountBound)
{
    // Gaussian, heavy-tailed, sparse and tied data, many seeds and sizes.
    std::vector<uint32_t> indices;
    std::vector<float> values;
    std::vector<uint32_t> exact;
    size_t exactMatches = 0;
    size_t trials = 0;
    for (uint64_t seed = 0; seed < 12; ++seed)
    {
        Rng data(seed, 0);
        const size_t d = (seed % 3 == 0) ? 300000 : 1u << 20;
        std::vector<float> v(d);
        for (size_t i = 0; i < d; ++i)
        {
            switch (seed % 4)
            {
                case 0:
                    v[i] = static_cast<float>(data.Normal());
                    break;
                case 1:
                    v[i] = static_cast<float>(data.Normal() / (data.Uniform() + 1e-3));
                    break;
                case 2:
                    v[i] = data.Uniform() < 0.002 ? static_cast<float>(data.Normal()) : 0.0f;
                    break;
                default:
                    v[i] = static_cast<float>(std::floor(4 * data.Uniform()));
                    break;
            }
        }
        for (const size_t k : {size_t(1), size_t(d / 1000), size_t(d / 100), size_t(d / 3)})
        {
            Rng rng(seed, 1);
            internal::SelectDgc(v, k, 0.01, rng, indices, values);
            ++trials;
            ASSERT_LE(indices.size(), k);
            ASSERT_GE(5 * indices.size(), 4 * k) << "seed " << seed << " k " << k;
            ASSERT_EQ(values.size(), indices.size());
            for (size_t j = 0; j < indices.size(); ++j)
            {
                ASSERT_LT(indices[j], d);
                ASSERT_TRUE(j == 0 || indices[j - 1] < indices[j]);
                ASSERT_EQ(values[j], v[indices[j]]);
            }
            internal::SelectTopK(v, k, exact);
            exactMatches += indices == exact;
        }
    }
    // With 1.5 k expected candidates the sample practically never falls short: the result is
    // the exact top-k (ties to the lower index, as SelectTopK).
    EXPECT_EQ(exactMatches, trials);
}

TEST(DgcCodec, LayerRatiosAndClipping)
{
    const TensorLayout layout({{"w", {10, 10}}, {"b", {10}}});
    auto codec = Make({{"type", "dgc"},
                       {"ratio", 0.1},
                       {"momentum", 0},
                       {"clip_norm", 1.0},
                       {"layer_ratios", {{"b", 1.0}}}});
    Rng data(5, 0);
    Rng rng(5, 1);
    auto g = RandomVector(110, data, 10.0);
    g[100] = 3.0f; // b has norm 5: clipped to 1, so b / 5 is sent whole
    g[101] = 4.0f;
    for (size_t i = 102; i < 110; ++i)
    {
        g[i] = 0.0f;
    }
    const auto decoded = Decode(*codec, layout, Encode(*codec, layout, g, rng));
    EXPECT_EQ(NonZeros(std::vector<float>(decoded.begin(), decoded.begin() + 100)), 10u);
    EXPECT_FLOAT_EQ(decoded[100], 0.6f);
    EXPECT_FLOAT_EQ(decoded[101], 0.8f);
    double wNorm = 0.0;
    for (size_t i = 0; i < 100; ++i)
    {
        wNorm += static_cast<double>(decoded[i]) * decoded[i];
    }
    EXPECT_LE(std::sqrt(wNorm), 1.0 + 1e-6); // w clipped to norm 1 before selection

    auto unknown = Make({{"type", "dgc"}, {"layer_ratios", {{"bias", 0.5}}}});
    std::vector<uint8_t> out;
    try
    {
        unknown->Encode(layout, g, rng, out);
        FAIL() << "no CodecConfigError";
    }
    catch (const CodecConfigError& e)
    {
        EXPECT_STREQ(e.what(),
                     "compression.uplink.layer_ratios.bias: the model has no tensor of that name");
    }
}

TEST(DgcCodec, IsDeterministicAndSurvivesNonFiniteValues)
{
    const TensorLayout layout({{"w", {1u << 18}}});
    Rng data(6, 0);
    auto g = RandomVector(layout.TotalSize(), data);
    auto a = Make({{"type", "dgc"}});
    auto b = Make({{"type", "dgc"}});
    Rng rngA(6, 1);
    Rng rngB(6, 1);
    EXPECT_EQ(Encode(*a, layout, g, rngA), Encode(*b, layout, g, rngB));
    g[5] = std::numeric_limits<float>::quiet_NaN();
    g[7] = std::numeric_limits<float>::infinity();
    const auto decoded = Decode(*a, layout, Encode(*a, layout, g, rngA));
    EXPECT_TRUE(std::isnan(decoded[5])); // NaN ranks above everything: sent, not hidden
    EXPECT_TRUE(std::isinf(decoded[7]));
}

TEST(DgcCodec, RejectsCorruptPayloads)
{
    const TensorLayout layout({{"w", {16, 16}}, {"b", {16}}});
    auto codec = Make({{"type", "dgc"}, {"ratio", 0.05}});
    Rng data(7, 0);
    Rng rng(7, 1);
    const auto payload = Encode(*codec, layout, RandomVector(layout.TotalSize(), data), rng);
    std::vector<float> decoded(layout.TotalSize());
    for (size_t length = 0; length < payload.size(); ++length)
    {
        const std::vector<uint8_t> prefix(payload.begin(), payload.begin() + length);
        EXPECT_THROW(codec->Decode(layout, prefix, decoded), DecodeError) << length;
    }
    auto trailing = payload;
    trailing.push_back(0);
    EXPECT_THROW(codec->Decode(layout, trailing, decoded), DecodeError);
    EXPECT_THROW(codec->Decode(TensorLayout({{"w", {16, 16}}}), payload, decoded),
                 std::invalid_argument); // wrong-sized output: a caller bug

    // Byte 8 is the first tensor's mode, bytes 9-12 its count: an impossible count (more than
    // the tensor holds) must be rejected at that offset.
    auto badCount = payload;
    badCount[9] = 0xff;
    badCount[10] = 0xff;
    try
    {
        codec->Decode(layout, badCount, decoded);
        FAIL() << "no DecodeError";
    }
    catch (const DecodeError& e)
    {
        EXPECT_GE(e.Offset(), 8u);
    }
    // Every single-byte corruption either decodes or throws DecodeError (no crash, no hang).
    for (size_t i = 0; i < payload.size(); ++i)
    {
        for (const uint8_t flip : {0x01, 0x80, 0xff})
        {
            auto corrupt = payload;
            corrupt[i] ^= flip;
            try
            {
                codec->Decode(layout, corrupt, decoded);
            }
            catch (const DecodeError&)
            {
            }
        }
    }
}

std::string
ConfigError(const json& spec)
{
    try
    {
        MakeCodec(RoundMode(spec), "compression.uplink");
    }
    catch (const CodecConfigError& e)
    {
        return e.what();
    }
    return "(no error)";
}

TEST(DgcCodec, RejectsBadParameters)
{
    EXPECT_EQ(ConfigError({{"type", "dgc"}, {"ratio", 0}}),
              "compression.uplink.ratio: must be in (0, 1], got 0.0");
    EXPECT_EQ(ConfigError({{"type", "dgc"}, {"momentum", 1}}),
              "compression.uplink.momentum: must be in [0, 1), got 1.0");
    EXPECT_EQ(ConfigError({{"type", "dgc"}, {"clip_norm", -1}})
                  .rfind("compression.uplink.clip_norm: must be in [0, ", 0),
              0u);
    EXPECT_EQ(ConfigError({{"type", "dgc"}, {"clip_norm", 1e-50}})
                  .rfind("compression.uplink.clip_norm: must be in [0, ", 0),
              0u);
    EXPECT_EQ(ConfigError({{"type", "dgc"}, {"sample_ratio", 2}}),
              "compression.uplink.sample_ratio: must be in (0, 1], got 2.0");
    EXPECT_EQ(ConfigError({{"type", "dgc"}, {"warmup_rounds", 1.5}}),
              "compression.uplink.warmup_rounds: must be an integer in [0, 4294967295], got 1.5");
    EXPECT_EQ(ConfigError({{"type", "dgc"}, {"warmup_rounds", -1}}),
              "compression.uplink.warmup_rounds: must be an integer in [0, 4294967295], got -1");
    EXPECT_EQ(ConfigError({{"type", "dgc"}, {"warmup_rounds", 8}, {"warmup_stages", 9}}),
              "compression.uplink.warmup_stages: must be an integer in [1, warmup_rounds = 8], "
              "got 9");
    EXPECT_EQ(ConfigError({{"type", "dgc"}, {"warmup_stages", 0}}),
              "compression.uplink.warmup_stages: must be an integer in [1, warmup_rounds = 4], "
              "got 0");
    EXPECT_EQ(ConfigError({{"type", "dgc"}, {"layer_ratios", 0.5}}),
              "compression.uplink.layer_ratios: must be an object of tensor name -> ratio, got "
              "number");
    EXPECT_EQ(ConfigError({{"type", "dgc"}, {"layer_ratios", {{"w", 0}}}}),
              "compression.uplink.layer_ratios.w: must be a ratio in (0, 1], got 0");
    EXPECT_EQ(ConfigError({{"type", "dgc"}, {"layer_ratios", {{"w", "all"}}}}),
              "compression.uplink.layer_ratios.w: must be a ratio in (0, 1], got \"all\"");
    EXPECT_EQ(ConfigError({{"type", "dgc"}, {"k", 5}}),
              "compression.uplink.k: unknown key for codec 'dgc'");
    EXPECT_EQ(ConfigError({{"type", "dgc"},
                           {"ratio", 0.01},
                           {"momentum", 0},
                           {"clip_norm", 0},
                           {"warmup_rounds", 0},
                           {"sample_ratio", 1},
                           {"layer_ratios", json::object()}}),
              "(no error)");
}

} // namespace
} // namespace fedran
