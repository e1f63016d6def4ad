// "sign": one bit per element plus one f32 scale per tensor, decoded as scale * sign(x): the
// scaled sign of EF-SignSGD (Karimireddy et al. 2019) with scale = ||x||_1 / d.
//
// Wire format (little-endian):
//   0   payload header, 8 bytes
//   8   per tensor of d elements: f32 scale = ||x||_1 / d (0 for an empty tensor), then
//       ceil(d / 8) bytes of sign bits in BitWriter order (element i is bit i % 8 of byte
//       i / 8), 1 = negative (x < 0); zeros, -0.0 and NaN encode as 0 = positive. The padding
//       bits of the last byte are zero.
// Size: 8 + sum over tensors of (4 + ceil(d / 8)).
//
// "aggregation": "mean" (default) has the server average the decoded scaled signs
// (EF-SignSGD); "majority_vote" has it take the per-element vote of the clients' signs times
// their mean scale (signSGD with majority vote, Bernstein et al. 2019; see
// majority-vote-aggregator.cc).
//
// A tensor holding NaN or +-inf gets a NaN scale (so it decodes to NaN, as "none" would pass
// it on). Decoders reject negative and infinite scales and non-zero padding bits.

#include "compression/internal/byte-io.h"
#include "compression/internal/codec-params.h"
#include "compression/internal/codecs.h"
#include "compression/internal/payload-header.h"
#include "compression/internal/scales.h"
#include "compression/internal/simd-level.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#if defined(__SSE2__)
#    include <emmintrin.h>
#endif

namespace fedran::internal
{

namespace
{

constexpr size_t kSignBlock =
    4096; ///< elements per float partial sum and staged bit block (a multiple of 16)

/// Sign bits of whole groups of 16 elements and their |x| folded into 4 float lanes; returns
/// how many elements were done. Lane j sums |x| of elements 16m + j, + 4, + 8 and + 12 as
/// (|x_j| + |x_j+4|) + (|x_j+8| + |x_j+12|), as the SSE2 loop does.
size_t
SignGroupsScalar(const float* x, size_t n, uint8_t* bits, float lanes[4])
{
    float s0[4] = {};
    float s1[4] = {};
    size_t i = 0;
    for (; n - i >= 16; i += 16)
    {
        uint32_t mask = 0;
        for (int k = 0; k < 16; ++k)
        {
            mask |= static_cast<uint32_t>(x[i + k] < 0.0f) << k;
        }
        bits[i / 8] = static_cast<uint8_t>(mask);
        bits[i / 8 + 1] = static_cast<uint8_t>(mask >> 8);
        for (int j = 0; j < 4; ++j)
        {
            s0[j] += std::fabs(x[i + j]) + std::fabs(x[i + 4 + j]);
            s1[j] += std::fabs(x[i + 8 + j]) + std::fabs(x[i + 12 + j]);
        }
    }
    for (int j = 0; j < 4; ++j)
    {
        lanes[j] = s0[j] + s1[j];
    }
    return i;
}

#if defined(__SSE2__)
size_t
SignGroupsSse2(const float* x, size_t n, uint8_t* bits, float lanes[4])
{
    const __m128 absMask = _mm_castsi128_ps(_mm_set1_epi32(0x7FFFFFFF));
    const __m128 zero = _mm_setzero_ps();
    __m128 s0 = _mm_setzero_ps();
    __m128 s1 = _mm_setzero_ps();
    size_t i = 0;
    for (; n - i >= 16; i += 16)
    {
        const __m128 a = _mm_loadu_ps(x + i);
        const __m128 b = _mm_loadu_ps(x + i + 4);
        const __m128 c = _mm_loadu_ps(x + i + 8);
        const __m128 d = _mm_loadu_ps(x + i + 12);
        // x < 0 is false for -0.0 and NaN, which thus count as positive.
        const __m128i ab = _mm_packs_epi32(_mm_castps_si128(_mm_cmplt_ps(a, zero)),
                                           _mm_castps_si128(_mm_cmplt_ps(b, zero)));
        const __m128i cd = _mm_packs_epi32(_mm_castps_si128(_mm_cmplt_ps(c, zero)),
                                           _mm_castps_si128(_mm_cmplt_ps(d, zero)));
        const auto mask = static_cast<uint32_t>(_mm_movemask_epi8(_mm_packs_epi16(ab, cd)));
        bits[i / 8] = static_cast<uint8_t>(mask);
        bits[i / 8 + 1] = static_cast<uint8_t>(mask >> 8);
        s0 = _mm_add_ps(s0, _mm_add_ps(_mm_and_ps(a, absMask), _mm_and_ps(b, absMask)));
        s1 = _mm_add_ps(s1, _mm_add_ps(_mm_and_ps(c, absMask), _mm_and_ps(d, absMask)));
    }
    _mm_storeu_ps(lanes, _mm_add_ps(s0, s1));
    return i;
}
#endif

/// Writes the sign bits of n elements to bits[0 .. ceil(n / 8)) and returns sum |x| in
/// float, in the same order on every path (callers redo it in double if it overflowed).
float
SignBits(const float* x, size_t n, uint8_t* bits)
{
    float lanes[4];
    size_t i;
#if defined(__SSE2__)
    if (ActiveSimdLevel() >= SimdLevel::kSse2)
    {
        i = SignGroupsSse2(x, n, bits, lanes);
    }
    else
#endif
    {
        i = SignGroupsScalar(x, n, bits, lanes);
    }
    float sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    for (; i < n; i += 8)
    {
        uint8_t byte = 0;
        for (size_t k = 0; k < 8 && i + k < n; ++k)
        {
            byte |= static_cast<uint8_t>((x[i + k] < 0.0f) << k);
            sum += std::fabs(x[i + k]);
        }
        bits[i / 8] = byte;
    }
    return sum;
}

#if defined(__SSE2__)
/// Sign masks of the 16 nibbles: lane k has the sign bit set when bit k of the nibble is.
struct NibbleMasks
{
    alignas(16) uint32_t lanes[16][4];

