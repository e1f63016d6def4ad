#include "models/fl/update-frame.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <zlib.h>

namespace fedran
{

namespace
{

// Byte offsets of the header fields (see the layout in update-frame.h).
constexpr size_t kMagicAt = 0;
constexpr size_t kVersionAt = 4;
constexpr size_t kTypeAt = 5;
constexpr size_t kCodecAt = 6;
constexpr size_t kRoundAt = 8;
constexpr size_t kClientAt = 12;
constexpr size_t kSamplesAt = 16;
constexpr size_t kLengthAt = 20;
constexpr size_t kCrcAt = 24;

// Explicit little-endian accessors, so frames are the same bytes on every host.
void
PutU16(uint8_t* p, uint16_t value)
{
    p[0] = static_cast<uint8_t>(value);
    p[1] = static_cast<uint8_t>(value >> 8);
}

void
PutU32(uint8_t* p, uint32_t value)
{
    for (int i = 0; i < 4; ++i)
    {
        p[i] = static_cast<uint8_t>(value >> (8 * i));
    }
}

uint16_t
GetU16(const uint8_t* p)
{
    return static_cast<uint16_t>(p[0] | (p[1] << 8));
}

uint32_t
GetU32(const uint8_t* p)
{
    return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
           (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

std::string
Hex(uint32_t value)
{
    char text[11];
    std::snprintf(text, sizeof(text), "0x%08x", value);
    return text;
}

bool
IsKnownType(uint8_t type)
{
    return type == static_cast<uint8_t>(FrameType::GlobalModel) ||
           type == static_cast<uint8_t>(FrameType::ClientUpdate) ||
           type == static_cast<uint8_t>(FrameType::Join) ||
           type == static_cast<uint8_t>(FrameType::CodecState) ||
           type == static_cast<uint8_t>(FrameType::ClientReply) ||
           type == static_cast<uint8_t>(FrameType::ClientUpdatePart) ||
           type == static_cast<uint8_t>(FrameType::LossPoll) ||
           type == static_cast<uint8_t>(FrameType::LossReply) ||
           type == static_cast<uint8_t>(FrameType::TrainStart) ||
           (type >= static_cast<uint8_t>(FrameType::SecAggSetup) &&
            type <= static_cast<uint8_t>(FrameType::SecAggUnmaskShares));
}

/// CRC-32 of header bytes 0..23 followed by the payload.
uint32_t
FrameCrc(const uint8_t* header, const uint8_t* payload, uint32_t length)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, header, kCrcAt);
    // Guarded because crc32() with a null buffer returns the initial value, discarding `crc`,
    // and an empty payload's data() may be null.
    if (length > 0)
    {
        crc = crc32(crc, payload, length);
    }
    return static_cast<uint32_t>(crc);
}

/**
 * Checks the fields that can be judged without the payload and returns the header.
 * `frameOffset` is the stream offset of the frame's first byte; errors name the offending
 * field's stream offset. The length bound is checked here, before anyone waits for (or
 * allocates) a payload of that size.
 */
FrameHeader
ParseHeader(const uint8_t* p, uint64_t frameOffset)
{
    const uint32_t magic = GetU32(p + kMagicAt);
    if (magic != kFrameMagic)
    {
        throw FrameError("bad frame magic " + Hex(magic) + " (expected " + Hex(kFrameMagic) + ")",
                         frameOffset + kMagicAt);
    }
    if (p[kVersionAt] != kFrameVersion)
    {
        throw FrameError("unsupported frame version " + std::to_string(p[kVersionAt]) +
                             " (expected " + std::to_string(kFrameVersion) + ")",
                         frameOffset + kVersionAt);
    }
    if (!IsKnownType(p[kTypeAt]))
    {
        throw FrameError("unknown frame type " + std::to_string(p[kTypeAt]), frameOffset + kTypeAt);
    }
    FrameHeader header;
    header.type = static_cast<FrameType>(p[kTypeAt]);
    header.codec = GetU16(p + kCodecAt);
    header.round = GetU32(p + kRoundAt);
    header.client = GetU32(p + kClientAt);
    header.samples = GetU32(p + kSamplesAt);
    header.length = GetU32(p + kLengthAt);
    if (header.length > kMaxFramePayload)
    {
        throw FrameError("frame payload length " + std::to_string(header.length) +
                             " exceeds the limit of " + std::to_string(kMaxFramePayload),
                         frameOffset + kLengthAt);
    }
    return header;
}

/// Checks the CRC of a complete frame starting at `p` and copies it out; with `keepCorrupt`
/// a mismatch marks the frame corrupt instead of throwing.
Frame
FinishFrame(const FrameHeader& header, const uint8_t* p, uint64_t frameOffset, bool keepCorrupt)
{
    const uint8_t* payload = p + kFrameHeaderSize;
    const uint32_t expected = GetU32(p + kCrcAt);
    const uint32_t actual = FrameCrc(p, payload, header.length);
    if (actual != expected && keepCorrupt)
    {
        Frame frame{header, std::vector<uint8_t>(payload, payload + header.length)};
        frame.corrupt = true;
        return frame;
    }
    if (actual != expected)
    {
        throw FrameError("frame CRC mismatch: header " + Hex(expected) + ", computed " +
                             Hex(actual),
                         frameOffset + kCrcAt);
    }
    return Frame{header, std::vector<uint8_t>(payload, payload + header.length)};
}

} // namespace

FrameError::FrameError(const std::string& what, uint64_t offset)
    : std::runtime_error(what + " at stream offset " + std::to_string(offset))
    , m_offset(offset)
{
}

FrameHeader
MakeFrameHeader(FrameType type, uint16_t codec, uint32_t round, uint32_t client, uint32_t samples)
{
    FrameHeader header;
    header.type = type;
    header.codec = codec;
    header.round = round;
    header.client = client;
    header.samples = samples;
    return header;
}

std::vector<uint8_t>
EncodeJoinFrame(uint32_t client)
{
    return EncodeFrame(MakeFrameHeader(FrameType::Join, 0, 0, client), {});
}

std::vector<uint8_t>
EncodeFrame(FrameHeader header, std::span<const uint8_t> payload)
{
    if (!IsKnownType(static_cast<uint8_t>(header.type)))
    {
        throw std::invalid_argument("EncodeFrame: unknown frame type " +
                                    std::to_string(static_cast<unsigned>(header.type)));
    }
    if (payload.size() > kMaxFramePayload)
    {
        throw std::invalid_argument("EncodeFrame: payload of " + std::to_string(payload.size()) +
                                    " bytes exceeds the frame limit");
    }
    header.length = static_cast<uint32_t>(payload.size());

    std::vector<uint8_t> frame(kFrameHeaderSize + payload.size());
    uint8_t* p = frame.data();
    PutU32(p + kMagicAt, kFrameMagic);
    p[kVersionAt] = kFrameVersion;
    p[kTypeAt] = static_cast<uint8_t>(header.type);
    PutU16(p + kCodecAt, header.codec);
    PutU32(p + kRoundAt, header.round);
    PutU32(p + kClientAt, header.client);
    PutU32(p + kSamplesAt, header.samples);
    PutU32(p + kLengthAt, header.length);
    if (!payload.empty())
    {
        std::copy(payload.begin(), payload.end(), p + kFrameHeaderSize);
    }
    PutU32(p + kCrcAt, FrameCrc(p, p + kFrameHeaderSize, header.length));
    return frame;
}

Frame
DecodeFrame(std::span<const uint8_t> bytes)
{
    if (bytes.size() < kFrameHeaderSize)
    {
        throw FrameError("truncated frame: " + std::to_string(bytes.size()) + " of " +
                             std::to_string(kFrameHeaderSize) + " header bytes",
                         bytes.size());
    }
    const FrameHeader header = ParseHeader(bytes.data(), 0);
    const uint64_t frameSize = kFrameHeaderSize + uint64_t{header.length};
    if (bytes.size() < frameSize)
    {
        throw FrameError("truncated frame: header announces " + std::to_string(header.length) +
                             " payload bytes, " + std::to_string(bytes.size() - kFrameHeaderSize) +
                             " present",
                         bytes.size());
    }
    if (bytes.size() > frameSize)
    {
        throw FrameError("wrong length: header announces " + std::to_string(header.length) +
                             " payload bytes, " + std::to_string(bytes.size() - kFrameHeaderSize) +
                             " present",
                         frameSize);
    }
    return FinishFrame(header, bytes.data(), 0, false);
}

void
FrameReassembler::Append(std::span<const uint8_t> bytes)
{
    // Drop the consumed prefix once it is at least as long as the live part. A compaction
    // moves no more bytes than were consumed since the previous one, and each byte is
    // consumed once, so this costs amortised O(1) per byte; the buffer never holds more than
    // twice the live bytes plus the latest append.
    const size_t live = m_buffer.size() - m_start;
    if (m_start > 0 && m_start >= live)
    {
        m_buffer.erase(m_buffer.begin(), m_buffer.begin() + static_cast<ptrdiff_t>(m_start));
        m_start = 0;
    }
    m_buffer.insert(m_buffer.end(), bytes.begin(), bytes.end());
}

std::optional<Frame>
FrameReassembler::Next()
{
    // On a FrameError nothing is consumed, so every later call throws the same error again:
    // the stream stays dead, as documented. A CRC mismatch is not a FrameError here: the
    // header gave the frame's end, so the stream can go on.
    const size_t available = m_buffer.size() - m_start;
    if (available < kFrameHeaderSize)
    {
        return std::nullopt;
    }
    const uint8_t* p = m_buffer.data() + m_start;
    const FrameHeader header = ParseHeader(p, m_streamOffset);
    const size_t frameSize = kFrameHeaderSize + size_t{header.length};
    if (available < frameSize)
    {
        return std::nullopt;
    }
    Frame frame = FinishFrame(header, p, m_streamOffset, true);
    m_start += frameSize;
    m_streamOffset += frameSize;
    if (m_start == m_buffer.size())
    {
        m_buffer.clear(); // the common case: the reads ended on a frame boundary
        m_start = 0;
    }
    return frame;
}

size_t
FrameReassembler::Buffered() const
{
    return m_buffer.size() - m_start;
}

} // namespace fedran
