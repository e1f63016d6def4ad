// "qsgd": QSGD (Alistarh et al., NeurIPS 2017) with buckets and Elias-gamma coding.
//
// Per bucket v (`bucket` consecutive elements of one tensor; the last may be shorter):
//     Q(v_i) = ||v||_2 * sgn(v_i) * l_i / s,
// where l_i = floor(s |v_i| / ||v||) + 1 with probability s |v_i| / ||v|| - floor(...), else
// floor(...). E[Q(v)] = v and E||Q(v) - v||^2 <= min(d / s^2, sqrt(d) / s) ||v||^2.
//
// Rounding is done in fixed point: u = |v_i| * (s 2^F / ||v||), clamped to s 2^F, and
// l = (trunc(u) + r) >> F with r an F-bit dither value (internal/dither.h), F = 16 for
// s < 2^14 and fewer above so that (s + 1) 2^F < 2^31. The bias is thus below 2^-F of a level.
//
// Wire format (little-endian):
//   0   payload header, 8 bytes
//   8   levels   u32  s, 1..2^20
//   12  bucket   u32  >= 1
//   16  per tensor of d elements, in B = ceil(d / bucket) buckets:
//       B x f32 norm;
//       B x the bucket's code bits, as unsigned integers of W bytes, W the smallest of 2, 4, 8
//       that holds bucket x Lmax (the longest code, 2 floor(log2(s + 1)) + 2 bits): W = 2 at
//       the default s = 16, bucket = 512;
//       a bit stream (BitWriter order) holding, bucket after bucket, for every element
//       Elias gamma(l + 1) followed by a sign bit (1 = negative) when l > 0; zero padding bits
//       up to the next byte.
// Zeros (l = 0) cost one bit, so no run-length layer is needed at the default s. An element
// costs 2 floor(log2(l + 1)) + 1 + [l > 0] bits. The bit lengths cost W bytes per bucket
// (1.2% of the payload at the default) and buy a decoder that finds every bucket without
// decoding the ones before it: it interleaves four buckets to hide the serial chain of
// variable-length codes (qsgd-coding.h).
//
// A bucket holding NaN or +-inf (or whose norm overflows a float) is sent with a NaN norm and
// all levels 0, and decodes to NaN.
// Decoders reject negative and infinite norms, bucket bit lengths outside [n, n Lmax] for a
// bucket of n elements or beyond the payload, codes that do not fill exactly their bucket's
// bits, levels above s and non-zero padding.

#include "compression/internal/bit-stream.h"
#include "compression/internal/byte-io.h"
#include "compression/internal/codec-params.h"
#include "compression/internal/codecs.h"
#include "compression/internal/dither.h"
#include "compression/internal/payload-header.h"
#include "compression/internal/qsgd-coding.h"
#include "compression/internal/qsgd-kernels.h"
#include "compression/internal/scales.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

namespace fedran::internal
{

namespace
{

constexpr uint32_t kMaxLevels = 1u << 20;
constexpr size_t kPiece = 1024;       ///< elements rounded per kernel call
constexpr double kTinyNorm = 0x1p-90; ///< below this s 2^F / norm may overflow a float
constexpr size_t kQsgdHeaderSize = 8;

/// Bytes of each bucket's bit length: enough for `bucket` codes of the longest length.
unsigned
LengthBytes(uint32_t levels, uint32_t bucket)
{
    const uint64_t most = uint64_t{bucket} * QsgdCodeLength(levels);
    return most <= 0xFFFF ? 2 : most <= 0xFFFFFFFF ? 4 : 8;
}

/// Fraction bits of the fixed-point rounding for s levels.
unsigned
FractionBits(uint32_t levels)
{
    return std::min(16u, 31u - static_cast<unsigned>(std::bit_width(levels + 1)));
}

class QsgdCodec : public RegisteredCodec
{
  public:
    std::unique_ptr<Codec> Clone() const override
    {
        return std::make_unique<QsgdCodec>(*this);
    }

    QsgdCodec(const CodecArgs& args, uint32_t levels, uint32_t bucket)
        : RegisteredCodec(args)
        , m_levels(levels)
        , m_bucket(bucket)
        , m_lengthBytes(LengthBytes(levels, bucket))
        , m_fraction(FractionBits(levels))
        , m_cap(std::ldexp(static_cast<double>(levels), static_cast<int>(m_fraction)))
        , m_writer(QsgdCodeWriter::For(levels))
    {
    }

