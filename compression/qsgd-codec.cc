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
//   16  per tensor of d elements: ceil(d / bucket) x f32 norm, then a bit stream (BitWriter
//       order) holding, for every element, Elias gamma(l + 1) followed by a sign bit (1 =
//       negative) when l > 0; zero padding bits up to the next byte.
// Zeros (l = 0) cost one bit, so no run-length layer is needed at the default s. An element
// costs 2 floor(log2(l + 1)) + 1 + [l > 0] bits.
//
// A bucket holding NaN or +-inf (or whose norm overflows a float) is sent with a NaN norm and
// all levels 0, and decodes to NaN.
// Decoders reject negative and infinite norms, levels above s and non-zero padding.

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
#include <optional>
#include <vector>

namespace fedran::internal
{

namespace
{

constexpr uint32_t kMaxLevels = 1u << 20;
constexpr size_t kPiece = 1024;       ///< elements rounded per kernel call
constexpr double kTinyNorm = 0x1p-90; ///< below this s 2^F / norm may overflow a float
constexpr size_t kCodecHeaderSize = 8;

/// Fraction bits of the fixed-point rounding for s levels.
unsigned
FractionBits(uint32_t levels)
{
    return std::min(16u, 31u - static_cast<unsigned>(std::bit_width(levels + 1)));
}


class QsgdCodec : public RegisteredCodec
{
  public:
    QsgdCodec(const CodecArgs& args, uint32_t levels, uint32_t bucket)
        : RegisteredCodec(args)
        , m_levels(levels)
        , m_bucket(bucket)
        , m_writer(levels)
    {
    }

    void Encode(const TensorLayout& layout,
                std::span<const float> update,
                Rng& rng,
                std::vector<uint8_t>& out) override
    {
        CheckUpdateSize(layout, update.size(), Name());
        ByteWriter writer(out);
        // Norms plus about 2.5 bits per element at the default s: a guess, not a bound.
        writer.Reserve(kPayloadHeaderSize + kCodecHeaderSize +
                       4 * CeilDiv(update.size(), m_bucket) + update.size() / 2 +
                       8 * layout.TensorCount());
        WritePayloadHeader(layout, writer);
        writer.WriteU32(m_levels);
        writer.WriteU32(m_bucket);
        Dither dither(rng);
        for (size_t t = 0; t < layout.TensorCount(); ++t)
        {
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
        uint64_t minimum = 0;
        for (const TensorSpec& tensor : layout.Tensors())
        {
            minimum += 4 * CeilDiv(tensor.Size(), bucket) + CeilDiv(tensor.Size(), 8);
        }
        reader.Require(minimum, 1);
        if (!m_reader || m_reader->Levels() != levels)
        {
            m_reader.emplace(levels);
        }
        for (size_t t = 0; t < layout.TensorCount(); ++t)
        {
            DecodeTensor(payload,
                         reader,
                         *m_reader,
                         bucket,
                         out.subspan(layout.Offset(t), layout.Tensors()[t].Size()));
        }
        reader.ExpectEnd();
    }

  private:
    QsgdRounding BucketRounding(double sumOfSquares, float& norm) const
    {
        const unsigned fraction = FractionBits(m_levels);
        const double cap = std::ldexp(static_cast<double>(m_levels), static_cast<int>(fraction));
        QsgdRounding q{0.0f, static_cast<float>(cap), fraction, false, 0.0};
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
        out.resize(out.size() + 4 * buckets); // filled in bucket by bucket
        BitWriter bitWriter(out);
        dither.StartTensor();
        std::array<uint32_t, kPiece> idx;
        for (size_t j = 0; j < buckets; ++j)
        {
            const size_t begin = j * m_bucket;
            const size_t n = std::min<size_t>(m_bucket, d - begin);
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
                continue;
            }
            float norm;
            const QsgdRounding q = BucketRounding(sumOfSquares, norm);
            PatchScale(out, normsAt + 4 * j, norm);
            for (size_t done = 0; done < n; done += kPiece)
            {
                const size_t piece = std::min(kPiece, n - done);
                QsgdLevelRun(x.data() + begin + done, piece, q, dither, idx.data());
                m_writer.Write(bitWriter, idx.data(), piece);
            }
        }
        bitWriter.Finish();
    }

    static void DecodeTensor(std::span<const uint8_t> payload,
                             ByteReader& reader,
                             const QsgdCodeReader& codes,
                             uint32_t bucket,
                             std::span<float> out)
    {
        const size_t d = out.size();
        const size_t buckets = CeilDiv(d, bucket);
        const auto normBytes = ReadScales(reader, buckets, "bucket norm");
        const size_t streamAt = reader.Offset();
        BitReader bits(payload.subspan(streamAt), streamAt);
        uint64_t pos = 0;
        for (size_t j = 0; j < buckets; ++j)
        {
            const size_t begin = j * size_t{bucket};
            const float step = ScaleAt(normBytes, j) / static_cast<float>(codes.Levels());
            codes.Read(bits, pos, step, out.data() + begin, std::min<size_t>(bucket, d - begin));
        }
        bits.Seek(pos);
        bits.SkipPadding();
        reader.ReadBytes(bits.BytesConsumed());
    }

    uint32_t m_levels;
    uint32_t m_bucket;
    QsgdCodeWriter m_writer;
    std::optional<QsgdCodeReader> m_reader; ///< for the s of the last payload decoded
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
