// adaptive: the rung byte selects the decoder, each rung keeps its own state across switches,
// profiles report the real payload size, skips reuse or omit, bad ladders are config errors.

#include "compression/adaptive-ladder.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <vector>

namespace fedran
{
namespace
{

using nlohmann::json;

TensorLayout
Layout()
{
    return TensorLayout({{"w", {32, 16}}, {"b", {16}}});
}

std::vector<float>
Gaussian(size_t n, uint64_t stream)
{
    Rng rng(7, stream);
    std::vector<float> x(n);
    for (float& v : x)
    {
        v = static_cast<float>(rng.Normal());
    }
    return x;
}

const json kSpec = json::parse(R"({"type": "adaptive", "policy": "deadline", "safety": 0.8,
    "ladder": [{"type": "none"}, {"type": "quantization", "bits": 8},
               {"type": "error_feedback", "base": {"type": "top_k", "ratio": 0.05}},
               {"type": "sign"}]})");

/// An "adaptive" codec seen through both of its faces: the Codec and its AdaptiveLadder.
class Adaptive
{
  public:
    explicit Adaptive(std::unique_ptr<Codec> codec)
        : m_codec(std::move(codec)),
          m_ladder(m_codec->Ladder())
    {
        EXPECT_NE(m_ladder, nullptr);
    }

    size_t RungCount() const { return m_ladder->RungCount(); }
    void SelectRung(size_t rung) { m_ladder->SelectRung(rung); }
    size_t SelectedRung() const { return m_ladder->SelectedRung(); }
    std::string RungName(size_t rung) const { return m_ladder->RungName(rung); }
    RungProfile Profile(const TensorLayout& layout, size_t rung, uint32_t round)
    {
        return m_ladder->Profile(layout, rung, round);
    }
    bool ReusesOnSkip() const { return m_ladder->ReusesOnSkip(); }
    void BeginRound(uint32_t round) { m_codec->BeginRound(round); }
    void Encode(const TensorLayout& layout, std::span<const float> update, Rng& rng,
                std::vector<uint8_t>& out)
    {
        m_codec->Encode(layout, update, rng, out);
    }
    void Decode(const TensorLayout& layout, std::span<const uint8_t> payload, std::span<float> out)
    {
        m_codec->Decode(layout, payload, out);
    }
    /// A skip's empty payload: true if the last update is reused (written into `out`).
    bool DecodeSkip(const TensorLayout& layout, std::span<float> out)
    {
        const Arrival arrival = m_codec->DecodeUpdate(layout, {}, out);
        EXPECT_NE(arrival, Arrival::Update);
        return arrival == Arrival::SkipReuse;
    }
    Codec& AsCodec() { return *m_codec; }

