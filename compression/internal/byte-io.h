#ifndef FEDRAN_COMPRESSION_INTERNAL_BYTE_IO_H
#define FEDRAN_COMPRESSION_INTERNAL_BYTE_IO_H

// Little-endian serialisation for codec payloads. Private to the compression library.
//
// Payloads are little-endian on every host so that a trace recorded on one machine decodes on
// another. On little-endian hosts (all we run on) arrays are copied with one memcpy, which is
// what keeps the dense codecs at memory speed; the byte-by-byte path exists for correctness
// elsewhere.

#include "compression/codec.h"
#include "compression/internal/large-buffer.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace fedran::internal
{

/// Appends little-endian values to a byte vector (which it never shrinks or clears).
class ByteWriter
{
  public:
    explicit ByteWriter(std::vector<uint8_t>& out)
        : m_out(out)
    {
    }

    /// Makes room for `bytes` more bytes so that the writes below never reallocate. Fresh room
    /// of kAdviseHugePagesMinBytes or more is advised for huge pages (large-buffer.h): a first
    /// call writing a 100 MB payload into new 4 KiB pages spent most of its time faulting.
    void Reserve(size_t bytes)
    {
        const size_t capacity = m_out.capacity();
        m_out.reserve(m_out.size() + bytes);
        if (m_out.capacity() != capacity &&
            m_out.capacity() - m_out.size() >= kAdviseHugePagesMinBytes)
        {
            AdviseHugePages(m_out.data() + m_out.size(), m_out.capacity() - m_out.size());
        }
    }

    void WriteU8(uint8_t value)
    {
        m_out.push_back(value);
    }

    void WriteU16(uint16_t value)
    {
        WriteUnsigned(value);
    }

    void WriteU32(uint32_t value)
    {
        WriteUnsigned(value);
    }

    void WriteU64(uint64_t value)
    {
        WriteUnsigned(value);
    }

    void WriteF32(float value)
    {
        WriteUnsigned(std::bit_cast<uint32_t>(value));
    }

    void WriteBytes(std::span<const uint8_t> bytes)
    {
        m_out.insert(m_out.end(), bytes.begin(), bytes.end());
    }

    void WriteU16Array(std::span<const uint16_t> values)
    {
        WriteArray(values);
    }

    void WriteF32Array(std::span<const float> values)
    {
        WriteArray(values);
    }

  private:
    template<typename T>
    void WriteUnsigned(T value)
    {
        for (size_t i = 0; i < sizeof(T); ++i)
        {
            m_out.push_back(static_cast<uint8_t>(value >> (8 * i)));
        }
    }

    template<typename T>
    void WriteArray(std::span<const T> values)
    {
        if constexpr (std::endian::native == std::endian::little)
        {
            // insert() copies without first zero-filling, unlike resize() + memcpy.
            const auto* bytes = reinterpret_cast<const uint8_t*>(values.data());
            m_out.insert(m_out.end(), bytes, bytes + values.size_bytes());
        }
        else
        {
            using Bits = std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>;
            for (const T value : values)
            {
                WriteUnsigned(std::bit_cast<Bits>(value));
            }
        }
    }

    std::vector<uint8_t>& m_out;
};

/// Reads little-endian values from a byte span. Every read is bounds-checked and throws
/// DecodeError naming the offset where the missing bytes should have been.
class ByteReader
{
  public:
    explicit ByteReader(std::span<const uint8_t> data)
        : m_data(data)
    {
    }

    /// Offset of the next unread byte.
    size_t Offset() const
    {
        return m_pos;
    }

    size_t Remaining() const
    {
        return m_data.size() - m_pos;
    }

    uint8_t ReadU8()
    {
        return ReadUnsigned<uint8_t>();
    }

    uint16_t ReadU16()
    {
        return ReadUnsigned<uint16_t>();
    }

    uint32_t ReadU32()
    {
        return ReadUnsigned<uint32_t>();
    }

    uint64_t ReadU64()
    {
        return ReadUnsigned<uint64_t>();
    }

    float ReadF32()
    {
        return std::bit_cast<float>(ReadUnsigned<uint32_t>());
    }

    /// The next `count` bytes, without copying.
    std::span<const uint8_t> ReadBytes(size_t count)
    {
        Require(count, 1);
        auto bytes = m_data.subspan(m_pos, count);
        m_pos += count;
        return bytes;
    }

    void ReadU16Array(std::span<uint16_t> out)
    {
        ReadArray(out);
    }

    void ReadF32Array(std::span<float> out)
    {
        ReadArray(out);
    }

    /// Throws unless every byte has been read: trailing bytes mean the writer and the reader
    /// disagree about the format, which must not pass silently.
    void ExpectEnd() const
    {
        if (m_pos != m_data.size())
        {
            throw DecodeError(std::to_string(Remaining()) + " trailing bytes after the payload",
                              m_pos);
        }
    }

    /// Throws unless `count` items of `width` bytes remain (no overflow in count * width).
    /// Lets a decoder reject a truncated body before writing any output.
    void Require(size_t count, size_t width) const
    {
        if (count > Remaining() / width)
        {
            throw DecodeError("truncated payload: need " + std::to_string(count) + " x " +
                                  std::to_string(width) + " bytes, " + std::to_string(Remaining()) +
                                  " remain",
                              m_pos);
        }
    }

  private:
    template<typename T>
    T ReadUnsigned()
    {
        Require(1, sizeof(T));
        T value = 0;
        for (size_t i = 0; i < sizeof(T); ++i)
        {
            value |= static_cast<T>(static_cast<T>(m_data[m_pos + i]) << (8 * i));
        }
        m_pos += sizeof(T);
        return value;
    }

    template<typename T>
    void ReadArray(std::span<T> out)
    {
        Require(out.size(), sizeof(T));
        if constexpr (std::endian::native == std::endian::little)
        {
            if (!out.empty()) // memcpy's pointers must be valid even for 0 bytes
            {
                std::memcpy(out.data(), m_data.data() + m_pos, out.size_bytes());
                m_pos += out.size_bytes();
            }
        }
        else
        {
            using Bits = std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>;
            for (T& value : out)
            {
                value = std::bit_cast<T>(ReadUnsigned<Bits>());
            }
        }
    }

    std::span<const uint8_t> m_data;
    size_t m_pos = 0;
};

} // namespace fedran::internal

#endif
