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
#include "compression/internal/large-buffer.h"
#include "compression/internal/payload-header.h"
#include "compression/internal/simd-level.h"

#include <algorithm>
#include <bit>
#include <cstring>

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
SampleBitmap(uint64_t seed, uint64_t stream, uint64_t d, uint64_t k, LargeBuffer<uint64_t>& words)
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

/// The decoded value of payload value `j`: times d/k in double, rounded once, when scaling.
float
DecodedValue(const uint8_t* values, size_t j, bool scaled, double scale)
{
    uint32_t bits;
    std::memcpy(&bits, values + 4 * j, 4);
    if constexpr (std::endian::native == std::endian::big)
    {
        bits = __builtin_bswap32(bits);
    }
    const float value = std::bit_cast<float>(bits);
    return scaled ? static_cast<float>(value * scale) : value;
}

/// Writes the 64 outputs of one bitmap word (`count` of them, fewer only at a tensor's end),
/// zeros with the sampled values in, taking values from j on.
void
WriteWordScalar(float* dst,
                uint64_t word,
                size_t count,
                const uint8_t* values,
                size_t& j,
                bool scaled,
                double scale)
{
    float chunk[64] = {};
    for (; word != 0; word &= word - 1)
    {
        chunk[std::countr_zero(word)] = DecodedValue(values, j++, scaled, scale);
    }
    std::memcpy(dst, chunk, count * sizeof(float));
}

#if defined(__SSE2__)
/// As WriteWordScalar for a whole word at a 16-byte-aligned `dst`, with non-temporal stores:
/// large outputs are written once and never read back here, and skipping the read of every
/// destination line roughly halves the traffic. Each group of 4 outputs is built in registers
/// (almost always all zeros at low density): building the 64 floats in memory and loading
/// them back as vectors stalled on store-to-load forwarding at every group.
void
StreamWord(float* dst, uint64_t word, const uint8_t* values, size_t& j, bool scaled, double scale)
{
    const __m128 zero = _mm_setzero_ps();
    // At the usual densities most 16-output quarters of a word hold no sampled position.
    for (unsigned quarter = 0; quarter < 4; ++quarter)
    {
        float* out = dst + 16 * quarter;
        const auto bits = static_cast<unsigned>(word >> (16 * quarter)) & 0xffff;
        if (bits == 0)
        {
            _mm_stream_ps(out, zero);
            _mm_stream_ps(out + 4, zero);
            _mm_stream_ps(out + 8, zero);
            _mm_stream_ps(out + 12, zero);
            continue;
        }
        for (unsigned group = 0; group < 4; ++group)
        {
            const unsigned nibble = (bits >> (4 * group)) & 0xf;
            __m128 lanes = zero;
            if (nibble != 0)
            {
                const float l0 = (nibble & 1) ? DecodedValue(values, j++, scaled, scale) : 0.0f;
                const float l1 = (nibble & 2) ? DecodedValue(values, j++, scaled, scale) : 0.0f;
                const float l2 = (nibble & 4) ? DecodedValue(values, j++, scaled, scale) : 0.0f;
                const float l3 = (nibble & 8) ? DecodedValue(values, j++, scaled, scale) : 0.0f;
                lanes = _mm_set_ps(l3, l2, l1, l0);
            }
            _mm_stream_ps(out + 4 * group, lanes);
        }
    }
}
#endif

class RandomKCodec : public RegisteredCodec
{
  public:
    std::unique_ptr<Codec> Clone() const override
    {
        return std::make_unique<RandomKCodec>(*this);
    }

    bool BiasedError() const override
    {
        return !m_scale;
    }

    std::optional<RandomSupport> RandomSupportParameters() const override
    {
        return RandomSupport{m_keep.Ratio(), m_keep.K(), m_scale};
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
        thread_local LargeBuffer<uint64_t> words;
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
        thread_local LargeBuffer<uint64_t> words;
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
            size_t j = 0;
            const size_t fullWords = d / 64;
#if defined(__SSE2__)
            if (stream && reinterpret_cast<uintptr_t>(dst) % 16 == 0)
            {
                for (size_t w = 0; w < fullWords; ++w)
                {
                    StreamWord(dst + 64 * w, words[w], values, j, m_scale, scale);
                }
            }
            else
#endif
            {
                for (size_t w = 0; w < fullWords; ++w)
                {
                    WriteWordScalar(dst + 64 * w, words[w], 64, values, j, m_scale, scale);
                }
            }
            if (d % 64 != 0)
            {
                WriteWordScalar(dst + 64 * fullWords,
                                words[fullWords],
                                d % 64,
                                values,
                                j,
                                m_scale,
                                scale);
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
