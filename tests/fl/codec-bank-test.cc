// The codecs an endpoint owns: made on first use, one per peer and role, kept across rounds
// and dropped only when told (the state they carry is a peer's).

#include "compression/codec-spec.h"
#include "models/fl/codec-bank.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace fedran::test
{
namespace
{

using nlohmann::json;

/// A lazy uplink whose skip reuses the sender's last update: a decoder with state.
CodecSpec
LazyUplink()
{
    return CodecSpec::Parse(json{{"type", "adaptive"},
                                 {"ladder", json::array({{{"type", "none"}}})},
                                 {"on_skip", "reuse"}},
                            "compression.uplink");
}

CodecSpec
Plain(const std::string& path)
{
    return CodecSpec::Parse(json{{"type", "none"}}, path);
}

TEST(CodecBankTest, PeerDecodersKeepTheirStateUntilForgotten)
{
    const TensorLayout layout({{"w", {4, 4}}});
    std::vector<float> update(layout.TotalSize());
    for (size_t i = 0; i < update.size(); ++i)
    {
        update[i] = 0.25f * float(i);
    }
    CodecBank site(LazyUplink(), Plain("compression.downlink"));
    CodecBank server(LazyUplink(), Plain("compression.downlink"));
    Rng rng(1, 1);
    std::vector<uint8_t> payload;
    site.UpdateEncoder().BeginRound(1);
    site.UpdateEncoder().Encode(layout, update, rng, payload);

    std::vector<float> out(layout.TotalSize());
    EXPECT_EQ(server.UpdateDecoder(3, 1).DecodeUpdate(layout, payload, out), Arrival::Update);
    // The same decoder in the next round: the skip reuses what it decoded.
    EXPECT_EQ(server.UpdateDecoder(3, 2).DecodeUpdate(layout, {}, out), Arrival::SkipReuse);
    EXPECT_EQ(out, update);
    // Another peer has a decoder of its own, with nothing to reuse.
    EXPECT_EQ(server.UpdateDecoder(4, 2).DecodeUpdate(layout, {}, out), Arrival::SkipOmit);
    server.ForgetUpdateDecoders(3);
    EXPECT_EQ(server.UpdateDecoder(3, 3).DecodeUpdate(layout, {}, out), Arrival::SkipOmit);
}

TEST(CodecBankTest, ViewEncoderIsFreshOnlyAfterForget)
{
    CodecBank server(Plain("compression.uplink"), Plain("compression.downlink"));
    bool fresh = false;
    server.ViewEncoder(7, fresh);
    EXPECT_TRUE(fresh);
    server.ViewEncoder(7, fresh);
    EXPECT_FALSE(fresh);
    server.ViewEncoder(8, fresh);
    EXPECT_TRUE(fresh);
    server.ForgetView(7);
    server.ViewEncoder(7, fresh);
    EXPECT_TRUE(fresh);
}

TEST(CodecBankTest, ChildAggregatorsUseTheirOwnUplink)
{
    const CodecSpec child = CodecSpec::Parse(json{{"type", "quantization"}, {"bits", 8}},
                                             "network.hubs (a).aggregator.compression.uplink");
    const CodecSpec uplink = Plain("compression.uplink");
    CodecBank server(uplink, Plain("compression.downlink"), {{10, child}});
    EXPECT_EQ(server.UplinkId(0), uplink.WireId());
    EXPECT_EQ(server.UplinkId(10), child.WireId());
    EXPECT_NE(uplink.WireId(), child.WireId());
    EXPECT_EQ(server.UpdateDecoder(10, 1).Id(), child.WireId());
    EXPECT_EQ(server.UpdateDecoder(0, 1).Id(), uplink.WireId());
    EXPECT_EQ(server.Uplink().Id(), uplink.WireId());
}

TEST(CodecBankTest, AReceiverResetLosesItsEncoderState)
{
    // error feedback carries a residual: a fresh encoder sends what a first round sends.
    const CodecSpec uplink = CodecSpec::Parse(
        json{{"type", "error_feedback"}, {"base", {{"type", "top_k"}, {"ratio", 0.25}}}},
        "compression.uplink");
    const TensorLayout layout({{"w", {4, 4}}});
    std::vector<float> update(layout.TotalSize());
    for (size_t i = 0; i < update.size(); ++i)
    {
        update[i] = float(i % 5) - 2.0f;
    }
    auto encode = [&](CodecBank& bank, uint32_t round) {
        Rng rng(1, 1);
        std::vector<uint8_t> payload;
        bank.UpdateEncoder().BeginRound(round);
        bank.UpdateEncoder().Encode(layout, update, rng, payload);
        return payload;
    };
    CodecBank site(uplink, Plain("compression.downlink"));
    const auto first = encode(site, 1);
    EXPECT_NE(encode(site, 2), first) << "the residual moves the second round";
    site.ResetReceiver();
    EXPECT_EQ(encode(site, 3), first);
}

} // namespace
} // namespace fedran::test
