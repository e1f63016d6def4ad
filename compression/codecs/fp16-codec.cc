// "fp16": every value rounded to IEEE binary16 (nearest, ties to even), 8 + 2d bytes with no
// padding. Relative error at most 2^-11 for |x| in [2^-14, 65504]; smaller values lose
// precision gradually, and |x| >= 65520 becomes +-inf. Deterministic, so it needs no rng.

#include "compression/internal/byte-io.h"
#include "compression/internal/codecs.h"
#include "compression/internal/half.h"
#include "compression/internal/payload-header.h"

#include <algorithm>
#include <array>

namespace fedran::internal
{

namespace
{

// Values are converted through a small stack buffer: the conversion loop then has no
// byte-order or bounds logic in it and vectorises, and the buffer stays in L1.
constexpr size_t kChunk = 1024;

class Fp16Codec : public RegisteredCodec
{
  public:
    using RegisteredCodec::RegisteredCodec;

    void Encode(const TensorLayout& layout,
                std::span<const float> update,
                Rng& /* rng */,
                std::vector<uint8_t>& out) override
    {
        CheckUpdateSize(layout, update.size(), Name());
        ByteWriter writer(out);
        writer.Reserve(kPayloadHeaderSize + 2 * update.size());
        WritePayloadHeader(layout, writer);
        std::array<uint16_t, kChunk> halves;
        for (size_t begin = 0; begin < update.size(); begin += kChunk)
        {
            const size_t n = std::min(kChunk, update.size() - begin);
            const float* in = update.data() + begin;
            for (size_t i = 0; i < n; ++i)
            {
                halves[i] = FloatToHalf(in[i]);
            }
            writer.WriteU16Array(std::span<const uint16_t>(halves.data(), n));
        }
    }

    void Decode(const TensorLayout& layout,
                std::span<const uint8_t> payload,
                std::span<float> out) override
    {
        CheckUpdateSize(layout, out.size(), Name());
        ByteReader reader(payload);
        ReadPayloadHeader(layout, reader);
        // Check the whole body length first so that a truncated payload leaves `out` alone
        // instead of half-written.
        reader.Require(out.size(), 2);
        std::array<uint16_t, kChunk> halves;
        for (size_t begin = 0; begin < out.size(); begin += kChunk)
        {
            const size_t n = std::min(kChunk, out.size() - begin);
            reader.ReadU16Array(std::span<uint16_t>(halves.data(), n));
            float* dst = out.data() + begin;
            for (size_t i = 0; i < n; ++i)
            {
                dst[i] = HalfToFloat(halves[i]);
            }
        }
        reader.ExpectEnd();
    }
};

} // namespace

std::unique_ptr<Codec>
MakeFp16Codec(CodecArgs& args)
{
    return std::make_unique<Fp16Codec>(args);
}

} // namespace fedran::internal
