// "top_k": per tensor, the k largest |x_i| (ties to the lower index, NaN above +inf) with
// their exact values; the rest decode as zero. Biased, so meant for use under error feedback.
//
//   0  payload header (8 bytes)
//   8  per tensor: one sparse body (internal/sparse-coding.h) with count = k of that tensor
//
// About 4 + log2(e * d/k)/7-ish bytes per kept element: at 1% density a random index set
// costs ~1.3 bytes per index as delta varints, so ~5.3 bytes per kept element.

#include "compression/internal/byte-io.h"
#include "compression/internal/codecs.h"
#include "compression/internal/keep-count.h"
#include "compression/internal/payload-header.h"
#include "compression/internal/sparse-coding.h"
#include "compression/internal/top-k-select.h"

#include <algorithm>

namespace fedran::internal
{

namespace
{

class TopKCodec : public RegisteredCodec
{
  public:
    TopKCodec(const CodecArgs& args, KeepCount keep)
        : RegisteredCodec(args)
        , m_keep(keep)
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
        // An upper bound (5 index bytes per element, or the bitmap), reserved once so the
        // per-tensor bodies never reallocate.
        uint64_t bound = kPayloadHeaderSize;
        for (const TensorSpec& tensor : layout.Tensors())
        {
            const uint64_t d = tensor.Size();
            const uint64_t k = m_keep.For(d);
            bound += 5 + 4 * k + std::min(5 * k, (d + 7) / 8);
        }
        writer.Reserve(bound);
        WritePayloadHeader(layout, writer);
        for (size_t t = 0; t < layout.TensorCount(); ++t)
        {
            const uint64_t d = layout.Tensors()[t].Size();
            const auto x = update.subspan(layout.Offset(t), d);
            SelectTopK(x, m_keep.For(d), indices, values);
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
            const uint64_t d = layout.Tensors()[t].Size();
            ReadSparse(reader, out.subspan(layout.Offset(t), d), m_keep.For(d));
        }
        reader.ExpectEnd();
    }

  private:
    KeepCount m_keep;
};

} // namespace

std::unique_ptr<Codec>
MakeTopKCodec(CodecArgs& args)
{
    return std::make_unique<TopKCodec>(args, KeepCount::FromArgs(args, 0.01));
}

} // namespace fedran::internal
