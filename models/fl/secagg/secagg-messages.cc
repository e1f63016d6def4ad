#include "models/fl/secagg/secagg-messages.h"

#include "compression/codec.h"

#include <bit>
#include <string>

namespace fedran::secagg
{

void
PutU32(std::vector<uint8_t>& out, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
    {
        out.push_back(static_cast<uint8_t>(v >> (8 * i)));
    }
}

void
PutU64(std::vector<uint8_t>& out, uint64_t v)
{
    for (int i = 0; i < 8; ++i)
    {
        out.push_back(static_cast<uint8_t>(v >> (8 * i)));
    }
}

void
PutPadded(std::vector<uint8_t>& out, uint64_t v, size_t bytes)
{
    PutU64(out, v);
    out.insert(out.end(), bytes - 8, 0);
}

PayloadReader::PayloadReader(std::span<const uint8_t> bytes, const char* what)
    : m_bytes(bytes)
    , m_what(what)
{
}

void
PayloadReader::Need(size_t n) const
{
    if (m_bytes.size() - m_pos < n)
    {
        throw DecodeError(std::string("secagg ") + m_what + ": truncated", m_pos);
    }
}

uint8_t
PayloadReader::U8()
{
    Need(1);
    return m_bytes[m_pos++];
}

uint32_t
PayloadReader::U32()
{
    Need(4);
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
    {
        v |= uint32_t{m_bytes[m_pos++]} << (8 * i);
    }
    return v;
}

uint64_t
PayloadReader::U64()
{
    Need(8);
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
    {
        v |= uint64_t{m_bytes[m_pos++]} << (8 * i);
    }
    return v;
}

uint64_t
PayloadReader::Padded(size_t bytes)
{
    Need(bytes);
    const uint64_t v = U64();
    for (size_t i = 8; i < bytes; ++i)
    {
        if (m_bytes[m_pos++] != 0)
        {
            throw DecodeError(std::string("secagg ") + m_what + ": bad padding", m_pos - 1);
        }
    }
    return v;
}

std::span<const uint8_t>
PayloadReader::Bytes(size_t n)
{
    Need(n);
    const std::span<const uint8_t> out = m_bytes.subspan(m_pos, n);
    m_pos += n;
    return out;
}

void
PayloadReader::End() const
{
    if (m_pos != m_bytes.size())
    {
        throw DecodeError(std::string("secagg ") + m_what + ": trailing bytes", m_pos);
    }
}

std::vector<uint8_t>
EncodeSetup(const SecAggSetup& setup)
{
    std::vector<uint8_t> out;
    PutU32(out, setup.shares);
    PutU32(out, setup.threshold);
    PutU32(out, setup.bits);
    PutU64(out, std::bit_cast<uint64_t>(setup.clippingRange));
    PutU64(out, setup.quantizationRange);
    PutU64(out, std::bit_cast<uint64_t>(setup.maxWeight));
    return out;
}

SecAggSetup
DecodeSetup(std::span<const uint8_t> payload)
{
    PayloadReader in(payload, "setup");
    SecAggSetup setup;
    setup.shares = in.U32();
    setup.threshold = in.U32();
    setup.bits = in.U32();
    setup.clippingRange = std::bit_cast<double>(in.U64());
    setup.quantizationRange = in.U64();
    setup.maxWeight = std::bit_cast<double>(in.U64());
    in.End();
    if (setup.threshold == 0 || setup.bits == 0 || setup.bits > 64 ||
        !(setup.clippingRange > 0.0) || setup.quantizationRange == 0 || !(setup.maxWeight > 0.0))
    {
        throw DecodeError("secagg setup: parameters out of range", 0);
    }
    return setup;
}

} // namespace fedran::secagg
