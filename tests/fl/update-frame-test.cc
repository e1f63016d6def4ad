// The update frame: encoding, corruption detection and stream reassembly.

#include "compression/rng.h"
#include "models/fl/update-frame.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace fedran
{
namespace
{

std::vector<uint8_t>
Bytes(size_t n, uint8_t first)
{
    std::vector<uint8_t> bytes(n);
    for (size_t i = 0; i < n; ++i)
    {
        bytes[i] = static_cast<uint8_t>(first + 7 * i);
    }
    return bytes;
}

FrameHeader
Header(FrameType type, uint32_t round, uint32_t client)
{
    FrameHeader header;
    header.type = type;
    header.codec = 2;
    header.round = round;
    header.client = client;
    header.samples = type == FrameType::ClientUpdate ? 600 : 0;
    return header;
}

/// Runs `action`, expecting a FrameError whose message contains `text`; returns its offset.
uint64_t
ExpectFrameError(const std::function<void()>& action, const std::string& text)
{
    try
    {
        action();
    }
    catch (const FrameError& e)
    {
        EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("at stream offset " + std::to_string(e.Offset())),
                  std::string::npos)
            << e.what();
        return e.Offset();
    }
    ADD_FAILURE() << "no FrameError (expected '" << text << "')";
    return UINT64_MAX;
}

void
ExpectSameFrame(const Frame& actual, const FrameHeader& header, const std::vector<uint8_t>& pl)
{
    EXPECT_EQ(actual.header.type, header.type);
    EXPECT_EQ(actual.header.codec, header.codec);
    EXPECT_EQ(actual.header.round, header.round);
    EXPECT_EQ(actual.header.client, header.client);
    EXPECT_EQ(actual.header.samples, header.samples);
    EXPECT_EQ(actual.header.length, pl.size());
    EXPECT_EQ(actual.payload, pl);
}

TEST(UpdateFrame, RoundTrip)
{
    const auto header = Header(FrameType::ClientUpdate, 17, 4242);
    const auto payload = Bytes(1000, 3);
    const auto bytes = EncodeFrame(header, payload);
    ASSERT_EQ(bytes.size(), kFrameHeaderSize + payload.size());
    EXPECT_EQ(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 4),
              (std::vector<uint8_t>{'F', 'D', 'R', 'N'}));
    ExpectSameFrame(DecodeFrame(bytes), header, payload);

    const auto empty = Header(FrameType::GlobalModel, 0, 0);
    ExpectSameFrame(DecodeFrame(EncodeFrame(empty, {})), empty, {});

    // A client's first frame: no payload, only its id.
    const auto join = Header(FrameType::Join, 0, 0);
    ExpectSameFrame(DecodeFrame(EncodeFrame(join, {})), join, {});

    // The two-exchange codecs' messages (PowerSGD's Q and P_hat down, Q_i up).
    const auto state = Header(FrameType::CodecState, 4, 2);
    ExpectSameFrame(DecodeFrame(EncodeFrame(state, payload)), state, payload);
    const auto reply = Header(FrameType::ClientReply, 4, 2);
    ExpectSameFrame(DecodeFrame(EncodeFrame(reply, payload)), reply, payload);
}

TEST(UpdateFrame, HeaderBuilderFillsEveryField)
{
    const FrameHeader header = MakeFrameHeader(FrameType::ClientUpdate, 2, 17, 4242, 600);
    EXPECT_EQ(EncodeFrame(header, Bytes(10, 1)),
              EncodeFrame(Header(FrameType::ClientUpdate, 17, 4242), Bytes(10, 1)));
    // The server's frames carry no FedAvg weight.
    EXPECT_EQ(MakeFrameHeader(FrameType::GlobalModel, 2, 3, 4).samples, 0u);

    const Frame join = DecodeFrame(EncodeJoinFrame(77));
    EXPECT_EQ(join.header.type, FrameType::Join);
    EXPECT_EQ(join.header.client, 77u);
    EXPECT_EQ(join.header.codec, 0u);
    EXPECT_EQ(join.header.round, 0u);
    EXPECT_EQ(join.header.samples, 0u);
    EXPECT_TRUE(join.payload.empty());
}