    void Encode(const TensorLayout& layout,
                std::span<const float> update,
                Rng& rng,
                std::vector<uint8_t>& out) override
    {
        CheckUpdateSize(layout, update.size(), Name());
        ByteWriter writer(out);
        // Norms, lengths and about 2.5 bits per element at the default s: a guess, not a bound.
        writer.Reserve(kPayloadHeaderSize + kQsgdHeaderSize +
                       (4 + m_lengthBytes) * CeilDiv(update.size(), m_bucket) + update.size() / 2 +
                       8 * layout.TensorCount());
        WritePayloadHeader(layout, writer);
        writer.WriteU32(m_levels);
        writer.WriteU32(m_bucket);
        for (size_t t = 0; t < layout.TensorCount(); ++t)
        {
            // Each tensor seeds its own dither, so a tensor's draws do not depend on how
            // many tensors the same Encode held before it (layerwise pipelining's buckets).
            Dither dither(rng);
            EncodeTensor(update.subspan(layout.Offset(t), layout.Tensors()[t].Size()), dither, out);
        }
    }

    void Decode(const TensorLayout& layout,
                std::span<const uint8_t> payload,
                std::span<float> out) override
    {
        CheckUpdateSize(layout, out.size(), Name());
        ByteReader reader(payload);
        ReadPayloadHeader(layout, reader);
        const size_t levelsAt = reader.Offset();
        const uint32_t levels = reader.ReadU32();
        if (levels < 1 || levels > kMaxLevels)
        {
            throw DecodeError("levels must be 1..2^20, got " + std::to_string(levels), levelsAt);
        }
        const size_t bucketAt = reader.Offset();
        const uint32_t bucket = reader.ReadU32();
        if (bucket == 0)
        {
            throw DecodeError("bucket must be >= 1", bucketAt);
        }
        // Every element takes at least one bit: reject short payloads before writing `out`.
        const unsigned lengthBytes = LengthBytes(levels, bucket);
        uint64_t minimum = 0;
        for (const TensorSpec& tensor : layout.Tensors())
        {
            minimum +=
                (4 + lengthBytes) * CeilDiv(tensor.Size(), bucket) + CeilDiv(tensor.Size(), 8);
        }
        reader.Require(minimum, 1);
        if (!m_reader || m_reader->Levels() != levels)
        {
            m_reader = QsgdCodeReader::For(levels);
        }
        for (size_t t = 0; t < layout.TensorCount(); ++t)
        {
            DecodeTensor(payload,
                         reader,
                         bucket,
                         lengthBytes,
                         out.subspan(layout.Offset(t), layout.Tensors()[t].Size()));
        }
        reader.ExpectEnd();
    }

  private:
    QsgdRounding BucketRounding(double sumOfSquares, float& norm) const
    {
        const double cap = m_cap;
        QsgdRounding q{0.0f, static_cast<float>(cap), m_fraction, false, 0.0};
        norm = static_cast<float>(std::sqrt(sumOfSquares));
        if (norm >= kTinyNorm)
        {
            q.k = static_cast<float>(cap / norm);
        }
        else if (norm > 0.0f)
        {
            q.tiny = true;
            q.norm = norm;
        }
        return q;
    }

    void EncodeTensor(std::span<const float> x, Dither& dither, std::vector<uint8_t>& out) const
    {
        const size_t d = x.size();
        const size_t buckets = CeilDiv(d, m_bucket);
        const size_t normsAt = out.size();
        const size_t lengthsAt = normsAt + 4 * buckets;
        out.resize(lengthsAt + m_lengthBytes * buckets); // filled in bucket by bucket
        BitWriter bitWriter(out);
        dither.StartTensor();
        std::array<uint32_t, kPiece> idx;
        for (size_t j = 0; j < buckets; ++j)
        {
            const uint64_t start = bitWriter.BitCount();
            EncodeBucket(x, j, dither, bitWriter, idx, out, normsAt);
            PatchLength(out, lengthsAt + m_lengthBytes * j, bitWriter.BitCount() - start);
        }
        bitWriter.Finish();
    }