    NibbleMasks()
    {
        for (int nibble = 0; nibble < 16; ++nibble)
        {
            for (int k = 0; k < 4; ++k)
            {
                lanes[nibble][k] = (nibble >> k) & 1 ? 0x80000000u : 0u;
            }
        }
    }
};

const NibbleMasks kNibbleMasks;
#endif

#if defined(__SSE2__)
/// Whole bytes of 8 signs; kStream writes with non-temporal stores (`out` 16-byte aligned).
template<bool kStream>
size_t
ExpandBytesSse2(const uint8_t* bits, size_t n, float scale, float* out)
{
    const __m128 value = _mm_set1_ps(scale);
    size_t i = 0;
    for (; n - i >= 8; i += 8)
    {
        const uint8_t byte = bits[i / 8];
        const auto* lo = reinterpret_cast<const __m128*>(kNibbleMasks.lanes[byte & 15]);
        const auto* hi = reinterpret_cast<const __m128*>(kNibbleMasks.lanes[byte >> 4]);
        if constexpr (kStream)
        {
            _mm_stream_ps(out + i, _mm_xor_ps(value, *lo));
            _mm_stream_ps(out + i + 4, _mm_xor_ps(value, *hi));
        }
        else
        {
            _mm_storeu_ps(out + i, _mm_xor_ps(value, *lo));
            _mm_storeu_ps(out + i + 4, _mm_xor_ps(value, *hi));
        }
    }
    return i;
}
#endif

/// out[i] = bit i ? -scale : scale, for n elements; `stream` as for DequantizeRun.
void
ExpandSigns(const uint8_t* bits, size_t n, float scale, float* out, bool stream)
{
    size_t i = 0;
#if defined(__SSE2__)
    if (ActiveSimdLevel() >= SimdLevel::kSse2)
    {
        i = stream && reinterpret_cast<uintptr_t>(out) % 16 == 0
                ? ExpandBytesSse2<true>(bits, n, scale, out)
                : ExpandBytesSse2<false>(bits, n, scale, out);
    }
#endif
    for (; i < n; ++i)
    {
        out[i] = (bits[i / 8] >> (i % 8)) & 1 ? -scale : scale;
    }
}

class SignCodec : public RegisteredCodec
{
  public:
    std::unique_ptr<Codec> Clone() const override
    {
        return std::make_unique<SignCodec>(*this);
    }

    bool BiasedError() const override
    {
        return true;
    }

