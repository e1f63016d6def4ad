// The "quantization" codec: error bounds, unbiasedness, the documented rounding and draw
// order, payload size, and rejection of bad payloads and parameters.

#include "quantization-test-util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace fedran
{
namespace
{

using namespace fedran::testing;
using nlohmann::json;

TensorLayout
Mixed()
{
    return TensorLayout({{"a", {10, 100}}, {"b", {3}}, {"empty", {0}}, {"c", {517}}});
}

std::unique_ptr<Codec>
Quantizer(unsigned bits, bool stochastic, uint32_t bucket = 512)
{
    return MakeFromJson(
        {{"type", "quantization"}, {"bits", bits}, {"stochastic", stochastic}, {"bucket", bucket}});
}

/// The exact payload size: 13 + per tensor 4 ceil(d / bucket) + ceil(d bits / 8).
uint64_t
ExpectedSize(const TensorLayout& layout, unsigned bits, uint64_t bucket)
{
    uint64_t size = 13;
    for (const TensorSpec& tensor : layout.Tensors())
    {
        const uint64_t d = tensor.Size();
        size += 4 * ((d + bucket - 1) / bucket) + (d * bits + 7) / 8;
    }
    return size;
}

/// max|x| over the bucket of element i of tensor t.
std::vector<float>
BucketScales(const TensorLayout& layout, const std::vector<float>& x, size_t bucket)
{
    std::vector<float> scales(x.size());
    for (size_t t = 0; t < layout.TensorCount(); ++t)
    {
        const size_t offset = layout.Offset(t);
        const size_t d = layout.Tensors()[t].Size();
        for (size_t begin = 0; begin < d; begin += bucket)
        {
            const size_t end = std::min(d, begin + bucket);
            float scale = 0.0f;
            for (size_t i = begin; i < end; ++i)
            {
                scale = std::max(scale, std::fabs(x[offset + i]));
            }
            std::fill(scales.begin() + offset + begin, scales.begin() + offset + end, scale);
        }
    }
    return scales;
}

TEST(QuantizationCodec, EveryWidthRoundTripsWithinAStep)
{
    const TensorLayout layout = Mixed();
    const auto x = NormalUpdate(layout.TotalSize(), 21);
    for (unsigned bits = 1; bits <= 8; ++bits)
    {
        for (const bool stochastic : {true, false})
        {
            for (const uint32_t bucket : {512u, 7u, 1000000u})
            {
                auto codec = Quantizer(bits, stochastic, bucket);
                const auto payload = EncodeWithSeed(*codec, layout, x, bits);
                ASSERT_EQ(payload.size(), ExpectedSize(layout, bits, bucket));
                const auto decoded = DecodeAll(*codec, layout, payload);
                const auto scales = BucketScales(layout, x, bucket);
                for (size_t i = 0; i < x.size(); ++i)
                {
                    const float step = 2.0f * scales[i] / static_cast<float>((1u << bits) - 1);
                    const float bound = (stochastic ? step : step / 2) * 1.0001f;
                    ASSERT_LE(std::fabs(decoded[i] - x[i]), bound)
                        << "bits " << bits << " stochastic " << stochastic << " bucket " << bucket
                        << " element " << i;
                    ASSERT_LE(std::fabs(decoded[i]), scales[i] * 1.000001f);
                }
            }
        }
    }
}

TEST(QuantizationCodec, PayloadMeetsTheSizeBound)
{
    // d bits / 8 + 4 per bucket + 13 header bytes + under one byte of padding per tensor.
    const TensorLayout layout({{"w", {1000000}}, {"odd", {3, 331}}});
    const auto x = NormalUpdate(layout.TotalSize(), 22);
    for (unsigned bits = 1; bits <= 8; ++bits)
    {
        for (const uint32_t bucket : {1u, 100u, 512u})
        {
            const auto payload = EncodeWithSeed(*Quantizer(bits, true, bucket), layout, x, 1);
            double bound = 13 + 2 * 7.0 / 8;
            for (const TensorSpec& tensor : layout.Tensors())
            {
                bound +=
                    tensor.Size() * bits / 8.0 + 4.0 * std::ceil(tensor.Size() / double(bucket));
            }
            EXPECT_EQ(payload.size(), ExpectedSize(layout, bits, bucket));
            EXPECT_LE(static_cast<double>(payload.size()), bound);
        }
    }
    const TensorLayout million({{"w", {1000000}}});
    const auto y = NormalUpdate(1000000, 23);
    EXPECT_EQ(EncodeWithSeed(*Quantizer(8, true), million, y, 1).size(), 13u + 4 * 1954 + 1000000);
    EXPECT_EQ(EncodeWithSeed(*Quantizer(4, true), million, y, 1).size(), 13u + 4 * 1954 + 500000);
    EXPECT_EQ(EncodeWithSeed(*Quantizer(2, false), million, y, 1).size(), 13u + 4 * 1954 + 250000);
}

TEST(QuantizationCodec, StochasticRoundingIsUnbiased)
{
    // Values between levels, on levels, zero and the bucket maximum.
    const TensorLayout layout({{"v", {40}}});
    std::vector<float> x(40);
    for (size_t i = 0; i < x.size(); ++i)
    {
        x[i] = static_cast<float>(std::sin(1.0 + 2.7 * i)) * 0.9f;
    }
    x[0] = 1.0f;
    x[1] = 0.0f;
    x[2] = -1.0f / 3.0f;
    constexpr int kSeeds = 4000;
    for (const unsigned bits : {1u, 2u, 4u, 8u})
    {
        auto codec = Quantizer(bits, true, 16);
        std::vector<double> sum(x.size(), 0.0);
        for (int seed = 0; seed < kSeeds; ++seed)
        {
            const auto decoded = DecodeAll(*codec, layout, EncodeWithSeed(*codec, layout, x, seed));
            for (size_t i = 0; i < x.size(); ++i)
            {
                sum[i] += decoded[i];
            }
        }
        const auto scales = BucketScales(layout, x, 16);
        for (size_t i = 0; i < x.size(); ++i)
        {
            // A draw is one of two levels a step apart: standard deviation <= step / 2.
            const double step = 2.0 * scales[i] / ((1u << bits) - 1);
            const double se = step / 2 / std::sqrt(double{kSeeds});
            EXPECT_NEAR(sum[i] / kSeeds, x[i], 5 * se + step * 0x1p-15)
                << "bits " << bits << " element " << i;
        }
    }
}

TEST(QuantizationCodec, RoundToNearestIsDeterministicAndBiased)
{
    const TensorLayout layout({{"v", {3}}});
    const std::vector<float> x = {1.0f, 0.1f, -1.0f}; // 0.1 is 0.45 steps above level 3 (2 bits)
    auto codec = Quantizer(2, false);
    const auto first = EncodeWithSeed(*codec, layout, x, 1);
    EXPECT_EQ(EncodeWithSeed(*codec, layout, x, 2), first);
    const auto decoded = DecodeAll(*codec, layout, first);
    EXPECT_FLOAT_EQ(decoded[1], 1.0f / 3.0f);
    EXPECT_FLOAT_EQ(decoded[0], 1.0f);
    EXPECT_FLOAT_EQ(decoded[2], -1.0f);

    auto stochastic = Quantizer(2, true);
    EXPECT_EQ(EncodeWithSeed(*stochastic, layout, x, 5), EncodeWithSeed(*stochastic, layout, x, 5));
    const auto big = NormalUpdate(1000, 24);
    const TensorLayout bigLayout({{"v", {1000}}});
    EXPECT_NE(EncodeWithSeed(*stochastic, bigLayout, big, 5),
              EncodeWithSeed(*stochastic, bigLayout, big, 6));
}

/// The documented arithmetic (file comment of quantization-codec.cc), one element at a time.
std::vector<float>
ReferenceQuantization(const TensorLayout& layout,
                      const std::vector<float>& x,
                      unsigned bits,
                      size_t bucket,
                      bool stochastic,
                      uint64_t seed)
{
    Rng rng(seed, 7);
    ReferenceDither dither(rng);
    const double c = 0.5 * ((1u << bits) - 1);
    const float limit = static_cast<float>(65536 * c);
    const auto scales = BucketScales(layout, x, bucket);
    std::vector<float> out(x.size());
    for (size_t t = 0; t < layout.TensorCount(); ++t)
    {
        if (t > 0)
        {
            dither = ReferenceDither(rng); // the codecs seed each tensor's dither
        }
        dither.StartTensor();
        for (size_t i = layout.Offset(t); i < layout.Offset(t) + layout.Tensors()[t].Size(); ++i)
        {
            int32_t truncated;
            if (scales[i] > 0 && scales[i] < 0x1p-100f)
            {
                // Tiny scales: x / scale in double, as 65536 c / scale would overflow a float.
                truncated = static_cast<int32_t>(
                    std::clamp(double{x[i]} / scales[i] * limit, -double{limit}, double{limit}));
            }
            else
            {
                const float a = scales[i] > 0 ? static_cast<float>(65536 * c / scales[i]) : 0.0f;
                truncated = static_cast<int32_t>(std::clamp(x[i] * a, -limit, limit));
            }
            const auto tq = static_cast<uint32_t>(truncated + static_cast<int32_t>(limit));
            const uint32_t q = (tq + (stochastic ? dither.Next() : 32768u)) >> 16;
            const auto center = static_cast<float>(c);
            out[i] = ((static_cast<float>(q) - center) * (1.0f / center)) * scales[i];
        }
    }
    return out;
}

TEST(QuantizationCodec, EveryCodePathMatchesTheDocumentedRoundingAndDrawOrder)
{
    // Bucket 512 runs the SIMD kernels; bucket 5 and the odd tensor sizes the scalar edges.
    const TensorLayout layout = Mixed();
    auto x = NormalUpdate(layout.TotalSize(), 25);
    x[3] = 1e-35f; // a bucket of 5 with a tiny scale: the double-precision path
    x[0] = x[1] = x[2] = x[4] = 0.0f;
    for (const unsigned bits : {1u, 3u, 8u})
    {
        for (const bool stochastic : {true, false})
        {
            for (const size_t bucket : {512u, 5u, 40u})
            {
                auto codec = Quantizer(bits, stochastic, static_cast<uint32_t>(bucket));
                std::vector<uint8_t> first;
                for (const auto level : kSimdLevels)
                {
                    SimdCap cap(level);
                    const auto payload = EncodeWithSeed(*codec, layout, x, 77);
                    if (first.empty())
                    {
                        first = payload;
                    }
                    ASSERT_EQ(payload, first) << "SIMD level " << static_cast<int>(level);
                    const auto decoded = DecodeAll(*codec, layout, payload);
                    ASSERT_EQ(decoded,
                              ReferenceQuantization(layout, x, bits, bucket, stochastic, 77))
                        << "bits " << bits << " stochastic " << stochastic << " bucket " << bucket
                        << " SIMD level " << static_cast<int>(level);
                }
            }
        }
    }
}

TEST(QuantizationCodec, ZerosTinyValuesAndNonFiniteBuckets)
{
    const TensorLayout layout({{"v", {12}}});
    std::vector<float> x(12, 0.0f);
    auto codec = Quantizer(4, true, 4);
    EXPECT_EQ(DecodeAll(*codec, layout, EncodeWithSeed(*codec, layout, x, 1)), x);

    // A bucket of subnormals still round-trips within a step (the double-precision path).
    x = {1e-40f, -3e-41f, 0.0f, 5e-45f, 1.0f, 2.0f, -3.0f, 0.5f, 1.0f, 1.0f, 1.0f, 1.0f};
    x[9] = std::numeric_limits<float>::quiet_NaN();
    x[10] = std::numeric_limits<float>::infinity();
    const auto decoded = DecodeAll(*codec, layout, EncodeWithSeed(*codec, layout, x, 1));
    for (int i = 0; i < 4; ++i)
    {
        EXPECT_LE(std::fabs(decoded[i] - x[i]), 2 * 1e-40f / 15 * 1.01f) << i;
    }
    for (int i = 4; i < 8; ++i)
    {
        EXPECT_LE(std::fabs(decoded[i] - x[i]), 2 * 3.0f / 15) << i;
    }
    for (int i = 8; i < 12; ++i)
    {
        EXPECT_TRUE(std::isnan(decoded[i])) << i; // the bucket holding NaN and inf
    }
}

TEST(QuantizationCodec, HugeValuesStayFinite)
{
    const TensorLayout layout({{"v", {4}}});
    const float big = std::numeric_limits<float>::max();
    const std::vector<float> x = {big, -big, 3e38f, -1e30f};
    for (const unsigned bits : {1u, 2u, 8u})
    {
        for (const bool stochastic : {true, false})
        {
            auto codec = Quantizer(bits, stochastic, 4);
            const auto decoded = DecodeAll(*codec, layout, EncodeWithSeed(*codec, layout, x, 3));
            const double step = 2.0 * big / ((1u << bits) - 1);
            for (size_t i = 0; i < x.size(); ++i)
            {
                EXPECT_TRUE(std::isfinite(decoded[i])) << bits << " " << i;
                EXPECT_LE(std::fabs(double{decoded[i]} - x[i]), step * 1.0001) << bits << " " << i;
            }
            EXPECT_EQ(decoded[0], big);
            EXPECT_EQ(decoded[1], -big);
        }
    }
}

TEST(QuantizationCodec, LargeTensorsDecodeTheSameWithStreamingStores)
{
    // The first tensor is large and 16-byte aligned (non-temporal stores); the last is large
    // but misaligned (ordinary stores). The scalar path never streams.
    const uint32_t big = 1u << 22;
    const TensorLayout layout({{"big", {big}}, {"odd", {3}}, {"misaligned", {big + 3}}});
    const auto x = NormalUpdate(layout.TotalSize(), 29);
    auto codec = Quantizer(8, true);
    const auto payload = EncodeWithSeed(*codec, layout, x, 1);
    const auto decoded = DecodeAll(*codec, layout, payload);
    SimdCap scalar(internal::SimdLevel::kScalar);
    EXPECT_EQ(DecodeAll(*codec, layout, payload), decoded);
}

TEST(QuantizationCodec, PayloadDescribesItsOwnWidthAndBucket)
{
    const TensorLayout layout = Mixed();
    const auto x = NormalUpdate(layout.TotalSize(), 26);
    const auto payload = EncodeWithSeed(*Quantizer(3, true, 100), layout, x, 1);
    EXPECT_EQ(payload[8], 3);
    EXPECT_EQ(DecodeAll(*Quantizer(8, false), layout, payload),
              DecodeAll(*Quantizer(3, true, 100), layout, payload));
}

TEST(QuantizationCodec, RejectsBadFieldsAndPadding)
{
    const TensorLayout layout({{"v", {2, 5}}}); // 10 elements, 2 buckets of 8 and 2
    const auto x = NormalUpdate(10, 27);
    auto codec = Quantizer(3, true, 8);
    const auto payload = EncodeWithSeed(*codec, layout, x, 1);
    ASSERT_EQ(payload.size(), 13u + 8 + 4);
    EXPECT_NO_THROW(DecodeAll(*codec, layout, payload));

    for (const uint8_t bits : {0, 9, 255})
    {
        auto bad = payload;
        bad[8] = bits;
        EXPECT_EQ(DecodeErrorOffset(*codec, layout, bad), 8u);
    }
    auto bad = payload;
    PutU32(bad, 9, 0);
    EXPECT_EQ(DecodeErrorOffset(*codec, layout, bad), 9u);
    for (const float scale : {-1.0f, -0.0f, std::numeric_limits<float>::infinity()})
    {
        bad = payload;
        PutU32(bad, 17, std::bit_cast<uint32_t>(scale));
        EXPECT_EQ(DecodeErrorOffset(*codec, layout, bad), 17u) << scale;
    }
    bad = payload;
    bad.back() |= 0x80; // 30 code bits: bits 30 and 31 of the code bytes are padding
    EXPECT_EQ(DecodeErrorOffset(*codec, layout, bad), payload.size() - 1);
    bad = payload;
    bad.push_back(0);
    EXPECT_EQ(DecodeErrorOffset(*codec, layout, bad), payload.size());
}

TEST(QuantizationCodec, SurvivesTruncationAndRandomCorruption)
{
    const TensorLayout layout = Mixed();
    const auto x = NormalUpdate(layout.TotalSize(), 28);
    for (const unsigned bits : {1u, 3u, 8u})
    {
        auto codec = Quantizer(bits, true, 64);
        const auto payload = EncodeWithSeed(*codec, layout, x, 1);
        for (size_t length = 0; length < payload.size(); ++length)
        {
            const std::vector<uint8_t> prefix(payload.begin(), payload.begin() + length);
            EXPECT_LE(DecodeErrorOffset(*codec, layout, prefix), length);
        }
        ExpectCorruptionIsHandled(*codec, layout, payload, bits, 500);
    }
}

TEST(QuantizationCodec, ParameterErrorsNameThePath)
{
    EXPECT_EQ(ConfigError({{"type", "quantization"}, {"bits", 0}}),
              "compression.uplink.bits: must be an integer in 1..8, got 0");
    EXPECT_EQ(ConfigError({{"type", "quantization"}, {"bits", 9}}),
              "compression.uplink.bits: must be an integer in 1..8, got 9");
    EXPECT_EQ(ConfigError({{"type", "quantization"}, {"bits", 2.5}})
                  .rfind("compression.uplink.bits: ", 0),
              0u);
    EXPECT_EQ(ConfigError({{"type", "quantization"}, {"bits", "8"}})
                  .rfind("compression.uplink.bits: ", 0),
              0u);
    EXPECT_EQ(ConfigError({{"type", "quantization"}, {"stochastic", 1}}),
              "compression.uplink.stochastic: must be true or false, got 1");
    EXPECT_EQ(ConfigError({{"type", "quantization"}, {"bucket", 0}}),
              "compression.uplink.bucket: must be an integer >= 1, got 0");
    EXPECT_EQ(ConfigError({{"type", "quantization"}, {"bucket", -4}})
                  .rfind("compression.uplink.bucket: ", 0),
              0u);
    EXPECT_EQ(ConfigError({{"type", "quantization"}, {"levels", 4}}),
              "compression.uplink.levels: unknown key for codec 'quantization'");
    const auto defaults = MakeFromJson({{"type", "quantization"}});
    EXPECT_EQ(defaults->Name(), "quantization");
    EXPECT_EQ(defaults->Id(), 20);
    const TensorLayout layout({{"v", {1000}}});
    const auto payload = EncodeWithSeed(*defaults, layout, NormalUpdate(1000, 1), 1);
    EXPECT_EQ(payload[8], 8);                      // bits
    EXPECT_EQ(payload[9] | payload[10] << 8, 512); // bucket
}

} // namespace
} // namespace fedran
