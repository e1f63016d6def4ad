#ifndef FEDRAN_MODELS_FL_UPDATE_FRAME_H
#define FEDRAN_MODELS_FL_UPDATE_FRAME_H

// The application-level envelope of every message between the FL server and a client.
// A TCP stream carries frames back to back; FrameReassembler cuts them out again.
//
// Wire layout (little-endian), kFrameHeaderSize = 28 bytes, then the codec payload:
//   0  magic        u32  'F','D','R','N'
//   4  version      u8   kFrameVersion
//   5  type         u8   FrameType
//   6  codec        u16  codec id (compression/codec-registry.cc)
//   8  round        u32
//  12  client       u32
//  16  samples      u32  examples behind an update or reply (FedAvg weight); 0 from the server,
//                        except a model frame under a level policy: the QSGD level the client
//                        is to send its update at (models/fl/level-policy.h)
//  20  length       u32  payload bytes that follow the header
//  24  crc32        u32  zlib CRC-32 of header bytes 0..23 followed by the payload

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace fedran
{

constexpr uint32_t kFrameMagic = 0x4E524446; // "FDRN" read as little-endian u32
constexpr uint8_t kFrameVersion = 1;
constexpr size_t kFrameHeaderSize = 28;
/// Frames announcing more payload than this are rejected before anything is allocated.
constexpr uint32_t kMaxFramePayload = 1u << 30;

enum class FrameType : uint8_t
{
    GlobalModel = 1,  ///< server -> client: the model to train from
    ClientUpdate = 2, ///< client -> server: the encoded update
    Join = 3,         ///< client -> server: first frame on a channel, names the client
    /// server -> client: a two-exchange codec's message (PowerSGD's Q before the model, its
    /// P_hat after the first payloads)
    CodecState = 4,
    ClientReply = 5, ///< client -> server: the answer to a CodecState sent mid-round
    /// client -> server: one bucket of a layerwise-pipelined update (training.pipelining):
    /// payload u32 part index (in sending order), u32 part count, u32 first tensor, u32
    /// tensor count, then the codec's payload for those tensors alone
    ClientUpdatePart = 6,
    /// server -> client: power_of_choice pow-d's poll, the global model (the payload a
    /// GlobalModel frame of the round would carry) and a request for the client's loss at it
    LossPoll = 7,
    /// client -> server: the answer to a LossPoll, its mean loss as one float32
    LossReply = 8,
    /// server -> client: train from the model of this round's LossPoll (no payload; the
    /// header's sample field carries a level policy's level, as a GlobalModel frame's does)
    TrainStart = 9,
    /// privacy.secure_aggregation (models/fl/secagg/secagg-messages.h has the payloads):
    /// server -> client, the round's parameters; the client answers with its public keys
    SecAggSetup = 10,
    SecAggAdvertiseKeys = 11, ///< client -> server: its two public keys
    SecAggKeys = 12,          ///< server -> client: its neighbours' public keys
    SecAggShareKeys = 13,     ///< client -> server: a ciphertext of its shares per neighbour
    SecAggShares = 14,        ///< server -> client: the ciphertexts its neighbours sent it
    SecAggUnmask = 15,        ///< server -> client: the survivors and the dropped
    SecAggUnmaskShares = 16,  ///< client -> server: the shares asked for
};

/// Whether a frame type belongs to secure aggregation's extra stages (rounds.csv secagg_bytes).
constexpr bool
IsSecAggFrame(FrameType type)
{
    return type >= FrameType::SecAggSetup && type <= FrameType::SecAggUnmaskShares;
}

/// Bytes before the codec payload of a ClientUpdatePart frame.
constexpr size_t kPartPrefixSize = 16;

struct FrameHeader
{
    FrameType type = FrameType::GlobalModel;
    uint16_t codec = 0;
    uint32_t round = 0;
    uint32_t client = 0;
    uint32_t samples = 0;
    uint32_t length = 0; ///< filled in by EncodeFrame
};

struct Frame
{
    FrameHeader header;
    std::vector<uint8_t> payload;
    /// FrameReassembler only: the frame failed its CRC check. Its header passed the structural
    /// checks (so the stream could be cut after it), but any of its bytes may be damaged.
    bool corrupt = false;
    /// Receiver side: when its first byte arrived, in simulated seconds (< 0: not known). The
    /// server's selection ledger measures uploads by it.
    double firstByteS = -1.0;
};

/// A malformed frame; the message names the stream offset of the problem.
class FrameError : public std::runtime_error
{
  public:
    FrameError(const std::string& what, uint64_t offset);

    uint64_t Offset() const
    {
        return m_offset;
    }

  private:
    uint64_t m_offset;
};

/// The header of a frame to send: the one place that fills one in, so that every sender
/// (server, aggregator, client) agrees on what each field holds. `samples` is the FedAvg
/// weight of an update or a reply, 0 on the server's frames and on a join; `length` is left
/// to EncodeFrame.
FrameHeader MakeFrameHeader(FrameType type,
                            uint16_t codec,
                            uint32_t round,
                            uint32_t client,
                            uint32_t samples = 0);

/// Header + payload, ready for a socket.
std::vector<uint8_t> EncodeFrame(FrameHeader header, std::span<const uint8_t> payload);

/// The Join frame naming `client`: the first frame on every channel toward a parent.
std::vector<uint8_t> EncodeJoinFrame(uint32_t client);

/// Decodes exactly one frame that fills `bytes` entirely. Throws FrameError.
Frame DecodeFrame(std::span<const uint8_t> bytes);

/**
 * Cuts frames out of a byte stream that arrives in arbitrary pieces.
 * After a FrameError the stream is unusable (there is no resynchronisation on TCP). A frame
 * whose header is sound but whose CRC does not match is returned with `corrupt` set: the
 * stream goes on after it, and the receiver decides what a damaged frame means (the server
 * drops a damaged update and keeps the connection).
 */
class FrameReassembler
{
  public:
    void Append(std::span<const uint8_t> bytes);

    /// The next complete frame, or nothing if more bytes are needed. Throws FrameError.
    std::optional<Frame> Next();

    /// Bytes received but not yet returned in a frame.
    size_t Buffered() const;

  private:
    std::vector<uint8_t> m_buffer;
    size_t m_start = 0;          ///< first unconsumed byte of m_buffer
    uint64_t m_streamOffset = 0; ///< stream offset of m_buffer[m_start]
};

} // namespace fedran

#endif
