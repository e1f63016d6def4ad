// The "sign" codec: the scaled sign, its exact bytes and size, bad payloads, parameters, and
// the aggregator each "aggregation" choice gives.

#include "quantization-test-util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace fedran
{
namespace
{

using namespace fedran::testing;

std::unique_ptr<Codec>
Sign(const std::string& aggregation = "mean")
{
    return MakeFromJson({{"type", "sign"}, {"aggregation", aggregation}});
}

TEST(SignCodec, PayloadIsScaleThenSignBits)
{
    const TensorLayout layout({{"v", {9}}, {"empty", {0}}});
    const std::vector<float> x = {1, -2, 0, -0.0f, 3, -4, 5, -6, 7};
    const auto payload = EncodeWithSeed(*Sign(), layout, x, 1);
    ASSERT_EQ(payload.size(), 8u + (4 + 2) + 4);
    EXPECT_EQ(F32At(payload, 8), 28.0f / 9.0f);
    EXPECT_EQ(payload[12], 0xA2); // elements 1, 5 and 7 are negative; 0 and -0 count as +
    EXPECT_EQ(payload[13], 0x00);
    EXPECT_EQ(F32At(payload, 14), 0.0f); // the empty tensor
    const float s = 28.0f / 9.0f;
    EXPECT_EQ(DecodeAll(*Sign(), layout, payload),
              (std::vector<float>{s, -s, s, s, s, -s, s, -s, s}));
}

TEST(SignCodec, DecodesToTheScaledSignOfEveryTensor)
{
    const TensorLayout layout(
        {{"a", {1000, 37}}, {"b", {1}}, {"c", {15}}, {"d", {16}}, {"e", {17}}});
    const auto x = NormalUpdate(layout.TotalSize(), 41);
    auto codec = Sign();
    const auto payload = EncodeWithSeed(*codec, layout, x, 1);
    uint64_t expectedSize = 8;
    for (const TensorSpec& tensor : layout.Tensors())
    {
        expectedSize += 4 + (tensor.Size() + 7) / 8;
    }
    EXPECT_EQ(payload.size(), expectedSize);
    const auto decoded = DecodeAll(*codec, layout, payload);
    for (size_t t = 0; t < layout.TensorCount(); ++t)
    {
        const size_t begin = layout.Offset(t);
        const size_t d = layout.Tensors()[t].Size();
        double l1 = 0.0;
        for (size_t i = begin; i < begin + d; ++i)
        {
            l1 += std::fabs(double{x[i]});
        }
        const auto scale = static_cast<float>(l1 / d);
        for (size_t i = begin; i < begin + d; ++i)
        {
            ASSERT_FLOAT_EQ(decoded[i], x[i] < 0 ? -scale : scale) << t << " " << i;
        }
    }
    for (const auto level : kSimdLevels)
    {
        SimdCap cap(level);
        ASSERT_EQ(EncodeWithSeed(*codec, layout, x, 1), payload) << static_cast<int>(level);
        ASSERT_EQ(DecodeAll(*codec, layout, payload), decoded) << static_cast<int>(level);
    }
    const TensorLayout million({{"w", {1000000}}});
    EXPECT_EQ(EncodeWithSeed(*codec, million, NormalUpdate(1000000, 42), 1).size(), 125012u);
}

TEST(SignCodec, LargeTensorsDecodeTheSameWithStreamingStores)
{
    const uint32_t big = 1u << 22;
    const TensorLayout layout({{"big", {big}}, {"odd", {3}}, {"misaligned", {big + 3}}});
    const auto x = NormalUpdate(layout.TotalSize(), 45);
    auto codec = Sign();
    const auto payload = EncodeWithSeed(*codec, layout, x, 1);
    const auto decoded = DecodeAll(*codec, layout, payload);
    SimdCap scalar(internal::SimdLevel::kScalar);
    EXPECT_EQ(DecodeAll(*codec, layout, payload), decoded);
}

TEST(SignCodec, NonFiniteTensorsDecodeToNaN)
{
    const TensorLayout layout({{"a", {20}}, {"b", {3}}});
    std::vector<float> x(23, 1.0f);
    x[7] = std::numeric_limits<float>::infinity();
    const auto decoded = DecodeAll(*Sign(), layout, EncodeWithSeed(*Sign(), layout, x, 1));
    for (size_t i = 0; i < 20; ++i)
    {
        EXPECT_TRUE(std::isnan(decoded[i]));
    }
    EXPECT_EQ(decoded[21], 1.0f);
}

TEST(SignCodec, RejectsBadScalesPaddingTruncationAndCorruption)
{
    const TensorLayout layout({{"a", {13}}, {"b", {8}}});
    const auto x = NormalUpdate(21, 43);
    auto codec = Sign();
    const auto payload = EncodeWithSeed(*codec, layout, x, 1);
    ASSERT_EQ(payload.size(), 8u + 6 + 5);
    for (const float scale : {-1.0f, -0.0f, std::numeric_limits<float>::infinity()})
    {
        auto bad = payload;
        PutU32(bad, 14, std::bit_cast<uint32_t>(scale));
        EXPECT_EQ(DecodeErrorOffset(*codec, layout, bad), 14u);
    }
    auto bad = payload;
    bad[13] |= 0x20; // bit 13 of tensor a: padding
    EXPECT_EQ(DecodeErrorOffset(*codec, layout, bad), 13u);
    for (size_t length = 0; length < payload.size(); ++length)
    {
        const std::vector<uint8_t> prefix(payload.begin(), payload.begin() + length);
        EXPECT_LE(DecodeErrorOffset(*codec, layout, prefix), length);
    }
    ExpectCorruptionIsHandled(*codec, layout, payload, 44, 500);
}

TEST(SignCodec, AggregationChoosesTheServerRule)
{
    // Two clients: the mean averages the scaled signs, the vote ties on disagreement.
    const TensorLayout layout({{"v", {2}}});
    auto mean = Sign("mean");
    auto vote = Sign("majority_vote");
    const auto a = DecodeAll(*mean, layout, EncodeWithSeed(*mean, layout, {1.0f, 3.0f}, 1));
    const auto b = DecodeAll(*mean, layout, EncodeWithSeed(*mean, layout, {-4.0f, 2.0f}, 1));
    ASSERT_EQ(a, (std::vector<float>{2.0f, 2.0f}));
    ASSERT_EQ(b, (std::vector<float>{-3.0f, 3.0f}));

    std::vector<float> result(2);
    auto meanAggregator = mean->MakeAggregator();
    meanAggregator->Reset(2);
    meanAggregator->Add(a, 1.0);
    meanAggregator->Add(b, 3.0);
    meanAggregator->Result(result);
    EXPECT_EQ(result, (std::vector<float>{-1.75f, 2.75f}));

    auto voteAggregator = vote->MakeAggregator();
    voteAggregator->Reset(2);
    voteAggregator->Add(a, 1.0);
    voteAggregator->Add(b, 3.0);
    voteAggregator->Result(result);
    EXPECT_EQ(result, (std::vector<float>{0.0f, 2.5f}));
}

TEST(SignCodec, ParameterErrorsNameThePath)
{
    EXPECT_EQ(
        ConfigError({{"type", "sign"}, {"aggregation", "median"}}),
        "compression.uplink.aggregation: must be \"mean\" or \"majority_vote\", got \"median\"");
    EXPECT_EQ(ConfigError({{"type", "sign"}, {"aggregation", 1}}),
              "compression.uplink.aggregation: must be a string, got number");
    EXPECT_EQ(ConfigError({{"type", "sign"}, {"scale", true}}),
              "compression.uplink.scale: unknown key for codec 'sign'");
    EXPECT_EQ(MakeFromJson({{"type", "sign"}})->Id(), 22);
}

} // namespace
} // namespace fedran