    SignCodec(const CodecArgs& args, bool majorityVote)
        : RegisteredCodec(args)
        , m_majorityVote(majorityVote)
    {
    }

    void Encode(const TensorLayout& layout,
                std::span<const float> update,
                Rng& /* rng */,
                std::vector<uint8_t>& out) override
    {
        CheckUpdateSize(layout, update.size(), Name());
        ByteWriter writer(out);
        writer.Reserve(kPayloadHeaderSize + BodySize(layout));
        WritePayloadHeader(layout, writer);
        std::array<uint8_t, kSignBlock / 8> bits;
        for (size_t t = 0; t < layout.TensorCount(); ++t)
        {
            const float* x = update.data() + layout.Offset(t);
            const size_t d = layout.Tensors()[t].Size();
            const size_t scaleAt = out.size();
            writer.WriteF32(0.0f); // replaced below
            double sum = 0.0;
            for (size_t begin = 0; begin < d; begin += kSignBlock)
            {
                const size_t n = std::min(kSignBlock, d - begin);
                const float block = SignBits(x + begin, n, bits.data());
                sum += block < 0x1p126f ? block : ExactAbsSum(x + begin, n);
                writer.WriteBytes(std::span<const uint8_t>(bits.data(), CeilDiv(n, 8)));
            }
            float scale = d == 0 ? 0.0f : static_cast<float>(sum / static_cast<double>(d));
            if (!std::isfinite(scale))
            {
                scale = std::numeric_limits<float>::quiet_NaN();
            }
            const auto scaleBits = std::bit_cast<uint32_t>(scale);
            for (int k = 0; k < 4; ++k)
            {
                out[scaleAt + k] = static_cast<uint8_t>(scaleBits >> (8 * k));
            }
        }
    }

    void Decode(const TensorLayout& layout,
                std::span<const uint8_t> payload,
                std::span<float> out) override
    {
        CheckUpdateSize(layout, out.size(), Name());
        ByteReader reader(payload);
        ReadPayloadHeader(layout, reader);
        // Check the whole length first so that a truncated payload leaves `out` alone.
        reader.Require(BodySize(layout), 1);
        for (size_t t = 0; t < layout.TensorCount(); ++t)
        {
            const size_t d = layout.Tensors()[t].Size();
            const float scale = ScaleAt(ReadScales(reader, 1, "sign scale"), 0);
            const size_t bitsAt = reader.Offset();
            const auto bits = reader.ReadBytes(CeilDiv(d, 8));
            if (d % 8 != 0 && (bits.back() >> (d % 8)) != 0)
            {
                throw DecodeError("non-zero padding bits", bitsAt + bits.size() - 1);
            }
            const bool stream = d >= kStreamingStoreMinFloats;
            ExpandSigns(bits.data(), d, scale, out.data() + layout.Offset(t), stream);
            if (stream)
            {
                StreamingStoreFence();
            }
        }
        reader.ExpectEnd();
    }

    bool BringsAggregator() const override
    {
        return m_majorityVote;
    }

    std::unique_ptr<Aggregator> MakeAggregator() const override
    {
        return m_majorityVote ? MakeMajorityVoteAggregator() : MakeWeightedMeanAggregator();
    }

  private:
    static uint64_t BodySize(const TensorLayout& layout)
    {
        uint64_t size = 0;
        for (const TensorSpec& tensor : layout.Tensors())
        {
            size += 4 + CeilDiv(tensor.Size(), 8);
        }
        return size;
    }

    static double ExactAbsSum(const float* x, size_t n)
    {
        double sum = 0.0;
        for (size_t i = 0; i < n; ++i)
        {
            sum += std::fabs(static_cast<double>(x[i]));
        }
        return sum;
    }

    bool m_majorityVote;
};

} // namespace

std::unique_ptr<Codec>
MakeSignCodec(CodecArgs& args)
{
    const std::string aggregation = TakeString(args, "aggregation").value_or("mean");
    if (aggregation != "mean" && aggregation != "majority_vote")
    {
        args.Fail("aggregation",
                  "must be \"mean\" or \"majority_vote\", got \"" + aggregation + "\"");
    }
    return std::make_unique<SignCodec>(args, aggregation == "majority_vote");
}

} // namespace fedran::internal