  private:
    std::unique_ptr<Codec> m_codec;
    AdaptiveLadder* m_ladder;
};

std::unique_ptr<Adaptive>
MakeLadder(const json& spec = kSpec)
{
    return std::make_unique<Adaptive>(MakeCodec(spec, "compression.uplink"));
}

TEST(AdaptiveCodecTest, EachRungRoundTripsAsItsOwnCodec)
{
    const TensorLayout layout = Layout();
    auto encoder = MakeLadder();
    auto decoder = MakeLadder();
    ASSERT_EQ(encoder->RungCount(), 4u);
    EXPECT_EQ(encoder->RungName(2), "error_feedback(top_k)");
    const auto update = Gaussian(layout.TotalSize(), 1);
    for (size_t r = 0; r < 4; ++r)
    {
        encoder->SelectRung(r);
        Rng rng(1, 1);
        std::vector<uint8_t> payload;
        encoder->Encode(layout, update, rng, payload);
        ASSERT_FALSE(payload.empty());
        EXPECT_EQ(payload.back(), r);
        // Same bytes as the rung's codec alone, after the rung byte.
        auto alone = MakeCodec(kSpec["ladder"][r], "x");
        Rng rng2(1, 1);
        std::vector<uint8_t> expected;
        alone->Encode(layout, update, rng2, expected);
        EXPECT_EQ(std::vector<uint8_t>(payload.begin(), payload.end() - 1), expected);
        std::vector<float> out(layout.TotalSize());
        decoder->Decode(layout, payload, out);
        if (r == 0)
        {
            EXPECT_EQ(out, update);
        }
    }
}

TEST(AdaptiveCodecTest, ProfileSizesMatchTheEncodedPayloads)
{
    const TensorLayout layout = Layout();
    auto ladder = MakeLadder();
    const auto update = Gaussian(layout.TotalSize(), 2);
    for (size_t r = 0; r < 4; ++r)
    {
        const RungProfile profile = ladder->Profile(layout, r, 1);
        ladder->SelectRung(r);
        Rng rng(1, 1);
        std::vector<uint8_t> payload;
        ladder->Encode(layout, update, rng, payload);
        EXPECT_EQ(profile.payloadBytes, payload.size()) << "rung " << r;
    }
    EXPECT_EQ(ladder->Profile(layout, 0, 1).relativeError, 0.0);
    EXPECT_LT(ladder->Profile(layout, 1, 1).relativeError, 1e-3);
    EXPECT_GT(ladder->Profile(layout, 2, 1).relativeError, 0.5); // 5% of the entries kept
    EXPECT_GT(ladder->Profile(layout, 1, 1).payloadBytes, ladder->Profile(layout, 3, 1).payloadBytes);
}

TEST(AdaptiveCodecTest, AWarmupRungIsProfiledAtEachRoundsSize)
{
    // top_k under error feedback with a 4-round warm-up (25%, 6.25%, 1.5625%, 0.39%, 1%):
    // the budget must see the size each round will really send.
    const json spec = json::parse(R"({"type": "adaptive", "ladder": [{"type": "none"},
        {"type": "error_feedback", "base": {"type": "top_k", "ratio": 0.01,
                                            "warmup_rounds": 4}}]})");
    const TensorLayout layout = Layout();
    auto ladder = MakeLadder(spec);
    auto decoder = MakeLadder(spec);
    ladder->SelectRung(1);
    std::vector<uint64_t> sizes;
    for (uint32_t round = 1; round <= 6; ++round)
    {
        const RungProfile profile = ladder->Profile(layout, 1, round);
        ladder->BeginRound(round);
        Rng rng(1, round);
        std::vector<uint8_t> payload;
        ladder->Encode(layout, Gaussian(layout.TotalSize(), 10 + round), rng, payload);
        // Exact up to the varint index gaps, which depend on the data (the probe's or this).
        EXPECT_NEAR(double(profile.payloadBytes), double(payload.size()), 4 + 0.05 * payload.size())
            << "round " << round;
        decoder->BeginRound(round);
        std::vector<float> out(layout.TotalSize());
        EXPECT_NO_THROW(decoder->Decode(layout, payload, out)) << "round " << round;
        sizes.push_back(profile.payloadBytes);
    }
    EXPECT_GT(sizes[0], 4 * sizes[2]);
    EXPECT_GT(sizes[1], sizes[2]);
    EXPECT_GT(sizes[2], sizes[3]);
    EXPECT_EQ(sizes[4], sizes[3]) << "0.39% < 1%: the final ratio from round 4 on";
    EXPECT_EQ(sizes[5], sizes[3]);
}

TEST(AdaptiveCodecTest, ResidualOfAnInactiveRungStaysFrozen)
{
    // Two ladders see the same sequence on the EF rung; one uses another rung in between.
    const TensorLayout layout = Layout();
    auto switching = MakeLadder();
    auto steady = MakeLadder();
    auto decodeWith = [&](Adaptive& ladder, size_t rung, const std::vector<float>& update) {
        ladder.SelectRung(rung);
        Rng rng(3, 3);
        std::vector<uint8_t> payload;
        ladder.Encode(layout, update, rng, payload);
        return payload;
    };
    const auto a = Gaussian(layout.TotalSize(), 3);
    const auto b = Gaussian(layout.TotalSize(), 4);
    const auto c = Gaussian(layout.TotalSize(), 5);
    decodeWith(*switching, 2, a);
    decodeWith(*steady, 2, a);
    decodeWith(*switching, 0, b); // the EF rung is idle: its residual must not move
    decodeWith(*switching, 3, b);
    EXPECT_EQ(decodeWith(*switching, 2, c), decodeWith(*steady, 2, c));
}