TEST(UpdateFrame, EncodeRejectsInvalidHeaders)
{
    auto header = Header(FrameType::GlobalModel, 1, 1);
    header.type = static_cast<FrameType>(99);
    EXPECT_THROW(EncodeFrame(header, {}), std::invalid_argument);
}

TEST(UpdateFrame, EveryFlippedByteIsRejected)
{
    const auto bytes = EncodeFrame(Header(FrameType::ClientUpdate, 3, 9), Bytes(40, 1));
    for (size_t position = 0; position < bytes.size(); ++position)
    {
        for (const uint8_t mask : {0x01, 0x10, 0x80, 0xFF})
        {
            auto corrupt = bytes;
            corrupt[position] ^= mask;
            EXPECT_THROW(DecodeFrame(corrupt), FrameError) << position << " ^ " << int{mask};
        }
    }
}

TEST(UpdateFrame, HeaderChecksNameTheField)
{
    const auto bytes = EncodeFrame(Header(FrameType::ClientUpdate, 3, 9), Bytes(40, 1));
    auto corrupt = [&](size_t at, uint8_t value) {
        auto copy = bytes;
        copy[at] = value;
        return copy;
    };
    EXPECT_EQ(ExpectFrameError([&] { DecodeFrame(corrupt(0, 'X')); }, "magic"), 0u);
    EXPECT_EQ(ExpectFrameError([&] { DecodeFrame(corrupt(4, 2)); }, "version"), 4u);
    EXPECT_EQ(ExpectFrameError([&] { DecodeFrame(corrupt(5, 0)); }, "type"), 5u);
    EXPECT_EQ(ExpectFrameError([&] { DecodeFrame(corrupt(23, 0x40)); }, "exceeds"), 20u);
    EXPECT_EQ(ExpectFrameError([&] { DecodeFrame(corrupt(9, 0x55)); }, "CRC mismatch"), 24u);
    EXPECT_EQ(ExpectFrameError([&] { DecodeFrame(corrupt(60, 0)); }, "CRC mismatch"), 24u);
}

TEST(UpdateFrame, TruncatedAndWrongLengthAreRejected)
{
    const auto bytes = EncodeFrame(Header(FrameType::GlobalModel, 1, 0), Bytes(50, 5));
    for (size_t length = 0; length < bytes.size(); ++length)
    {
        const std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + length);
        EXPECT_EQ(ExpectFrameError([&] { DecodeFrame(prefix); }, "truncated"), length);
    }
    auto longer = bytes;
    longer.push_back(0);
    EXPECT_EQ(ExpectFrameError([&] { DecodeFrame(longer); }, "wrong length"), bytes.size());
}

/// Three frames back to back, and what they should decode to.
struct Stream
{
    std::vector<uint8_t> bytes;
    std::vector<FrameHeader> headers;
    std::vector<std::vector<uint8_t>> payloads;
};

Stream
ThreeFrames()
{
    Stream stream;
    stream.headers = {Header(FrameType::GlobalModel, 1, 0),
                      Header(FrameType::ClientUpdate, 1, 7),
                      Header(FrameType::ClientUpdate, 1, 8)};
    stream.payloads = {Bytes(300, 1), Bytes(0, 0), Bytes(77, 9)};
    for (size_t i = 0; i < 3; ++i)
    {
        const auto frame = EncodeFrame(stream.headers[i], stream.payloads[i]);
        stream.bytes.insert(stream.bytes.end(), frame.begin(), frame.end());
    }
    return stream;
}

/// Feeds `stream` in pieces of the sizes `nextSize` returns and checks every frame comes out.
void
Reassemble(const Stream& stream, const std::function<size_t()>& nextSize)
{
    FrameReassembler reassembler;
    std::vector<Frame> frames;
    size_t fed = 0;
    while (fed < stream.bytes.size())
    {
        const size_t n = std::min(nextSize(), stream.bytes.size() - fed);
        reassembler.Append(std::span<const uint8_t>(stream.bytes).subspan(fed, n));
        fed += n;
        while (auto frame = reassembler.Next())
        {
            frames.push_back(std::move(*frame));
        }
        size_t consumed = 0;
        for (const Frame& frame : frames)
        {
            consumed += kFrameHeaderSize + frame.payload.size();
        }
        ASSERT_EQ(reassembler.Buffered(), fed - consumed);
    }
    ASSERT_EQ(frames.size(), 3u);
    for (size_t i = 0; i < 3; ++i)
    {
        ExpectSameFrame(frames[i], stream.headers[i], stream.payloads[i]);
    }
    EXPECT_EQ(reassembler.Buffered(), 0u);
}

