// "quantization": symmetric b-bit quantization with one scale per bucket, rounded
// stochastically (unbiased) or to nearest.
//
// Each tensor is cut into buckets of `bucket` consecutive elements (the last may be shorter;
// buckets never span tensors). A bucket's scale is max|x|, and code q in [0, 2^b) stands for
//     (q - c) * scale / c,   c = (2^b - 1) / 2,
// i.e. 2^b levels evenly spaced over [-scale, scale] with both ends exact and 2^b - 1 steps of
// 2 scale / (2^b - 1); b = 1 gives +-scale. One f32 per bucket is all the side information,
// so the payload stays within d b / 8 + 4 per bucket + header.
//
// Rounding: v = x * a with a = 65536 c / scale is clamped to [-65536 c, 65536 c], then
// T = trunc(v) + 65536 c lies in [0, 65536 (2^b - 1)] and q = (T + r) >> 16, with r a 16-bit
// dither value (stochastic; E[q] = T / 65536, so the bias is under 2^-16 step) or 32768
// (nearest). One multiply and integer arithmetic: nothing for FMA contraction to fuse, so the
// scalar, SSE2 and AVX2 paths give identical codes (quantization-kernels.cc). Dither values
// come from internal/dither.h.
//
// Wire format (little-endian):
//   0   payload header, 8 bytes
//   8   bits     u8   1..8
//   9   bucket   u32  >= 1
//   13  per tensor of d elements: ceil(d / bucket) x f32 scale, then ceil(d bits / 8) bytes
//       of codes in BitWriter order (LSB first), the padding bits of the last byte zero.
// Size: 13 + sum over tensors of (4 ceil(d / bucket) + ceil(d bits / 8)).
//
// The decoder computes ((q - c) * (1 / c)) * scale in float, which stays within +-scale.
// A bucket holding NaN or +-inf is sent with a NaN scale and decodes to NaN, passing the
// divergence on as the "none" codec would. Decoders reject negative and infinite scales.

#include "compression/internal/bit-stream.h"
#include "compression/internal/byte-io.h"
#include "compression/internal/codec-params.h"
#include "compression/internal/codecs.h"
#include "compression/internal/dither.h"
#include "compression/internal/payload-header.h"
#include "compression/internal/quantization-kernels.h"
#include "compression/internal/scales.h"
#include "compression/internal/simd-level.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>

namespace fedran::internal
{

namespace
{

constexpr size_t kCodesPerStage = 4096; ///< codes staged per WritePacked / ReadPacked
constexpr float kTinyScale = 0x1p-100f; ///< below this, 65536 c / scale may overflow a float
constexpr size_t kQuantizationHeaderSize = 5;

class QuantizationCodec : public RegisteredCodec
{
  public:
    std::unique_ptr<Codec> Clone() const override
    {
        return std::make_unique<QuantizationCodec>(*this);
    }

    bool BiasedError() const override
    {
        return !m_stochastic;
    }

    QuantizationCodec(const CodecArgs& args, unsigned bits, bool stochastic, uint32_t bucket)
        : RegisteredCodec(args)
        , m_bits(bits)
        , m_stochastic(stochastic)
        , m_bucket(bucket)
    {
    }

    void Encode(const TensorLayout& layout,
                std::span<const float> update,
                Rng& rng,
                std::vector<uint8_t>& out) override
    {
        CheckUpdateSize(layout, update.size(), Name());
        ByteWriter writer(out);
        writer.Reserve(kPayloadHeaderSize + kQuantizationHeaderSize +
                       BodySize(layout, m_bits, m_bucket));
        WritePayloadHeader(layout, writer);
        writer.WriteU8(static_cast<uint8_t>(m_bits));
        writer.WriteU32(m_bucket);
        std::optional<Dither> dither;
        for (size_t t = 0; t < layout.TensorCount(); ++t)
        {
            if (m_stochastic)
            {
                // Per tensor, as qsgd: a tensor's draws do not depend on the tensors before.
                dither.emplace(rng);
            }
            EncodeTensor(update.subspan(layout.Offset(t), layout.Tensors()[t].Size()),
                         dither ? &*dither : nullptr,
                         out);
        }
    }

    void Decode(const TensorLayout& layout,
                std::span<const uint8_t> payload,
                std::span<float> out) override
    {
        CheckUpdateSize(layout, out.size(), Name());
        ByteReader reader(payload);
        ReadPayloadHeader(layout, reader);
        const size_t bitsAt = reader.Offset();
        const unsigned bits = reader.ReadU8();
        if (bits < 1 || bits > 8)
        {
            throw DecodeError("bits must be 1..8, got " + std::to_string(bits), bitsAt);
        }
        const size_t bucketAt = reader.Offset();
        const uint32_t bucket = reader.ReadU32();
        if (bucket == 0)
        {
            throw DecodeError("bucket must be >= 1", bucketAt);
        }
        // Check the whole length first so that a truncated payload leaves `out` alone.
        reader.Require(BodySize(layout, bits, bucket), 1);
        for (size_t t = 0; t < layout.TensorCount(); ++t)
        {
            DecodeTensor(reader,
                         bits,
                         bucket,
                         out.subspan(layout.Offset(t), layout.Tensors()[t].Size()));
        }
        reader.ExpectEnd();
    }

