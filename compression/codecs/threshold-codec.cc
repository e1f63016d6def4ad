// "threshold": per tensor, every element with |x| > threshold (and every NaN, which counts as
// larger than any threshold, as in top_k) with its exact value; the rest decode as zero.
// The number kept varies with the data, so the payload size does too.
//
//   0  payload header (8 bytes)
//   8  per tensor: one sparse body (internal/sparse-coding.h)

#include "compression/internal/byte-io.h"
#include "compression/internal/codecs.h"
#include "compression/internal/magnitude-filter.h"
#include "compression/internal/payload-header.h"
#include "compression/internal/sparse-coding.h"

#include <bit>
#include <cmath>
#include <limits>

namespace fedran::internal
{

namespace
{

class ThresholdCodec
    : public RegisteredCodec
    , public SparseDecoder
{
  public:
    std::unique_ptr<Codec> Clone() const override
    {
        return std::make_unique<ThresholdCodec>(*this);
    }

    bool BiasedError() const override
    {
        return true;
    }

    ThresholdCodec(const CodecArgs& args, float threshold)
        : RegisteredCodec(args)
        , m_minKey(MagnitudeKey(threshold) + 1) // |x| > t  <=>  key(x) >= key(t) + 1
    {
    }

    void Encode(const TensorLayout& layout,
                std::span<const float> update,
                Rng& /* rng */,
                std::vector<uint8_t>& out) override
    {
        CheckUpdateSize(layout, update.size(), Name());
        // Scratch shared by every codec object of the thread: a simulation holds an encoder
        // per client, and per-object buffers would cost k floats and indices each.
        thread_local std::vector<uint32_t> indices;
        thread_local std::vector<float> values;
        ByteWriter writer(out);
        WritePayloadHeader(layout, writer);
        for (size_t t = 0; t < layout.TensorCount(); ++t)
        {
            const uint64_t d = layout.Tensors()[t].Size();
            indices.clear();
            values.clear();
            CollectAtLeast(update.subspan(layout.Offset(t), d), m_minKey, indices, values);
            WriteSparse(writer, indices, values, d);
        }
    }

    void Decode(const TensorLayout& layout,
                std::span<const uint8_t> payload,
                std::span<float> out) override
    {
        CheckUpdateSize(layout, out.size(), Name());
        ByteReader reader(payload);
        ReadPayloadHeader(layout, reader);
        for (size_t t = 0; t < layout.TensorCount(); ++t)
        {
            ReadSparse(reader, out.subspan(layout.Offset(t), layout.Tensors()[t].Size()));
        }
        reader.ExpectEnd();
    }

    void SubtractDecoded(const TensorLayout& layout,
                         std::span<const uint8_t> payload,
                         std::span<float> residual) override
    {
        CheckUpdateSize(layout, residual.size(), Name());
        ByteReader reader(payload);
        ReadPayloadHeader(layout, reader);
        for (size_t t = 0; t < layout.TensorCount(); ++t)
        {
            SubtractSparse(reader, residual.subspan(layout.Offset(t), layout.Tensors()[t].Size()));
        }
        reader.ExpectEnd();
    }

  private:
    uint32_t m_minKey;
};

} // namespace

std::unique_ptr<Codec>
MakeThresholdCodec(CodecArgs& args)
{
    double threshold = 0.01; // GRACE's default
    if (const nlohmann::json* value = args.Take("threshold"))
    {
        if (!value->is_number() || !std::isfinite(value->get<double>()) ||
            value->get<double>() < 0.0)
        {
            args.Fail("threshold", "must be a finite number >= 0, got " + value->dump());
        }
        threshold = value->get<double>();
    }
    // The data are floats, so |x| > threshold (as real numbers) iff |x| > f for f the largest
    // float <= threshold; comparing against float(threshold) instead would drop x == 0.1f for
    // threshold 0.1, which rounds up to 0.1f.
    float cut = std::numeric_limits<float>::max();
    if (threshold < static_cast<double>(cut))
    {
        cut = static_cast<float>(threshold);
        if (static_cast<double>(cut) > threshold)
        {
            cut = std::nextafter(cut, 0.0f);
        }
    }
    return std::make_unique<ThresholdCodec>(args, cut);
}

} // namespace fedran::internal