    /// Writes bucket j's norm at normsAt + 4 j of `out` and its codes to `bitWriter`.
    void EncodeBucket(std::span<const float> x,
                      size_t j,
                      Dither& dither,
                      BitWriter& bitWriter,
                      std::array<uint32_t, kPiece>& idx,
                      std::vector<uint8_t>& out,
                      size_t normsAt) const
    {
        const size_t begin = j * m_bucket;
        const size_t n = std::min<size_t>(m_bucket, x.size() - begin);
        const double sumOfSquares = SumOfSquares(x.data() + begin, n);
        // NaN or inf in the bucket, or finite values whose norm overflows a float.
        if (!(std::sqrt(sumOfSquares) <= std::numeric_limits<float>::max()))
        {
            PatchScale(out, normsAt + 4 * j, std::numeric_limits<float>::quiet_NaN());
            for (size_t i = 0; i < n; ++i)
            {
                dither.NextValue(); // keep the draw order of the other buckets
                bitWriter.WriteBits(1, 1);
            }
            return;
        }
        float norm;
        const QsgdRounding q = BucketRounding(sumOfSquares, norm);
        PatchScale(out, normsAt + 4 * j, norm);
        for (size_t done = 0; done < n; done += kPiece)
        {
            const float* piece = x.data() + begin + done;
            const size_t count = std::min(kPiece, n - done);
            const size_t fused = QsgdCodeBlocks(piece, count, q, m_levels, dither, bitWriter);
            if (fused < count)
            {
                QsgdLevelRun(piece + fused, count - fused, q, dither, idx.data());
                m_writer->Write(bitWriter, idx.data(), count - fused);
            }
        }
    }

    void PatchLength(std::vector<uint8_t>& out, size_t at, uint64_t bits) const
    {
        for (unsigned k = 0; k < m_lengthBytes; ++k)
        {
            out[at + k] = static_cast<uint8_t>(bits >> (8 * k));
        }
    }

    void DecodeTensor(std::span<const uint8_t> payload,
                      ByteReader& reader,
                      uint32_t bucket,
                      unsigned lengthBytes,
                      std::span<float> out)
    {
        const size_t d = out.size();
        const size_t buckets = CeilDiv(d, bucket);
        const auto norms = ReadScales(reader, buckets, "bucket norm");
        const size_t lengthsAt = reader.Offset();
        const auto lengths = reader.ReadBytes(buckets * lengthBytes);
        // Bucket j's codes start at bit m_starts[j] of the stream.
        const uint64_t maxLength = QsgdCodeLength(m_reader->Levels());
        m_starts.resize(buckets + 1);
        m_starts[0] = 0;
        for (size_t j = 0; j < buckets; ++j)
        {
            uint64_t length = 0;
            for (unsigned k = 0; k < lengthBytes; ++k)
            {
                length |= uint64_t{lengths[lengthBytes * j + k]} << (8 * k);
            }
            const uint64_t n = std::min<size_t>(bucket, d - j * size_t{bucket});
            if (length < n || length > n * maxLength)
            {
                throw DecodeError("bucket " + std::to_string(j) + " of " + std::to_string(n) +
                                      " elements cannot take " + std::to_string(length) +
                                      " bits (each code takes 1 to " + std::to_string(maxLength) +
                                      ")",
                                  lengthsAt + lengthBytes * j);
            }
            m_starts[j + 1] = m_starts[j] + length;
        }
        const size_t streamAt = reader.Offset();
        const uint64_t streamBits = m_starts[buckets];
        if (streamBits > 8 * static_cast<uint64_t>(reader.Remaining()))
        {
            throw DecodeError("truncated payload: the buckets' lengths add up to " +
                                  std::to_string(streamBits) + " bits, " +
                                  std::to_string(reader.Remaining()) + " bytes remain",
                              streamAt);
        }
        // The reader sees the rest of the payload, so that 8-byte loads reach the last codes.
        BitReader bits(payload.subspan(streamAt), streamAt);
        bits.Seek(streamBits);
        bits.SkipPadding();
        reader.ReadBytes(bits.BytesConsumed());
        m_reader->ReadBuckets(bits, {m_starts, norms, bucket, out, lengthsAt, lengthBytes});
    }

    uint32_t m_levels;
    uint32_t m_bucket;
    unsigned m_lengthBytes;
    unsigned m_fraction; ///< of the fixed-point rounding
    double m_cap;        ///< s 2^fraction
    std::shared_ptr<const QsgdCodeWriter> m_writer;
    std::shared_ptr<const QsgdCodeReader> m_reader; ///< for the s of the last payload decoded
    std::vector<uint64_t> m_starts; ///< decoding scratch: bit offsets of the buckets
};

} // namespace

std::unique_ptr<Codec>
MakeQsgdCodec(CodecArgs& args)
{
    const uint32_t levels = TakeCount(args, "levels").value_or(16);
    if (levels < 1 || levels > kMaxLevels)
    {
        args.Fail("levels",
                  "must be an integer in 1..1048576 (2^20), got " + std::to_string(levels));
    }
    const uint32_t bucket = TakeCount(args, "bucket").value_or(512);
    if (bucket < 1)
    {
        args.Fail("bucket", "must be an integer >= 1, got 0");
    }
    return std::make_unique<QsgdCodec>(args, levels, bucket);
}

} // namespace fedran::internal
