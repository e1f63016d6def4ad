#include "compression/internal/payload-header.h"

#include <cstdio>
#include <stdexcept>
#include <string>

namespace fedran::internal
{

namespace
{

std::string
Hex(uint32_t value)
{
    char text[11];
    std::snprintf(text, sizeof(text), "0x%08x", value);
    return text;
}

} // namespace

void
CheckUpdateSize(const TensorLayout& layout, size_t size, std::string_view codec)
{
    if (size != layout.TotalSize())
    {
        throw std::invalid_argument(std::string(codec) + " codec: update has " +
                                    std::to_string(size) + " floats, layout has " +
                                    std::to_string(layout.TotalSize()));
    }
}

void
WritePayloadHeader(const TensorLayout& layout, ByteWriter& writer)
{
    writer.WriteU32(layout.Signature());
    writer.WriteU32(static_cast<uint32_t>(layout.TensorCount()));
}

void
ReadPayloadHeader(const TensorLayout& layout, ByteReader& reader)
{
    const size_t signatureOffset = reader.Offset();
    const uint32_t signature = reader.ReadU32();
    if (signature != layout.Signature())
    {
        throw DecodeError("layout signature mismatch: payload " + Hex(signature) + ", model " +
                              Hex(layout.Signature()),
                          signatureOffset);
    }
    const size_t countOffset = reader.Offset();
    const uint32_t count = reader.ReadU32();
    if (count != layout.TensorCount())
    {
        throw DecodeError("tensor count mismatch: payload " + std::to_string(count) + ", model " +
                              std::to_string(layout.TensorCount()),
                          countOffset);
    }
}

} // namespace fedran::internal
