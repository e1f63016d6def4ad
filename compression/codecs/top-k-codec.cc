// "top_k": per tensor, the k largest |x_i| (ties to the lower index, NaN above +inf) with
// their exact values; the rest decode as zero. Biased, so meant for use under error feedback.
// With warmup_rounds (default 0) k follows a dense-to-sparse warm-up (sparsity-warmup.h):
// k = max(k of ratio/k, floor(0.25^stage * d)); the decoder, told the same round, expects it.
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
#include "compression/internal/sparsity-warmup.h"
#include "compression/internal/top-k-select.h"

#include <algorithm>
#include <cmath>

namespace fedran::internal
{

namespace
{

class TopKCodec
    : public RegisteredCodec
    , public SparseDecoder
    , public CompensatingEncoder
{
  public:
    std::unique_ptr<Codec> Clone() const override
    {
        return std::make_unique<TopKCodec>(*this);
    }

    bool BiasedError() const override
    {
        return true;
    }

    TopKCodec(const CodecArgs& args, KeepCount keep, SparsityWarmup warmup)
        : RegisteredCodec(args)
        , m_keep(keep)
        , m_warmup(warmup)
    {
    }

    void BeginRound(uint32_t round) override
    {
        m_round = round;
    }

    void Encode(const TensorLayout& layout,
                std::span<const float> update,
                Rng& /* rng */,
                std::vector<uint8_t>& out) override
    {
        CheckUpdateSize(layout, update.size(), Name());
        Write(layout, out, [&](size_t offset, uint64_t d, auto& indices, auto& values) {
            SelectTopK(update.subspan(offset, d), Keep(d), indices, values);
        });
    }

    void EncodeCompensated(const TensorLayout& layout,
                           const Compensation& compensation,
                           std::span<float> e,
                           Rng& /* rng */,
                           std::vector<uint8_t>& out) override
    {
        CheckUpdateSize(layout, e.size(), Name());
        CheckUpdateSize(layout, compensation.g.size(), Name());
        Write(layout, out, [&](size_t offset, uint64_t d, auto& indices, auto& values) {
            const Compensation tensor{compensation.g.subspan(offset, d),
                                      compensation.beta,
                                      compensation.fresh};
            SelectTopKCompensated(tensor, e.subspan(offset, d), Keep(d), indices, values);
        });
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
            ReadSparse(reader, out.subspan(layout.Offset(t), d), Keep(d));
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
            const uint64_t d = layout.Tensors()[t].Size();
            SubtractSparse(reader, residual.subspan(layout.Offset(t), d), Keep(d));
        }
        reader.ExpectEnd();
    }

  private:
    /// The payload: header, then per tensor the sparse body of what select(offset, d,
    /// indices, values) picked.
    template<typename Select>
    void Write(const TensorLayout& layout, std::vector<uint8_t>& out, Select select) const
    {
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
            const uint64_t k = Keep(d);
            bound += 5 + 4 * k + std::min(5 * k, (d + 7) / 8);
        }
        writer.Reserve(bound);
        WritePayloadHeader(layout, writer);
        for (size_t t = 0; t < layout.TensorCount(); ++t)
        {
            const uint64_t d = layout.Tensors()[t].Size();
            select(layout.Offset(t), d, indices, values);
            WriteSparse(writer, indices, values, d);
        }
    }

    /// Elements kept from a tensor of `d` in the current round.
    uint64_t Keep(uint64_t d) const
    {
        const double warm = m_warmup.MinDensity(m_round);
        const auto floor = static_cast<uint64_t>(std::floor(warm * static_cast<double>(d)));
        return std::max(m_keep.For(d), std::min(floor, d));
    }

    KeepCount m_keep;
    SparsityWarmup m_warmup;
    uint32_t m_round = 0; ///< from BeginRound; 0: none yet (no warm-up)
};

} // namespace

std::unique_ptr<Codec>
MakeTopKCodec(CodecArgs& args)
{
    const KeepCount keep = KeepCount::FromArgs(args, 0.01);
    return std::make_unique<TopKCodec>(args, keep, SparsityWarmup::FromArgs(args, 0));
}

} // namespace fedran::internal
