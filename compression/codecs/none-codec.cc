// "none": the update as raw little-endian float32, 8 + 4d bytes. The baseline every other
// codec is measured against, and bit-exact (NaN payloads and -0.0 included).

#include "compression/internal/byte-io.h"
#include "compression/internal/codecs.h"
#include "compression/internal/payload-header.h"

namespace fedran::internal
{

namespace
{

class NoneCodec : public RegisteredCodec
{
  public:
    std::unique_ptr<Codec> Clone() const override
    {
        return std::make_unique<NoneCodec>(*this);
    }

    using RegisteredCodec::RegisteredCodec;

    void Encode(const TensorLayout& layout,
                std::span<const float> update,
                Rng& /* rng */,
                std::vector<uint8_t>& out) override
    {
        CheckUpdateSize(layout, update.size(), Name());
        ByteWriter writer(out);
        writer.Reserve(kPayloadHeaderSize + update.size_bytes());
        WritePayloadHeader(layout, writer);
        writer.WriteF32Array(update);
    }

    void Decode(const TensorLayout& layout,
                std::span<const uint8_t> payload,
                std::span<float> out) override
    {
        CheckUpdateSize(layout, out.size(), Name());
        ByteReader reader(payload);
        ReadPayloadHeader(layout, reader);
        reader.ReadF32Array(out);
        reader.ExpectEnd();
    }
};

} // namespace

std::unique_ptr<Codec>
MakeNoneCodec(CodecArgs& args)
{
    return std::make_unique<NoneCodec>(args);
}

} // namespace fedran::internal
