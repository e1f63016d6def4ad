#ifndef FEDRAN_COMPRESSION_INTERNAL_POWER_SGD_PAYLOAD_H
#define FEDRAN_COMPRESSION_INTERNAL_POWER_SGD_PAYLOAD_H

// What power_sgd's client codec (codecs/power-sgd-codec.cc) and its server side
// (codecs/power-sgd-exchange.cc) share: the settings, which tensors a round compresses and
// where their factors sit, and the payload header (the protocol and layout are described at
// the top of power-sgd-codec.cc).

#include "compression/internal/byte-io.h"
#include "compression/internal/codecs.h"
#include "compression/internal/payload-header.h"
#include "compression/internal/power-sgd.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fedran::internal::power_sgd
{

enum class Kind : uint8_t
{
    State = 0,
    First = 1,
    Message = 2,
    Reply = 3,
};

enum class StateMode : uint8_t
{
    Seed = 0,
    Floats = 1,
};

constexpr uint32_t kMaxRank = 64;

struct PowerSgdParams
{
    uint32_t rank = 2;
    uint32_t startRound = 1; ///< earlier rounds send every tensor dense, in one exchange
    double minCompressionRate = 2.0;
    bool warmStart = true;
    bool errorFeedback = true;
};

/// Which tensors are compressed, and where each matrix's factors sit in the concatenated
/// P (n x r per matrix) and Q (m x r per matrix) vectors.
struct Plan
{
    struct Matrix
    {
        size_t tensor;
        uint64_t n;
        uint64_t m;
        uint64_t pOffset;
        uint64_t qOffset;
    };

    std::vector<Matrix> matrices;
    std::vector<bool> compressed; ///< per tensor
    uint64_t pFloats = 0;
    uint64_t qFloats = 0;
    uint64_t firstFloats = 0; ///< dense tensors + P

    /// First payloads say whether they were made for a round with a second exchange.
    uint8_t FirstMode() const
    {
        return matrices.empty() ? 1 : 0;
    }

    /// The plan of round `round` (1-based): nothing is compressed before params.startRound.
    Plan(const TensorLayout& layout, const PowerSgdParams& params, uint32_t round)
        : compressed(layout.TensorCount(), false)
    {
        for (size_t t = 0; t < layout.TensorCount(); ++t)
        {
            const auto shape = ReshapeAsMatrix(layout.Tensors()[t]);
            if (round >= params.startRound && shape &&
                WorthCompressing(shape->rows, shape->cols, params.rank, params.minCompressionRate))
            {
                compressed[t] = true;
                matrices.push_back({t, shape->rows, shape->cols, pFloats, qFloats});
                pFloats += shape->rows * params.rank;
                qFloats += shape->cols * params.rank;
                firstFloats += shape->rows * params.rank;
            }
            else
            {
                firstFloats += layout.Tensors()[t].Size();
            }
        }
    }
};

inline void
WriteHeader(const TensorLayout& layout,
            ByteWriter& writer,
            Kind kind,
            uint32_t rank,
            StateMode mode = StateMode::Seed)
{
    WritePayloadHeader(layout, writer);
    writer.WriteU8(static_cast<uint8_t>(kind));
    writer.WriteU8(static_cast<uint8_t>(rank));
    writer.WriteU8(static_cast<uint8_t>(mode));
    writer.WriteU8(0);
}

/// Checks the header of a payload that must be of `kind`; returns its mode byte.
inline uint8_t
ReadHeader(const TensorLayout& layout, ByteReader& reader, Kind kind, uint32_t rank)
{
    ReadPayloadHeader(layout, reader);
    const size_t kindAt = reader.Offset();
    const uint8_t got = reader.ReadU8();
    if (got != static_cast<uint8_t>(kind))
    {
        throw DecodeError("power_sgd message kind " + std::to_string(got) + ", expected " +
                              std::to_string(static_cast<int>(kind)),
                          kindAt);
    }
    const size_t rankAt = reader.Offset();
    const uint8_t gotRank = reader.ReadU8();
    if (gotRank != rank)
    {
        throw DecodeError("power_sgd rank " + std::to_string(gotRank) + ", configured " +
                              std::to_string(rank),
                          rankAt);
    }
    const uint8_t mode = reader.ReadU8();
    const size_t zeroAt = reader.Offset();
    if (reader.ReadU8() != 0)
    {
        throw DecodeError("power_sgd reserved byte is not zero", zeroAt);
    }
    return mode;
}

/// Reads exactly `count` floats and the end of the payload into `out` (resized).
inline void
ReadBody(ByteReader& reader, uint64_t count, std::vector<float>& out)
{
    reader.Require(count, 4);
    out.resize(count);
    reader.ReadF32Array(out);
    reader.ExpectEnd();
}

inline ConstMatrixView
ConstSlice(const std::vector<float>& data, uint64_t offset, uint64_t rows, uint64_t cols)
{
    return {std::span<const float>(data).subspan(offset, rows * cols), rows, cols};
}

inline MutableMatrixView
MutableSlice(std::vector<float>& data, uint64_t offset, uint64_t rows, uint64_t cols)
{
    return {std::span<float>(data).subspan(offset, rows * cols), rows, cols};
}

/// The server side of a round (the exchange power_sgd's MakeExchange returns).
std::unique_ptr<RoundExchange> MakeExchange(const TensorLayout& layout,
                                            const PowerSgdParams& params,
                                            uint64_t seed);

} // namespace fedran::internal::power_sgd

#endif
