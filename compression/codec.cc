#include "compression/codec.h"

#include "compression/cost-model.h"

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace fedran
{

namespace
{

/// FNV-1a, 32 bits: tiny, stable and easy to reproduce in a script that checks a payload.
class Fnv1a32
{
  public:
    void Bytes(std::string_view bytes)
    {
        for (const char c : bytes)
        {
            m_hash ^= static_cast<uint8_t>(c);
            m_hash *= 16777619u;
        }
    }

    /// Hashes the four little-endian bytes of `value`, whatever the host byte order.
    void U32(uint32_t value)
    {
        const char bytes[4] = {static_cast<char>(value),
                               static_cast<char>(value >> 8),
                               static_cast<char>(value >> 16),
                               static_cast<char>(value >> 24)};
        Bytes(std::string_view(bytes, 4));
    }

    uint32_t Value() const
    {
        return m_hash;
    }

  private:
    uint32_t m_hash = 2166136261u;
};

uint64_t
CheckedMultiply(uint64_t a, uint64_t b, const std::string& what)
{
    uint64_t product;
    if (__builtin_mul_overflow(a, b, &product))
    {
        throw std::overflow_error(what + ": element count overflows 64 bits");
    }
    return product;
}

} // namespace

uint64_t
TensorSpec::Size() const
{
    uint64_t size = 1; // a rank-0 tensor is a scalar
    for (const uint32_t dim : shape)
    {
        size = CheckedMultiply(size, dim, "tensor '" + name + "'");
    }
    return size;
}

TensorLayout::TensorLayout(std::vector<TensorSpec> tensors)
    : m_tensors(std::move(tensors))
{
    // Signature: FNV-1a 32 over the little-endian encoding
    //   u32 tensor count, then per tensor: u32 name length, name bytes, u32 rank, u32 dims...
    // Length prefixes keep ("ab", "c") and ("a", "bc") apart; the shape is hashed rather than
    // the size so that a [10, 784] tensor differs from a [784, 10] one.
    Fnv1a32 hash;
    hash.U32(static_cast<uint32_t>(m_tensors.size()));
    m_offsets.reserve(m_tensors.size());
    for (const TensorSpec& tensor : m_tensors)
    {
        m_offsets.push_back(m_total);
        const uint64_t size = tensor.Size();
        if (m_total + size < m_total)
        {
            throw std::overflow_error("TensorLayout: total element count overflows 64 bits");
        }
        m_total += size;

        hash.U32(static_cast<uint32_t>(tensor.name.size()));
        hash.Bytes(tensor.name);
        hash.U32(static_cast<uint32_t>(tensor.shape.size()));
        for (const uint32_t dim : tensor.shape)
        {
            hash.U32(dim);
        }
    }
    m_signature = hash.Value();
}

DecodeError::DecodeError(const std::string& what, size_t offset)
    : std::runtime_error(what + " at byte offset " + std::to_string(offset))
    , m_offset(offset)
{
}

void
Codec::AcceptRoundState(const TensorLayout& /* layout */, std::span<const uint8_t> /* state */)
{
    throw DecodeError("codec '" + std::string(Name()) + "' takes no round state", 0);
}

void
Codec::EncodeReply(const TensorLayout& /* layout */,
                   std::span<const uint8_t> /* message */,
                   std::vector<uint8_t>& /* out */)
{
    throw DecodeError("codec '" + std::string(Name()) + "' has a single exchange per round", 0);
}

} // namespace fedran

namespace fedran
{

namespace
{

CodecWork
WorkOf(const TensorLayout& layout, std::span<const uint8_t> payload)
{
    return CodecWork{layout.TotalSize(), payload.size(), 0};
}

} // namespace

double
Codec::EncodeSeconds(const CostProfile& profile,
                     const TensorLayout& layout,
                     std::span<const uint8_t> payload) const
{
    return profile.Codec(Name()).encode.Seconds(WorkOf(layout, payload));
}

double
Codec::DecodeSeconds(const CostProfile& profile,
                     const TensorLayout& layout,
                     std::span<const uint8_t> payload) const
{
    return profile.Codec(Name()).decode.Seconds(WorkOf(layout, payload));
}

double
Codec::ReplySeconds(const CostProfile& profile,
                    const TensorLayout& layout,
                    std::span<const uint8_t> reply) const
{
    return profile.Codec(Name()).reply.Seconds(WorkOf(layout, reply));
}

double
Codec::CloseSeconds(const CostProfile& profile, const TensorLayout& layout) const
{
    return profile.Codec(Name()).close.Seconds(WorkOf(layout, {}));
}

} // namespace fedran