TEST(AdaptiveCodecTest, SkipReusesTheLastUpdateOrOmits)
{
    const TensorLayout layout = Layout();
    json spec = kSpec;
    spec["on_skip"] = "reuse";
    auto encoder = MakeLadder(spec);
    auto decoder = MakeLadder(spec);
    EXPECT_TRUE(decoder->ReusesOnSkip());
    std::vector<float> out(layout.TotalSize());
    EXPECT_FALSE(decoder->DecodeSkip(layout, out)) << "nothing to reuse yet";
    const auto update = Gaussian(layout.TotalSize(), 6);
    Rng rng(1, 1);
    std::vector<uint8_t> payload;
    encoder->Encode(layout, update, rng, payload);
    decoder->Decode(layout, payload, out);
    std::vector<float> reused(layout.TotalSize());
    EXPECT_TRUE(decoder->DecodeSkip(layout, reused));
    EXPECT_EQ(reused, update);
    // An update payload still decodes as an update.
    EXPECT_EQ(decoder->AsCodec().DecodeUpdate(layout, payload, out), Arrival::Update);
    EXPECT_EQ(MakeCodec({{"type", "none"}}, "x")->Ladder(), nullptr);
    EXPECT_THROW(decoder->Decode(layout, {}, out), DecodeError);

    auto omitting = MakeLadder();
    EXPECT_FALSE(omitting->ReusesOnSkip());
    omitting->Decode(layout, payload, out);
    EXPECT_FALSE(omitting->DecodeSkip(layout, reused));
}

TEST(AdaptiveCodecTest, BadRungByteIsADecodeError)
{
    const TensorLayout layout = Layout();
    auto decoder = MakeLadder();
    std::vector<uint8_t> payload = {1, 2, 3, 9};
    std::vector<float> out(layout.TotalSize());
    try
    {
        decoder->Decode(layout, payload, out);
        FAIL();
    }
    catch (const DecodeError& e)
    {
        EXPECT_EQ(e.Offset(), 3u);
        EXPECT_NE(std::string(e.what()).find("rung 9"), std::string::npos);
    }
    payload.back() = 0; // none, truncated
    EXPECT_THROW(decoder->Decode(layout, payload, out), DecodeError);
}

void
ExpectConfigError(const std::string& spec, const std::string& needle)
{
    try
    {
        MakeCodec(json::parse(spec), "compression.uplink");
        FAIL() << spec;
    }
    catch (const CodecConfigError& e)
    {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST(AdaptiveCodecTest, BadLaddersAreConfigErrors)
{
    ExpectConfigError(R"({"type": "adaptive"})", "compression.uplink.ladder: must be");
    ExpectConfigError(R"({"type": "adaptive", "ladder": []})", "compression.uplink.ladder");
    ExpectConfigError(R"({"type": "adaptive", "ladder": [{"type": "power_sgd", "rank": 2}]})",
                      "compression.uplink.ladder[0]: power_sgd cannot be a ladder rung");
    ExpectConfigError(
        R"({"type": "adaptive", "ladder": [{"type": "error_feedback", "base": {"type": "power_sgd"}}]})",
        "power_sgd cannot be a ladder rung");
    ExpectConfigError(R"({"type": "adaptive", "ladder": [{"type": "adaptive", "ladder": []}]})",
                      "cannot itself be adaptive");
    ExpectConfigError(
        R"({"type": "adaptive", "ladder": [{"type": "sign", "aggregation": "majority_vote"}]})",
        "ladder[0].aggregation");
    ExpectConfigError(R"({"type": "adaptive", "ladder": [{"type": "top_k", "ratio": 2}]})",
                      "compression.uplink.ladder[0].ratio");
    ExpectConfigError(R"({"type": "adaptive", "ladder": [{"type": "none"}], "on_skip": "x"})",
                      "compression.uplink.on_skip");
    ExpectConfigError(R"({"type": "adaptive", "ladder": [{"type": "none"}], "polcy": "x"})",
                      "compression.uplink.polcy: unknown key");
}

} // namespace
} // namespace fedran
