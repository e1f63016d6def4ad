// adaptive: the rung byte selects the decoder, each rung keeps its own state across switches,
// trial encodings are the exact payloads and leave every rung untouched, skips reuse or omit,
// bad ladders are config errors.

#include "compression/adaptive-ladder.h"
#include "compression/codec-spec.h"

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
        : m_codec(std::move(codec))
        , m_ladder(m_codec->Ladder())
    {
        EXPECT_NE(m_ladder, nullptr);
    }

    size_t RungCount() const
    {
        return m_ladder->RungCount();
    }
    void SelectRung(size_t rung)
    {
        m_ladder->SelectRung(rung);
    }
    size_t SelectedRung() const
    {
        return m_ladder->SelectedRung();
    }
    std::string RungName(size_t rung) const
    {
        return m_ladder->RungName(rung);
    }
    RungProfile Trial(const TensorLayout& layout,
                      size_t rung,
                      std::span<const float> update,
                      const Rng& rng,
                      bool error = true)
    {
        return m_ladder->Trial(layout, rung, update, rng, error, nullptr);
    }
    void Commit(size_t rung, std::vector<uint8_t>& out, Rng& rng)
    {
        m_ladder->Commit(rung, out, rng);
    }
    void DiscardTrials()
    {
        m_ladder->DiscardTrials();
    }
    bool ReusesOnSkip() const
    {
        return m_ladder->ReusesOnSkip();
    }
    void BeginRound(uint32_t round)
    {
        m_codec->BeginRound(round);
    }
    void Encode(const TensorLayout& layout,
                std::span<const float> update,
                Rng& rng,
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
    Codec& AsCodec()
    {
        return *m_codec;
    }

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

TEST(AdaptiveCodecTest, TrialsAreTheExactPayloadsAndLeaveEveryRungUntouched)
{
    // Data-dependent rungs, two of them with state: a trial of every rung each round, one rung
    // committed (in turn). Each rung must send exactly what its codec alone sends when fed
    // only the rounds it was chosen in: trials of the others must not move its state.
    const json spec = json::parse(R"({"type": "adaptive", "ladder": [
        {"type": "threshold", "threshold": 0.8},
        {"type": "dgc", "mode": "round", "ratio": 0.05, "warmup_rounds": 2},
        {"type": "qsgd", "levels": 4},
        {"type": "error_feedback", "base": {"type": "top_k", "ratio": 0.05}}]})");
    const TensorLayout layout = Layout();
    auto ladder = MakeLadder(spec);
    auto decoder = MakeLadder(spec);
    std::vector<std::unique_ptr<Codec>> alone;
    for (size_t r = 0; r < 4; ++r)
    {
        alone.push_back(MakeCodec(spec["ladder"][r], "x"));
    }
    Rng rng(9, 9);
    Rng aloneRng(9, 9);
    for (uint32_t round = 1; round <= 12; ++round)
    {
        ladder->BeginRound(round);
        decoder->BeginRound(round);
        // A heavy-tailed update whose scale changes: the sizes follow the data.
        std::vector<float> update = Gaussian(layout.TotalSize(), 100 + round);
        for (size_t i = 0; i < update.size(); ++i)
        {
            update[i] *= (i % 7 == 0 ? 3.0f : 0.3f) * float(round % 3 + 1);
        }
        std::vector<RungProfile> trials;
        for (size_t r = 0; r < 4; ++r)
        {
            trials.push_back(ladder->Trial(layout, r, update, rng));
        }
        const size_t chosen = round % 4;
        std::vector<uint8_t> payload;
        ladder->Commit(chosen, payload, rng);
        alone[chosen]->BeginRound(round);
        std::vector<uint8_t> expected;
        alone[chosen]->Encode(layout, update, aloneRng, expected);
        expected.push_back(uint8_t(chosen));
        EXPECT_EQ(payload, expected) << "round " << round;
        EXPECT_EQ(trials[chosen].payloadBytes, payload.size()) << "round " << round;
        EXPECT_EQ(rng.NextU64(), aloneRng.NextU64()) << "the stream moves on as the encoding did";
        std::vector<float> out(layout.TotalSize());
        EXPECT_NO_THROW(decoder->Decode(layout, payload, out));
    }
}

TEST(AdaptiveCodecTest, TrialErrorIsOnWhatTheRungCompresses)
{
    const TensorLayout layout = Layout();
    auto ladder = MakeLadder();
    const auto update = Gaussian(layout.TotalSize(), 2);
    ladder->BeginRound(1);
    Rng rng(1, 1);
    EXPECT_EQ(ladder->Trial(layout, 0, update, rng).relativeError, 0.0);
    EXPECT_LT(ladder->Trial(layout, 1, update, rng).relativeError, 1e-3);
    const double first = ladder->Trial(layout, 2, update, rng).relativeError;
    EXPECT_GT(first, 0.5); // 5% of the entries kept
    EXPECT_TRUE(std::isnan(ladder->Trial(layout, 3, update, rng, false).relativeError));
    EXPECT_GT(ladder->Trial(layout, 1, update, rng).payloadBytes,
              ladder->Trial(layout, 3, update, rng).payloadBytes);
    std::vector<uint8_t> payload;
    ladder->Commit(2, payload, rng);
    // Round 2: the residual of round 1 (95% of it) rides along, so the rung compresses
    // p = u + e; an update of zeros leaves p = e, of which top_k keeps the largest 5% again.
    ladder->BeginRound(2);
    const std::vector<float> zeros(layout.TotalSize(), 0.0f);
    const double second = ladder->Trial(layout, 2, zeros, rng).relativeError;
    EXPECT_GT(second, 0.5);
    EXPECT_LT(second, 1.0);
    ladder->DiscardTrials();
    EXPECT_THROW(ladder->Commit(2, payload, rng), std::logic_error);
}

