// clipped: element-wise clamping, whole-update norm scaling, forwarding to the base.

#include "compression/codec-spec.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
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
RoundTrip(Codec& codec, const TensorLayout& layout, const std::vector<float>& update)
{
    Rng rng(1, 1);
    std::vector<uint8_t> payload;
    codec.Encode(layout, update, rng, payload);
    std::vector<float> decoded(layout.TotalSize());
    codec.Decode(layout, payload, decoded);
    return decoded;
}

TEST(ClippedCodec, ValueModeClampsEachElement)
{
    const TensorLayout layout({{"w", {2, 2}}, {"b", {3}}});
    auto codec = Make({{"type", "clipped"}, {"clip_value", 1.5}, {"base", {{"type", "none"}}}});
    EXPECT_EQ(codec->Name(), "clipped");
    EXPECT_EQ(codec->Id(), 31);
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<float> update = {0.5f, -2.0f, 1.5f, 3.0f, -1.5f, inf, -inf};
    EXPECT_EQ(RoundTrip(*codec, layout, update),
              (std::vector<float>{0.5f, -1.5f, 1.5f, 1.5f, -1.5f, 1.5f, -1.5f}));
    const float nan = std::numeric_limits<float>::quiet_NaN();
    EXPECT_TRUE(std::isnan(RoundTrip(*codec, layout, {nan, 0, 0, 0, 0, 0, 0})[0]));
}

TEST(ClippedCodec, NormModeScalesTheWholeUpdate)
{
    // Two tensors, norms 5 and 0 before clipping; the whole update has norm 5.
    const TensorLayout layout({{"a", {2}}, {"b", {2}}});
    auto codec = Make(
        {{"type", "clipped"}, {"clip_value", 2.5}, {"mode", "norm"}, {"base", {{"type", "none"}}}});
    const std::vector<float> clipped = RoundTrip(*codec, layout, {3.0f, 4.0f, 0.0f, 0.0f});
    EXPECT_FLOAT_EQ(clipped[0], 1.5f);
    EXPECT_FLOAT_EQ(clipped[1], 2.0f);
    EXPECT_EQ(clipped[2], 0.0f);
    // Inside the ball nothing changes, bit for bit.
    const std::vector<float> small = {0.3f, -0.4f, 1.0f, 0.1f};
    EXPECT_EQ(RoundTrip(*codec, layout, small), small);

    // A long random vector: the norm after clipping is the bound (to float rounding).
    const TensorLayout big({{"w", {1000}}, {"v", {24}}});
    Rng data(2, 0);
    std::vector<float> update(big.TotalSize());
    for (float& x : update)
    {
        x = static_cast<float>(data.Normal());
    }
    double norm = 0.0;
    for (const float x : RoundTrip(*codec, big, update))
    {
        norm += static_cast<double>(x) * x;
    }
    EXPECT_NEAR(std::sqrt(norm), 2.5, 1e-5);
}

TEST(ClippedCodec, PayloadIsTheBasePayload)
{
    const TensorLayout layout({{"w", {5}}});
    auto clipped = Make({{"type", "clipped"}, {"clip_value", 1.0}, {"base", {{"type", "fp16"}}}});
    auto fp16 = Make({{"type", "fp16"}});
    const std::vector<float> update = {3.0f, -0.5f, 0.25f, -7.0f, 1.0f};
    Rng rng(1, 1);
    std::vector<uint8_t> viaClipped;
    std::vector<uint8_t> viaBase;
    clipped->Encode(layout, update, rng, viaClipped);
    fp16->Encode(layout, std::vector<float>{1.0f, -0.5f, 0.25f, -1.0f, 1.0f}, rng, viaBase);
    EXPECT_EQ(viaClipped, viaBase);
    EXPECT_EQ(viaClipped.size(), 8u + 2 * 5);
}

TEST(ClippedCodec, NestsOverErrorFeedback)
{
    // clipped(value 1) over error_feedback over clipped(value 0.5): the outer clip limits what
    // enters the residual, the inner one what is sent.
    const TensorLayout layout({{"x", {1}}});
    auto codec = Make(
        {{"type", "clipped"},
         {"clip_value", 1.0},
         {"base",
          {{"type", "error_feedback"},
           {"base", {{"type", "clipped"}, {"clip_value", 0.5}, {"base", {{"type", "none"}}}}}}}});
    EXPECT_EQ(RoundTrip(*codec, layout, {4.0f}), std::vector<float>{0.5f}); // e = 0.5
    EXPECT_EQ(RoundTrip(*codec, layout, {0.0f}), std::vector<float>{0.5f}); // e = 0
    EXPECT_EQ(RoundTrip(*codec, layout, {0.0f}), std::vector<float>{0.0f});
}

std::string
ConfigError(const json& spec)
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

TEST(ClippedCodec, RejectsBadParameters)
{
    const json none = {{"type", "none"}};
    EXPECT_EQ(ConfigError({{"type", "clipped"}, {"base", none}}),
              "compression.uplink.clip_value: missing: the clipping bound is required");
    EXPECT_EQ(ConfigError({{"type", "clipped"}, {"clip_value", 1}}),
              "compression.uplink.base: missing: a wrapper needs the codec spec it wraps");
    EXPECT_EQ(ConfigError({{"type", "clipped"}, {"base", none}, {"clip_value", 0}}),
              "compression.uplink.clip_value: must be a positive float32, got 0.0");
    EXPECT_EQ(ConfigError({{"type", "clipped"}, {"base", none}, {"clip_value", -1.5}}),
              "compression.uplink.clip_value: must be a positive float32, got -1.5");
    EXPECT_EQ(ConfigError({{"type", "clipped"}, {"base", none}, {"clip_value", 1e300}}),
              "compression.uplink.clip_value: must be a positive float32, got 1e+300");
    EXPECT_EQ(ConfigError({{"type", "clipped"}, {"base", none}, {"clip_value", "1"}}),
              "compression.uplink.clip_value: must be a number, got string");
    EXPECT_EQ(ConfigError({{"type", "clipped"}, {"base", none}, {"clip_value", 1}, {"mode", "l2"}}),
              "compression.uplink.mode: must be \"value\" or \"norm\", got \"l2\"");
    EXPECT_EQ(ConfigError({{"type", "clipped"}, {"base", none}, {"clip_value", 1}, {"mode", 2}}),
              "compression.uplink.mode: must be a string, got number");
}

} // namespace
} // namespace fedran
