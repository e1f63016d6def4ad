// The sparsifying codecs top_k, random_k and threshold through the public API: what they keep,
// payload sizes, random_k's statistics, parameter errors and malformed payloads.

#include "compression/codec-spec.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace fedran
{
namespace
{

using nlohmann::json;

std::unique_ptr<Codec>
Make(const json& spec)
{
    return MakeCodec(spec, "compression.uplink");
}

std::vector<float>
Normal(size_t n, uint64_t seed)
{
    Rng rng(seed, 0);
    std::vector<float> x(n);
    for (float& v : x)
    {
        v = static_cast<float>(rng.Normal());
    }
    return x;
}

std::vector<uint8_t>
Encode(Codec& codec, const TensorLayout& layout, const std::vector<float>& x, uint64_t seed = 1)
{
    Rng rng(seed, 1);
    std::vector<uint8_t> payload;
    codec.Encode(layout, x, rng, payload);
    return payload;
}

std::vector<float>
Decode(Codec& codec, const TensorLayout& layout, const std::vector<uint8_t>& payload)
{
    std::vector<float> out(layout.TotalSize(), 99.0f);
    codec.Decode(layout, payload, out);
    return out;
}

/// A layout with an odd mix: a matrix, a short bias, a scalar and an empty tensor.
TensorLayout
Mixed()
{
    return TensorLayout({{"w", {300, 70}}, {"b", {70}}, {"s", {}}, {"e", {0}}, {"v", {999}}});
}

/// The k largest |x| of one tensor, ties to the lower index, as a brute-force set.
std::vector<bool>
TopKMask(std::span<const float> x, size_t k)
{
    std::vector<uint32_t> order(x.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return std::fabs(x[a]) > std::fabs(x[b]);
    });
    std::vector<bool> mask(x.size(), false);
    for (size_t j = 0; j < std::min(k, x.size()); ++j)
    {
        mask[order[j]] = true;
    }
    return mask;
}

void
ExpectKeepsExactly(const std::vector<float>& x,
                   const std::vector<float>& decoded,
                   const std::vector<bool>& mask)
{
    for (size_t i = 0; i < x.size(); ++i)
    {
        const float expected = mask[i] ? x[i] : 0.0f;
        ASSERT_EQ(std::bit_cast<uint32_t>(decoded[i]), std::bit_cast<uint32_t>(expected))
            << "element " << i;
    }
}

TEST(TopKCodec, KeepsExactlyTheLargestPerTensor)
{
    const TensorLayout layout = Mixed();
    std::vector<float> x = Normal(layout.TotalSize(), 2);
    x[5] = x[6] = 9.0f; // a tie
    for (const json& params : {json{{"ratio", 0.01}},
                               json{{"ratio", 0.3}},
                               json{{"k", 50}},
                               json{{"k", 1}},
                               json{{"ratio", 1.0}},
                               json::object()})
    {
        json spec = params;
        spec["type"] = "top_k";
        auto codec = Make(spec);
        EXPECT_EQ(codec->Name(), "top_k");
        EXPECT_EQ(codec->Id(), 10);
        const std::vector<float> decoded = Decode(*codec, layout, Encode(*codec, layout, x));
        std::vector<bool> mask;
        for (size_t t = 0; t < layout.TensorCount(); ++t)
        {
            const uint64_t d = layout.Tensors()[t].Size();
            const uint64_t k =
                params.contains("k")
                    ? std::min<uint64_t>(params["k"].get<uint64_t>(), d)
                    : std::min<uint64_t>(d,
                                         std::max<uint64_t>(1,
                                                            static_cast<uint64_t>(std::floor(
                                                                params.value("ratio", 0.01) * d))));
            const auto part = TopKMask(std::span(x).subspan(layout.Offset(t), d), k);
            mask.insert(mask.end(), part.begin(), part.end());
        }
        ExpectKeepsExactly(x, decoded, mask);
    }
}

TEST(TopKCodec, OnePercentOfAMillionCostsAtMostSixBytesPerElement)
{
    const TensorLayout layout({{"w", {1000, 1000}}});
    const std::vector<float> x = Normal(1000000, 3);
    auto codec = Make({{"type", "top_k"}, {"ratio", 0.01}});
    const std::vector<uint8_t> payload = Encode(*codec, layout, x);
    RecordProperty("payload_bytes", static_cast<int>(payload.size()));
    EXPECT_LE(payload.size(), 6 * 10000);
    EXPECT_GT(payload.size(), 4 * 10000 + 10000); // at least one index byte each
    auto dense = Make({{"type", "top_k"}, {"ratio", 0.5}});
    // At 50% the bitmap: 125,000 bytes of index plus the values.
    EXPECT_EQ(Encode(*dense, layout, x).size(), 8 + 5 + 125000 + 4 * 500000);
}

TEST(TopKCodec, RejectsABodyWithAnotherCount)
{
    const TensorLayout layout({{"w", {1000}}});
    const std::vector<float> x = Normal(1000, 4);
    auto k10 = Make({{"type", "top_k"}, {"k", 10}});
    auto k11 = Make({{"type", "top_k"}, {"k", 11}});
    try
    {
        Decode(*k11, layout, Encode(*k10, layout, x));
        FAIL() << "accepted";
    }
    catch (const DecodeError& e)
    {
        EXPECT_EQ(e.Offset(), 9u); // the count field after the header and mode byte
    }
}

size_t
NonZeros(const std::vector<float>& x)
{
    return static_cast<size_t>(
        std::count_if(x.begin(), x.end(), [](float v) { return v != 0.0f; }));
}

TEST(TopKCodec, WarmupKeepsTheScheduledCountEachRound)
{
    // 8 warm-up rounds in 4 steps of 2: 25%, 6.25%, 1.5625%, 0.390625%, then 0.1%.
    const TensorLayout layout({{"w", {100, 100}}});
    const json spec = {{"type", "top_k"},
                       {"ratio", 0.001},
                       {"warmup_rounds", 8},
                       {"warmup_stages", 4}};
    auto encoder = Make(spec);
    auto decoder = Make(spec);
    const std::vector<size_t> kept = {10, 2500, 2500, 625, 625, 156, 156, 39, 39, 10, 10};
    std::vector<size_t> bytes;
    for (uint32_t round = 0; round < kept.size(); ++round)
    {
        const std::vector<float> x = Normal(layout.TotalSize(), 10 + round);
        encoder->BeginRound(round);
        const auto payload = Encode(*encoder, layout, x);
        decoder->BeginRound(round);
        const auto decoded = Decode(*decoder, layout, payload);
        EXPECT_EQ(NonZeros(decoded), kept[round]) << "round " << round;
        ExpectKeepsExactly(x, decoded, TopKMask(x, kept[round]));
        bytes.push_back(payload.size());
        if (round > 0 && kept[round] != kept[round - 1])
        {
            // A decoder told the previous round expects the previous count.
            decoder->BeginRound(round - 1);
            EXPECT_THROW(Decode(*decoder, layout, payload), DecodeError) << "round " << round;
        }
    }
    // Payload sizes shrink at every step (within a step the varint gaps vary by a byte or so).
    for (size_t round = 2; round < kept.size(); ++round)
    {
        if (kept[round] < kept[round - 1])
        {
            EXPECT_LT(bytes[round], bytes[round - 1]) << "round " << round;
        }
    }
    EXPECT_EQ(bytes[1], 8u + 5 + 10000 / 8 + 4 * 2500); // 25%: bitmap index
    // k mode: the warm-up only ever raises k.
    auto byK = Make({{"type", "top_k"}, {"k", 3000}, {"warmup_rounds", 2}});
    byK->BeginRound(1); // 25% = 2500 < 3000
    EXPECT_EQ(NonZeros(Decode(*byK, layout, Encode(*byK, layout, Normal(10000, 3)))), 3000u);
}

TEST(ThresholdCodec, KeepsExactlyAboveTheThreshold)
{
    const TensorLayout layout = Mixed();
    std::vector<float> x = Normal(layout.TotalSize(), 5);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    x[0] = 0.1f; // 0.1f > 0.1: kept
    x[1] = 0.5f; // exactly the threshold below: dropped
    x[2] = nan;
    x[3] = -std::numeric_limits<float>::infinity();
    x[4] = -0.0f;
    for (const double threshold : {0.0, 0.1, 0.5, 1.5, 1e30})
    {
        auto codec = Make({{"type", "threshold"}, {"threshold", threshold}});
        EXPECT_EQ(codec->Id(), 12);
        const std::vector<float> decoded = Decode(*codec, layout, Encode(*codec, layout, x));
        std::vector<bool> mask(x.size());
        for (size_t i = 0; i < x.size(); ++i)
        {
            mask[i] = std::isnan(x[i]) || std::fabs(static_cast<double>(x[i])) > threshold;
        }
        ExpectKeepsExactly(x, decoded, mask);
    }
    // Default 0.01.
    auto fallback = Make({{"type", "threshold"}});
    const std::vector<float> decoded = Decode(*fallback, layout, Encode(*fallback, layout, x));
    EXPECT_EQ(decoded[1], 0.5f);
    EXPECT_EQ(std::count(decoded.begin(), decoded.end(), 0.0f),
              std::count_if(x.begin(), x.end(), [](float v) { return std::fabs(v) <= 0.01f; }));
}

TEST(RandomKCodec, PayloadIsSeedPlusValues)
{
    const TensorLayout layout = Mixed();
    const std::vector<float> x = Normal(layout.TotalSize(), 6);
    auto codec = Make({{"type", "random_k"}, {"ratio", 0.1}});
    EXPECT_EQ(codec->Id(), 11);
    const std::vector<uint8_t> payload = Encode(*codec, layout, x);
    // k per tensor: 2100, 7, 1 (max(1, 0)), 0 (empty tensor), 99.
    EXPECT_EQ(payload.size(), 8 + 8 + 4 * (2100 + 7 + 1 + 0 + 99));
    EXPECT_EQ(Encode(*codec, layout, x, 1), payload); // deterministic in the rng
    EXPECT_NE(Encode(*codec, layout, x, 2), payload); // and a new seed moves the positions
}

TEST(RandomKCodec, UnscaledKeepsKExactValues)
{
    const TensorLayout layout = Mixed();
    const std::vector<float> x = Normal(layout.TotalSize(), 7);
    auto codec = Make({{"type", "random_k"}, {"k", 30}, {"scale", false}});
    const std::vector<float> decoded = Decode(*codec, layout, Encode(*codec, layout, x));
    for (size_t t = 0; t < layout.TensorCount(); ++t)
    {
        const uint64_t d = layout.Tensors()[t].Size();
        size_t kept = 0;
        for (uint64_t i = layout.Offset(t); i < layout.Offset(t) + d; ++i)
        {
            if (decoded[i] != 0.0f)
            {
                ASSERT_EQ(decoded[i], x[i]);
                ++kept;
            }
        }
        EXPECT_EQ(kept, std::min<uint64_t>(30, d)) << "tensor " << t;
    }
}

TEST(RandomKCodec, ScaledIsUnbiasedWithTheExpectedVariance)
{
    // d = 40, k = 8: each coordinate decodes to 5 x_i with probability 1/5, else 0, so
    // E = x_i, Var = 4 x_i^2, and E|C(x) - x|^2 = (d/k - 1)|x|^2 = 4 |x|^2.
    const TensorLayout layout({{"w", {40}}});
    const std::vector<float> x = Normal(40, 8);
    auto codec = Make({{"type", "random_k"}, {"k", 8}});
    const int trials = 20000;
    std::vector<double> sum(40, 0.0);
    std::vector<int> hits(40, 0);
    double errorSum = 0.0;
    double errorSquares = 0.0;
    for (int trial = 0; trial < trials; ++trial)
    {
        const std::vector<float> c = Decode(*codec, layout, Encode(*codec, layout, x, trial));
        double error = 0.0;
        for (size_t i = 0; i < 40; ++i)
        {
            sum[i] += c[i];
            hits[i] += c[i] != 0.0f;
            error += (double(c[i]) - x[i]) * (double(c[i]) - x[i]);
        }
        errorSum += error;
        errorSquares += error * error;
    }
    double norm2 = 0.0;
    for (size_t i = 0; i < 40; ++i)
    {
        const double standardError = 2.0 * std::fabs(x[i]) / std::sqrt(double(trials));
        EXPECT_NEAR(sum[i] / trials, x[i], 5 * standardError) << "coordinate " << i;
        // Inclusion is Bernoulli(1/5): standard error sqrt(0.16 / trials).
        EXPECT_NEAR(hits[i] / double(trials), 0.2, 5 * std::sqrt(0.16 / trials));
        norm2 += double(x[i]) * x[i];
    }
    const double meanError = errorSum / trials;
    const double errorStd = std::sqrt(errorSquares / trials - meanError * meanError);
    EXPECT_NEAR(meanError, 4.0 * norm2, 5 * errorStd / std::sqrt(double(trials)));
}

/// Every codec spec of this file, for the robustness tests.
std::vector<json>
Specs()
{
    return {{{"type", "top_k"}, {"ratio", 0.05}},
            {{"type", "top_k"}, {"ratio", 0.6}}, // bitmap bodies
            {{"type", "random_k"}, {"ratio", 0.05}},
            {{"type", "threshold"}, {"threshold", 1.0}},
            {{"type", "threshold"}, {"threshold", 0.1}}};
}

TEST(SparsificationCodecs, RejectEveryTruncationAndTrailingBytes)
{
    const TensorLayout layout({{"w", {30, 20}}, {"b", {7}}, {"s", {}}, {"e", {0}}});
    const std::vector<float> x = Normal(layout.TotalSize(), 9);
    for (const json& spec : Specs())
    {
        auto codec = Make(spec);
        std::vector<uint8_t> payload = Encode(*codec, layout, x);
        std::vector<float> out(layout.TotalSize());
        for (size_t length = 0; length < payload.size(); ++length)
        {
            EXPECT_THROW(codec->Decode(layout, std::span(payload.data(), length), out), DecodeError)
                << spec.dump() << " length " << length;
        }
        payload.push_back(0);
        EXPECT_THROW(codec->Decode(layout, payload, out), DecodeError) << spec.dump();
    }
}

TEST(SparsificationCodecs, SurviveCorruptedPayloads)
{
    // Any outcome but a crash, a hang or another exception type; run under ASan/UBSan.
    const TensorLayout layout({{"w", {50, 20}}, {"b", {20}}});
    const std::vector<float> x = Normal(layout.TotalSize(), 10);
    Rng rng(11, 0);
    for (const json& spec : Specs())
    {
        auto codec = Make(spec);
        const std::vector<uint8_t> clean = Encode(*codec, layout, x);
        std::vector<float> out(layout.TotalSize());
        for (int trial = 0; trial < 2000; ++trial)
        {
            std::vector<uint8_t> payload = clean;
            // Keep the header intact most of the time so that the bodies get fuzzed.
            const size_t from = trial % 8 == 0 ? 0 : 8;
            for (int f = 0; f < 1 + trial % 3; ++f)
            {
                payload[from + rng.UniformInt(payload.size() - from)] ^=
                    static_cast<uint8_t>(1 + rng.UniformInt(255));
            }
            try
            {
                codec->Decode(layout, payload, out);
            }
            catch (const DecodeError&)
            {
            }
        }
    }
}

void
ExpectConfigError(const json& spec, const std::string& path)
{
    try
    {
        Make(spec);
        FAIL() << "accepted " << spec.dump();
    }
    catch (const CodecConfigError& e)
    {
        EXPECT_EQ(std::string(e.what()).rfind(path + ":", 0), 0u) << e.what();
    }
}

TEST(SparsificationCodecs, ParameterErrorsNameThePath)
{
    for (const char* type : {"top_k", "random_k"})
    {
        ExpectConfigError({{"type", type}, {"ratio", 0}}, "compression.uplink.ratio");
        ExpectConfigError({{"type", type}, {"ratio", 1.5}}, "compression.uplink.ratio");
        ExpectConfigError({{"type", type}, {"ratio", "0.1"}}, "compression.uplink.ratio");
        ExpectConfigError({{"type", type}, {"k", 0}}, "compression.uplink.k");
        ExpectConfigError({{"type", type}, {"k", -3}}, "compression.uplink.k");
        ExpectConfigError({{"type", type}, {"k", 2.5}}, "compression.uplink.k");
        ExpectConfigError({{"type", type}, {"k", 10}, {"ratio", 0.1}}, "compression.uplink.k");
        ExpectConfigError({{"type", type}, {"ration", 0.1}}, "compression.uplink.ration");
    }
    ExpectConfigError({{"type", "random_k"}, {"scale", "yes"}}, "compression.uplink.scale");
    ExpectConfigError({{"type", "top_k"}, {"scale", true}}, "compression.uplink.scale");
    ExpectConfigError({{"type", "threshold"}, {"threshold", -0.1}}, "compression.uplink.threshold");
    ExpectConfigError({{"type", "threshold"}, {"threshold", "big"}},
                      "compression.uplink.threshold");
    EXPECT_NO_THROW(Make({{"type", "threshold"}, {"threshold", 0}}));
    EXPECT_NO_THROW(Make({{"type", "top_k"}, {"k", 3}}));
    ExpectConfigError({{"type", "top_k"}, {"warmup_rounds", -1}},
                      "compression.uplink.warmup_rounds");
    ExpectConfigError({{"type", "top_k"}, {"warmup_rounds", 3}, {"warmup_stages", 4}},
                      "compression.uplink.warmup_stages");
    ExpectConfigError({{"type", "random_k"}, {"warmup_rounds", 3}},
                      "compression.uplink.warmup_rounds");
}

} // namespace
} // namespace fedran
