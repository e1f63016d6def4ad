// TensorLayout, the none and fp16 codecs, payload validation and MakeCodec.

#include "compression/codec-spec.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace fedran
{
namespace
{

/// The layout of a 784 -> 10 softmax regression: 7850 floats.
TensorLayout
MnistLogistic()
{
    return TensorLayout({{"dense.weight", {10, 784}}, {"dense.bias", {10}}});
}

TensorLayout
Small()
{
    return TensorLayout({{"w", {2, 2}}, {"b", {3}}});
}

std::vector<float>
RandomUpdate(size_t n, uint64_t seed, double scale)
{
    Rng rng(seed, 0);
    std::vector<float> update(n);
    for (float& x : update)
    {
        x = static_cast<float>(rng.Normal() * scale);
    }
    return update;
}

std::vector<uint8_t>
Encode(Codec& codec, const TensorLayout& layout, const std::vector<float>& update)
{
    Rng rng(1, 1);
    std::vector<uint8_t> payload;
    codec.Encode(layout, update, rng, payload);
    return payload;
}

/// The smallest valid spec of each codec: wrappers need a base (and clipped a clip value).
nlohmann::json
SpecFor(const std::string& type)
{
    if (type == "error_feedback")
    {
        return {{"type", type}, {"base", {{"type", "top_k"}, {"ratio", 0.5}}}};
    }
    if (type == "clipped")
    {
        return {{"type", type}, {"clip_value", 1.0}, {"base", {{"type", "none"}}}};
    }
    if (type == "adaptive")
    {
        return {{"type", type}, {"ladder", {{{"type", "none"}}, {{"type", "sign"}}}}};
    }
    if (type == "dgc")
    {
        // These tests encode finished updates; mode step encodes after local training
        // (dgc-codec-test.cc, tests/fl/dgc-per-step-test.cc).
        return {{"type", type}, {"mode", "round"}};
    }
    return {{"type", type}};
}

std::unique_ptr<Codec>
Make(const std::string& type)
{
    return MakeCodec(SpecFor(type), "compression.uplink");
}

TEST(TensorLayout, OffsetsAndSizes)
{
    const TensorLayout layout({{"a", {2, 3}}, {"b", {4}}, {"scalar", {}}, {"empty", {0, 5}}});
    ASSERT_EQ(layout.TensorCount(), 4u);
    EXPECT_EQ(layout.Offset(0), 0u);
    EXPECT_EQ(layout.Offset(1), 6u);
    EXPECT_EQ(layout.Offset(2), 10u);
    EXPECT_EQ(layout.Offset(3), 11u);
    EXPECT_EQ(layout.Tensors()[2].Size(), 1u);
    EXPECT_EQ(layout.Tensors()[3].Size(), 0u);
    EXPECT_EQ(layout.TotalSize(), 11u);
    EXPECT_EQ(MnistLogistic().TotalSize(), 7850u);
    EXPECT_THROW(TensorLayout({{"huge", {1u << 31, 1u << 31, 1u << 31}}}), std::overflow_error);
}

TEST(TensorLayout, SignatureIsStableAndSensitive)
{
    // Golden value from an independent Python FNV-1a over the documented encoding.
    EXPECT_EQ(MnistLogistic().Signature(), 0xad6e2d76u);
    EXPECT_EQ(TensorLayout().Signature(), TensorLayout(std::vector<TensorSpec>{}).Signature());

    const uint32_t base = TensorLayout({{"ab", {3}}, {"c", {4}}}).Signature();
    EXPECT_EQ(TensorLayout({{"ab", {3}}, {"c", {4}}}).Signature(), base);
    EXPECT_NE(TensorLayout({{"a", {3}}, {"bc", {4}}}).Signature(), base);    // name boundary
    EXPECT_NE(TensorLayout({{"ab", {4}}, {"c", {3}}}).Signature(), base);    // shapes swapped
    EXPECT_NE(TensorLayout({{"ab", {3}}, {"x", {4}}}).Signature(), base);    // a name
    EXPECT_NE(TensorLayout({{"ab", {3, 1}}, {"c", {4}}}).Signature(), base); // rank
    EXPECT_NE(TensorLayout({{"ab", {3}}, {"c", {4}}, {"d", {}}}).Signature(), base);
    EXPECT_NE(TensorLayout({{"w", {10, 784}}}).Signature(),
              TensorLayout({{"w", {784, 10}}}).Signature());
}

TEST(NoneCodec, RoundTripIsBitExact)
{
    const TensorLayout layout({{"x", {12}}});
    const std::vector<float> update = {
        0.0f,
        -0.0f,
        1.0f,
        -3.5e-12f,
        std::numeric_limits<float>::denorm_min(),
        -std::numeric_limits<float>::denorm_min() * 77,
        std::numeric_limits<float>::max(),
        -std::numeric_limits<float>::infinity(),
        std::bit_cast<float>(0x7FC12345u), // quiet NaN with a payload
        std::bit_cast<float>(0xFF800001u), // signalling NaN, negative
        std::numeric_limits<float>::min(),
        123456.789f,
    };
    auto codec = Make("none");
    const auto payload = Encode(*codec, layout, update);
    ASSERT_EQ(payload.size(), 8 + 4 * update.size());
    std::vector<float> decoded(update.size(), 42.0f);
    codec->Decode(layout, payload, decoded);
    for (size_t i = 0; i < update.size(); ++i)
    {
        EXPECT_EQ(std::bit_cast<uint32_t>(decoded[i]), std::bit_cast<uint32_t>(update[i])) << i;
    }
}

TEST(NoneCodec, PayloadIsHeaderThenLittleEndianFloats)
{
    const TensorLayout layout = Small();
    auto codec = Make("none");
    const auto payload = Encode(*codec, layout, {1.0f, 0, 0, 0, 0, 0, -2.0f});
    const uint32_t signature = layout.Signature();
    std::vector<uint8_t> header(8, 0);
    for (int i = 0; i < 4; ++i)
    {
        header[i] = static_cast<uint8_t>(signature >> (8 * i));
    }
    header[4] = 2; // tensor count
    EXPECT_EQ(std::vector<uint8_t>(payload.begin(), payload.begin() + 8), header);
    EXPECT_EQ(std::vector<uint8_t>(payload.begin() + 8, payload.begin() + 12),
              (std::vector<uint8_t>{0x00, 0x00, 0x80, 0x3F}));
    EXPECT_EQ(std::vector<uint8_t>(payload.end() - 4, payload.end()),
              (std::vector<uint8_t>{0x00, 0x00, 0x00, 0xC0}));
}

TEST(Fp16Codec, RoundTripWithinHalfPrecision)
{
    const TensorLayout layout = MnistLogistic();
    auto codec = Make("fp16");
    for (const double scale : {1e-3, 1.0, 1e3})
    {
        const auto update = RandomUpdate(layout.TotalSize(), 8, scale);
        const auto payload = Encode(*codec, layout, update);
        ASSERT_EQ(payload.size(), 8 + 2 * update.size());
        std::vector<float> decoded(update.size());
        codec->Decode(layout, payload, decoded);
        for (size_t i = 0; i < update.size(); ++i)
        {
            const double x = update[i];
            const double error = std::abs(decoded[i] - x);
            if (std::abs(x) >= std::ldexp(1.0, -14))
            {
                ASSERT_LE(error, std::abs(x) * std::ldexp(1.0, -11)) << x;
            }
            else
            {
                ASSERT_LE(error, std::ldexp(1.0, -25)) << x; // half a subnormal step
            }
        }
    }
}

TEST(Fp16Codec, OverflowBecomesInfinityAndSpecialsSurvive)
{
    const TensorLayout layout({{"x", {7}}});
    const std::vector<float> update =
        {65504.0f, 65520.0f, -1e6f, -0.0f, std::nanf(""), INFINITY, 1e-9f};
    auto codec = Make("fp16");
    std::vector<float> decoded(update.size());
    codec->Decode(layout, Encode(*codec, layout, update), decoded);
    EXPECT_EQ(decoded[0], 65504.0f);
    EXPECT_EQ(decoded[1], INFINITY);
    EXPECT_EQ(decoded[2], -INFINITY);
    EXPECT_TRUE(decoded[3] == 0.0f && std::signbit(decoded[3]));
    EXPECT_TRUE(std::isnan(decoded[4]));
    EXPECT_EQ(decoded[5], INFINITY);
    EXPECT_EQ(decoded[6], 0.0f);
}

TEST(Codec, PayloadSizesForMnistLogistic)
{
    const TensorLayout layout = MnistLogistic();
    const auto update = RandomUpdate(layout.TotalSize(), 3, 0.01);
    EXPECT_EQ(Encode(*Make("none"), layout, update).size(), 31408u);
    EXPECT_EQ(Encode(*Make("fp16"), layout, update).size(), 15708u);
}

class EveryCodec : public ::testing::TestWithParam<std::string>
{
};

TEST_P(EveryCodec, EncodeAppendsToExistingBytes)
{
    const TensorLayout layout = Small();
    const auto update = RandomUpdate(layout.TotalSize(), 4, 1.0);
    // Fresh codecs for both encodes: stateful ones (error feedback, DGC) move on every Encode.
    const auto alone = Encode(*Make(GetParam()), layout, update);
    Rng rng(1, 1);
    std::vector<uint8_t> out = {9, 9, 9};
    Make(GetParam())->Encode(layout, update, rng, out);
    ASSERT_EQ(out.size(), 3 + alone.size());
    EXPECT_EQ(std::vector<uint8_t>(out.begin() + 3, out.end()), alone);
}

TEST_P(EveryCodec, RejectsPayloadForAnotherLayout)
{
    auto codec = Make(GetParam());
    const TensorLayout other({{"v", {2, 2}}, {"b", {3}}}); // same sizes, another name
    const auto payload = Encode(*codec, Small(), RandomUpdate(7, 5, 1.0));
    std::vector<float> decoded(7);
    try
    {
        codec->Decode(other, payload, decoded);
        FAIL() << "no DecodeError";
    }
    catch (const DecodeError& e)
    {
        EXPECT_EQ(e.Offset(), 0u);
        EXPECT_NE(std::string(e.what()).find("at byte offset 0"), std::string::npos) << e.what();
    }

    auto badCount = payload;
    badCount[4] ^= 1;
    try
    {
        codec->Decode(Small(), badCount, decoded);
        FAIL() << "no DecodeError";
    }
    catch (const DecodeError& e)
    {
        EXPECT_EQ(e.Offset(), 4u);
    }
}

TEST_P(EveryCodec, RejectsEveryTruncation)
{
    auto codec = Make(GetParam());
    const TensorLayout layout = Small();
    const auto payload = Encode(*codec, layout, RandomUpdate(7, 6, 1.0));
    for (size_t length = 0; length < payload.size(); ++length)
    {
        // An exactly sized copy, so that AddressSanitizer sees any read past the end.
        const std::vector<uint8_t> prefix(payload.begin(), payload.begin() + length);
        std::vector<float> decoded(layout.TotalSize());
        try
        {
            codec->Decode(layout, prefix, decoded);
            ADD_FAILURE() << "accepted a payload cut to " << length << " bytes";
        }
        catch (const DecodeError& e)
        {
            EXPECT_LE(e.Offset(), length);
        }
    }
}

TEST_P(EveryCodec, RejectsTrailingBytes)
{
    auto codec = Make(GetParam());
    auto payload = Encode(*codec, Small(), RandomUpdate(7, 7, 1.0));
    const size_t size = payload.size();
    payload.push_back(0);
    std::vector<float> decoded(7);
    try
    {
        codec->Decode(Small(), payload, decoded);
        FAIL() << "no DecodeError";
    }
    catch (const DecodeError& e)
    {
        // adaptive's last byte names the rung: an extra byte turns the real rung byte into
        // trailing payload of the rung's codec, one byte earlier.
        EXPECT_EQ(e.Offset(), GetParam() == "adaptive" ? size - 1 : size);
        EXPECT_NE(std::string(e.what()).find("trailing"), std::string::npos) << e.what();
    }
}

TEST_P(EveryCodec, RejectsWrongSizedBuffers)
{
    auto codec = Make(GetParam());
    Rng rng;
    std::vector<uint8_t> out;
    EXPECT_THROW(codec->Encode(Small(), std::vector<float>(6), rng, out), std::invalid_argument);
    const auto payload = Encode(*codec, Small(), RandomUpdate(7, 7, 1.0));
    std::vector<float> decoded(8);
    EXPECT_THROW(codec->Decode(Small(), payload, decoded), std::invalid_argument);
}

/// Codecs whose payloads decode one by one; power_sgd's two-exchange messages have their own
/// tests (power-sgd-codec-test.cc).
std::vector<std::string>
SingleExchangeCodecs()
{
    std::vector<std::string> names;
    for (const std::string& name : CodecTypeNames())
    {
        if (!Make(name)->HasRoundExchange())
        {
            names.push_back(name);
        }
    }
    return names;
}

INSTANTIATE_TEST_SUITE_P(Registered, EveryCodec, ::testing::ValuesIn(SingleExchangeCodecs()));

} // namespace
} // namespace fedran