TEST(AdaptiveCodecTest, AWarmupRungsTrialIsEachRoundsSize)
{
    // top_k under error feedback with a 4-round warm-up (25%, 6.25%, 1.5625%, 0.39%, 1%):
    // the budget sees the size each round really sends.
    const json spec = json::parse(R"({"type": "adaptive", "ladder": [{"type": "none"},
        {"type": "error_feedback", "base": {"type": "top_k", "ratio": 0.01,
                                            "warmup_rounds": 4}}]})");
    const TensorLayout layout = Layout();
    auto ladder = MakeLadder(spec);
    auto decoder = MakeLadder(spec);
    std::vector<uint64_t> sizes;
    Rng rng(1, 1);
    for (uint32_t round = 1; round <= 6; ++round)
    {
        ladder->BeginRound(round);
        const auto update = Gaussian(layout.TotalSize(), 10 + round);
        const RungProfile profile = ladder->Trial(layout, 1, update, rng, false);
        std::vector<uint8_t> payload;
        ladder->Commit(1, payload, rng);
        EXPECT_EQ(profile.payloadBytes, payload.size()) << "round " << round;
        decoder->BeginRound(round);
        std::vector<float> out(layout.TotalSize());
        EXPECT_NO_THROW(decoder->Decode(layout, payload, out)) << "round " << round;
        sizes.push_back(profile.payloadBytes);
    }
    EXPECT_GT(sizes[0], 4 * sizes[2]);
    EXPECT_GT(sizes[1], sizes[2]);
    EXPECT_GT(sizes[2], sizes[3]);
    EXPECT_NEAR(double(sizes[4]), double(sizes[3]), 4.0)
        << "0.39% < 1%: the final ratio from round 4 on";
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
        "ladder[0].base: a two-exchange codec (power_sgd) cannot be wrapped");
    ExpectConfigError(R"({"type": "adaptive", "ladder": [{"type": "adaptive", "ladder": []}]})",
                      "cannot itself be adaptive");
    ExpectConfigError(
        R"({"type": "adaptive", "ladder": [{"type": "sign", "aggregation": "majority_vote"}]})",
        "ladder[0]: a rung cannot bring its own aggregator");
    ExpectConfigError(R"({"type": "adaptive", "ladder": [{"type": "top_k", "ratio": 2}]})",
                      "compression.uplink.ladder[0].ratio");
    ExpectConfigError(R"({"type": "adaptive", "ladder": [{"type": "none"}], "on_skip": "x"})",
                      "compression.uplink.on_skip");
    ExpectConfigError(R"({"type": "adaptive", "ladder": [{"type": "none"}], "polcy": "x"})",
                      "compression.uplink.polcy: unknown key");
}

TEST(AdaptiveCodecTest, TrialsSayWhichRungsAreBiased)
{
    // Biased: the codec's expected decoding differs from its input, the same way for every
    // client; unbiased: stochastic rounding, scaled random_k; error feedback is its base's.
    const json spec = json::parse(R"({"type": "adaptive", "ladder": [
        {"type": "none"}, {"type": "quantization", "bits": 4},
        {"type": "quantization", "bits": 4, "stochastic": false},
        {"type": "random_k", "ratio": 0.1}, {"type": "random_k", "ratio": 0.1, "scale": false},
        {"type": "sign"}, {"type": "top_k", "ratio": 0.1}, {"type": "threshold", "threshold": 0.5},
        {"type": "error_feedback", "base": {"type": "top_k", "ratio": 0.1}}]})");
    const std::vector<bool> biased = {false, false, true, false, true, true, true, true, true};
    auto codec = MakeCodec(spec, "compression.uplink");
    AdaptiveLadder* ladder = codec->Ladder();
    ASSERT_NE(ladder, nullptr);
    const TensorLayout layout = Layout();
    const auto update = Gaussian(layout.TotalSize(), 3);
    const Rng rng(1, 1);
    ASSERT_EQ(ladder->RungCount(), biased.size());
    for (size_t r = 0; r < biased.size(); ++r)
    {
        EXPECT_EQ(ladder->Trial(layout, r, update, rng, false, nullptr).biased, biased[r])
            << ladder->RungName(r);
    }
}

} // namespace
} // namespace fedran
