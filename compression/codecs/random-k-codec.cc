// "random_k": per tensor, k distinct positions drawn uniformly without replacement. Both sides
// regenerate the positions from a 64-bit seed, so only the values cross the network.
//
//   0   payload header (8 bytes)
//   8   seed    u64    drawn from the encoder's Rng; tensor t samples from Rng(seed, t)
//   16  per tensor: k f32, the values at the sampled positions in ascending position order
//
// k per tensor comes from the layout and the `ratio`/`k` parameters, which the decoder shares.
// With `scale` (default) the decoder multiplies by d/k, giving the unbiased operator:
// E[C(x)] = x and E|C(x) - x|^2 = (d/k - 1)|x|^2. Without it, C is the contractive
// (biased) form meant for error feedback.
//
// Sampling is Floyd's algorithm over a d-bit bitmap: exactly k draws for any k, no rejection
// loop, and the bitmap hands the positions back in ascending order for a sequential gather;
// the decoder writes each 64 outputs once, from one bitmap word.

#include "compression/internal/byte-io.h"
#include "compression/internal/codec-params.h"
#include "compression/internal/codecs.h"
#include "compression/internal/keep-count.h"
#include "compression/internal/payload-header.h"
#include "compression/internal/simd-level.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <iterator>

#if defined(__SSE2__)
#    include <emmintrin.h>
#endif

namespace fedran::internal
{

namespace
{

/// Sets, in words (a d-bit bitmap), k distinct uniform positions in [0, d). Deterministic in
/// (seed, stream).
void
SampleBitmap(uint64_t seed, uint64_t stream, uint64_t d, uint64_t k, std::vector<uint64_t>& words)
{
    words.assign((d + 63) / 64, 0);
    if (k == d)
    {
        std::fill(words.begin(), words.end(), ~uint64_t{0});
        if (d % 64 != 0)
        {
            words.back() = (uint64_t{1} << (d % 64)) - 1;
        }
        return;
    }
    Rng rng(seed, stream);
    // Floyd: for j = d-k .. d-1 pick v in [0, j]; if taken, take j (never taken yet).
    for (uint64_t j = d - k; j < d; ++j)
    {
        uint64_t v = rng.UniformInt(j + 1);
        if ((words[v / 64] >> (v % 64)) & 1)
        {
            v = j;
        }
        words[v / 64] |= uint64_t{1} << (v % 64);
    }
}

/// Copies one chunk of up to 64 decoded floats out, bypassing the caches when `stream` (and
/// the chunk is whole and aligned): large outputs are written once, never read back here.
void
WriteChunk(float* dst, const float* chunk, size_t n, bool stream)
{
#if defined(__SSE2__)
    if (stream && n == 64 && reinterpret_cast<uintptr_t>(dst) % 16 == 0)
    {
        for (size_t i = 0; i < 64; i += 4)
        {
            _mm_stream_ps(dst + i, _mm_load_ps(chunk + i));
        }
        return;
    }
#endif
    std::memcpy(dst, chunk, n * sizeof(float));
}

class RandomKCodec : public RegisteredCodec
{
  public:
    std::unique_ptr<Codec> Clone() const override
    {
        return std::make_unique<RandomKCodec>(*this);
    }

    RandomKCodec(const CodecArgs& args, KeepCount keep, bool scale)
        : RegisteredCodec(args)
        , m_keep(keep)
        , m_scale(scale)
    {
    }

    void Encode(const TensorLayout& layout,
                std::span<const float> update,
                Rng& rng,
                std::vector<uint8_t>& out) override
    {
        CheckUpdateSize(layout, update.size(), Name());
        thread_local std::vector<uint64_t> words;
        thread_local std::vector<float> values;
        ByteWriter writer(out);
        writer.Reserve(kPayloadHeaderSize + 8 + 4 * KeptTotal(layout));
        WritePayloadHeader(layout, writer);
        const uint64_t seed = rng.NextU64();
        writer.WriteU64(seed);
        for (size_t t = 0; t < layout.TensorCount(); ++t)
        {
            const uint64_t d = layout.Tensors()[t].Size();
            const float* x = update.data() + layout.Offset(t);
            values.clear();
            SampleBitmap(seed, t, d, m_keep.For(d), words);
            for (size_t w = 0; w < words.size(); ++w)
            {
                for (uint64_t word = words[w]; word != 0; word &= word - 1)
                {
                    values.push_back(x[64 * w + std::countr_zero(word)]);
                }
            }
            writer.WriteF32Array(values);
        }
    }

    void Decode(const TensorLayout& layout,
                std::span<const uint8_t> payload,
                std::span<float> out) override
    {
        CheckUpdateSize(layout, out.size(), Name());
        thread_local std::vector<uint64_t> words;
        ByteReader reader(payload);
        ReadPayloadHeader(layout, reader);
        const uint64_t seed = reader.ReadU64();
        // The body length is fixed by the layout: check it before sampling anything.
        const uint64_t total = KeptTotal(layout);
        reader.Require(total, 4);
        if (reader.Remaining() != 4 * total)
        {
            reader.ReadBytes(4 * total);
            reader.ExpectEnd();
        }
        bool streamed = false;
        for (size_t t = 0; t < layout.TensorCount(); ++t)
        {
            const uint64_t d = layout.Tensors()[t].Size();
            const uint64_t k = m_keep.For(d);
            const uint8_t* values = reader.ReadBytes(4 * k).data();
            float* dst = out.data() + layout.Offset(t);
            // d/k in double, applied in double, rounded once: the scaling adds no bias of its
            // own beyond that final rounding.
            const double scale = m_scale ? static_cast<double>(d) / static_cast<double>(k) : 1.0;
            SampleBitmap(seed, t, d, k, words);
            // Each output is written once, 64 at a time: zeros with the sampled values in.
            const bool stream = d >= kStreamingStoreMinFloats;
            streamed = streamed || stream;
            alignas(16) float chunk[64];
            size_t j = 0;
            for (size_t w = 0; w < words.size(); ++w)
            {
                std::fill(std::begin(chunk), std::end(chunk), 0.0f);
                for (uint64_t word = words[w]; word != 0; word &= word - 1)
                {
                    uint32_t bits;
                    std::memcpy(&bits, values + 4 * j++, 4);
                    if constexpr (std::endian::native == std::endian::big)
                    {
                        bits = __builtin_bswap32(bits);
                    }
                    const float value = std::bit_cast<float>(bits);
                    chunk[std::countr_zero(word)] =
                        m_scale ? static_cast<float>(value * scale) : value;
                }
                WriteChunk(dst + 64 * w, chunk, std::min<uint64_t>(64, d - 64 * w), stream);
            }
        }
        if (streamed)
        {
            StreamingStoreFence();
        }
        reader.ExpectEnd();
    }

  private:
    uint64_t KeptTotal(const TensorLayout& layout) const
    {
        uint64_t total = 0;
        for (const TensorSpec& tensor : layout.Tensors())
        {
            total += m_keep.For(tensor.Size());
        }
        return total;
    }

    KeepCount m_keep;
    bool m_scale;
};

} // namespace

std::unique_ptr<Codec>
MakeRandomKCodec(CodecArgs& args)
{
    const KeepCount keep = KeepCount::FromArgs(args, 0.01);
    const bool scale = TakeBool(args, "scale").value_or(true);
    return std::make_unique<RandomKCodec>(args, keep, scale);
}

} // namespace fedran::internal