TEST(FrameReassembler, OneByteAtATime)
{
    Reassemble(ThreeFrames(), [] { return size_t{1}; });
}

TEST(FrameReassembler, RandomChunkSizes)
{
    const Stream stream = ThreeFrames();
    for (uint64_t run = 0; run < 50; ++run)
    {
        Rng rng(77, run);
        Reassemble(stream, [&] { return static_cast<size_t>(1 + rng.UniformInt(120)); });
    }
    Reassemble(stream, [&] { return stream.bytes.size(); }); // all at once
}

TEST(FrameReassembler, RejectsBadMagicAsSoonAsTheHeaderArrives)
{
    const Stream stream = ThreeFrames();
    const size_t secondAt = kFrameHeaderSize + stream.payloads[0].size();
    auto bytes = stream.bytes;
    bytes[secondAt + 1] = 'x';

    FrameReassembler reassembler;
    reassembler.Append(std::span<const uint8_t>(bytes).first(secondAt));
    ASSERT_TRUE(reassembler.Next().has_value());
    reassembler.Append(std::span<const uint8_t>(bytes).subspan(secondAt, kFrameHeaderSize - 1));
    EXPECT_FALSE(reassembler.Next().has_value());
    reassembler.Append(std::span<const uint8_t>(bytes).subspan(secondAt + kFrameHeaderSize - 1, 1));
    EXPECT_EQ(ExpectFrameError([&] { reassembler.Next(); }, "magic"), secondAt);
    // The stream stays failed.
    EXPECT_THROW(reassembler.Next(), FrameError);
}

TEST(FrameReassembler, RejectsOversizedLengthBeforeThePayload)
{
    auto bytes = EncodeFrame(Header(FrameType::ClientUpdate, 1, 1), Bytes(10, 0));
    bytes[23] = 0x7F; // length field ~2 GiB: must fail now, not wait for 2 GiB
    FrameReassembler reassembler;
    reassembler.Append(std::span<const uint8_t>(bytes).first(kFrameHeaderSize));
    EXPECT_EQ(ExpectFrameError([&] { reassembler.Next(); }, "exceeds"), 20u);
}

TEST(FrameReassembler, MarksADamagedPayloadCorruptAndGoesOnWithTheStream)
{
    // A damaged payload byte leaves the header, and so the frame's end, intact: the frame
    // comes out marked, with the bytes as received, and the next frame is whole.
    Stream stream = ThreeFrames();
    auto bytes = stream.bytes;
    bytes[kFrameHeaderSize + 10] ^= 0x20; // a payload byte of the first frame
    FrameReassembler reassembler;
    reassembler.Append(bytes);
    const auto first = reassembler.Next();
    ASSERT_TRUE(first.has_value());
    EXPECT_TRUE(first->corrupt);
    EXPECT_EQ(first->header.type, FrameType::GlobalModel);
    EXPECT_EQ(first->payload.size(), stream.payloads[0].size());
    EXPECT_NE(first->payload, stream.payloads[0]);
    for (size_t i = 1; i < 3; ++i)
    {
        const auto frame = reassembler.Next();
        ASSERT_TRUE(frame.has_value());
        EXPECT_FALSE(frame->corrupt);
        ExpectSameFrame(*frame, stream.headers[i], stream.payloads[i]);
    }
    EXPECT_EQ(reassembler.Buffered(), 0u);
    // DecodeFrame, for one whole frame, still refuses it.
    std::vector<uint8_t> one(bytes.begin(), bytes.begin() + kFrameHeaderSize + 300);
    EXPECT_EQ(ExpectFrameError([&] { DecodeFrame(one); }, "CRC mismatch"), 24u);
}

} // namespace
} // namespace fedran