  private:
    static uint64_t BodySize(const TensorLayout& layout, unsigned bits, uint32_t bucket)
    {
        uint64_t size = 0;
        for (const TensorSpec& tensor : layout.Tensors())
        {
            const uint64_t d = tensor.Size();
            size += 4 * CeilDiv(d, bucket) + CeilDiv(d * bits, 8);
        }
        return size;
    }

    QuantizerRounding BucketRounding(const BucketScan& scan, float& scale) const
    {
        const double c = 0.5 * static_cast<double>((1u << m_bits) - 1);
        QuantizerRounding q{0.0f,
                            static_cast<float>(65536.0 * c),
                            static_cast<int32_t>(65536.0 * c),
                            false,
                            0.0};
        if (!scan.finite)
        {
            scale = std::numeric_limits<float>::quiet_NaN();
        }
        else
        {
            scale = scan.maxAbs;
            if (scale >= kTinyScale)
            {
                q.a = static_cast<float>(65536.0 * c / scale);
            }
            else if (scale > 0.0f)
            {
                q.tiny = true;
                q.scale = scale;
            }
        }
        return q;
    }

    void EncodeTensor(std::span<const float> x, Dither* dither, std::vector<uint8_t>& out) const
    {
        const size_t d = x.size();
        const size_t buckets = CeilDiv(d, m_bucket);
        const size_t scalesAt = out.size();
        out.resize(out.size() + 4 * buckets); // filled in bucket by bucket
        BitWriter bitWriter(out);
        if (dither != nullptr)
        {
            dither->StartTensor();
        }
        std::array<uint8_t, kCodesPerStage> codes;
        size_t fill = 0;
        for (size_t j = 0; j < buckets; ++j)
        {
            const size_t begin = j * m_bucket;
            const size_t n = std::min<size_t>(m_bucket, d - begin);
            float scale;
            const QuantizerRounding q = BucketRounding(ScanBucket(x.data() + begin, n), scale);
            PatchScale(out, scalesAt + 4 * j, scale);
            for (size_t done = 0; done < n;)
            {
                const size_t piece = std::min(n - done, kCodesPerStage - fill);
                QuantizeRun(x.data() + begin + done, piece, q, dither, codes.data() + fill);
                fill += piece;
                done += piece;
                if (fill == kCodesPerStage)
                {
                    bitWriter.WritePacked(codes, m_bits);
                    fill = 0;
                }
            }
        }
        bitWriter.WritePacked(std::span<const uint8_t>(codes.data(), fill), m_bits);
        bitWriter.Finish();
    }

    static void DecodeTensor(ByteReader& reader,
                             unsigned bits,
                             uint32_t bucket,
                             std::span<float> out)
    {
        const size_t d = out.size();
        const size_t buckets = CeilDiv(d, bucket);
        const auto scaleBytes = ReadScales(reader, buckets, "bucket scale");
        const size_t codesAt = reader.Offset();
        BitReader bitReader(reader.ReadBytes(CeilDiv(uint64_t{d} * bits, 8)), codesAt);
        const float center = 0.5f * static_cast<float>((1u << bits) - 1);
        const bool stream = d >= kStreamingStoreMinFloats;
        std::array<uint8_t, kCodesPerStage> codes;
        for (size_t begin = 0; begin < d; begin += kCodesPerStage)
        {
            const size_t n = std::min(kCodesPerStage, d - begin);
            bitReader.ReadPacked(std::span<uint8_t>(codes.data(), n), bits);
            for (size_t k = 0; k < n;)
            {
                const size_t element = begin + k;
                const size_t j = element / bucket;
                const size_t piece = std::min(n - k, (j + 1) * size_t{bucket} - element);
                DequantizeRun(codes.data() + k,
                              piece,
                              center,
                              ScaleAt(scaleBytes, j),
                              out.data() + element,
                              stream);
                k += piece;
            }
        }
        bitReader.SkipPadding();
        if (stream)
        {
            StreamingStoreFence();
        }
    }

    unsigned m_bits;
    bool m_stochastic;
    uint32_t m_bucket;
};

} // namespace

std::unique_ptr<Codec>
MakeQuantizationCodec(CodecArgs& args)
{
    const uint32_t bits = TakeCount(args, "bits").value_or(8);
    if (bits < 1 || bits > 8)
    {
        args.Fail("bits", "must be an integer in 1..8, got " + std::to_string(bits));
    }
    const bool stochastic = TakeBool(args, "stochastic").value_or(true);
    const uint32_t bucket = TakeCount(args, "bucket").value_or(512);
    if (bucket < 1)
    {
        args.Fail("bucket", "must be an integer >= 1, got 0");
    }
    return std::make_unique<QuantizationCodec>(args, bits, stochastic, bucket);
}

} // namespace fedran::internal
