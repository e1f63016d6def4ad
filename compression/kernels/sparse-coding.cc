// Sparse tensor bodies (format in internal/sparse-coding.h).
//
// Both index codings are written and read 8 bytes at a time: a varint is spread into its
// bytes with shifts and masks and stored as one u64 whose first `length` bytes count, and read
// back by finding its terminator byte with a count-trailing-zeros, so the only per-element
// branches are the (predictable) validity checks. Bitmaps are read with ctz over 64-bit words.

#include "compression/internal/sparse-coding.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace fedran::internal
{

namespace
{

constexpr uint8_t kModeVarint = 0;
constexpr uint8_t kModeBitmap = 1;
constexpr size_t kBodyHeaderBytes = 5; // mode + count
constexpr uint64_t kTerminators = 0x8080808080808080ull;
constexpr uint64_t kFirstFiveTerminators = 0x8080808080ull;

uint64_t
LoadLe64(const uint8_t* p)
{
    uint64_t v;
    std::memcpy(&v, p, 8);
    if constexpr (std::endian::native == std::endian::big)
    {
        v = __builtin_bswap64(v);
    }
    return v;
}

void
StoreLe64(uint8_t* p, uint64_t v)
{
    if constexpr (std::endian::native == std::endian::big)
    {
        v = __builtin_bswap64(v);
    }
    std::memcpy(p, &v, 8);
}

float
LoadLeF32(const uint8_t* p)
{
    uint32_t v;
    std::memcpy(&v, p, 4);
    if constexpr (std::endian::native == std::endian::big)
    {
        v = __builtin_bswap32(v);
    }
    return std::bit_cast<float>(v);
}

/// LEB128 length of a gap: 1 + one byte per further 7 bits. Compares, not bit_width, so that
/// the size loop vectorises.
uint32_t
VarintLength(uint64_t gap)
{
    return 1 + (gap >= (1u << 7)) + (gap >= (1u << 14)) + (gap >= (1u << 21)) + (gap >= (1u << 28));
}

uint64_t
BitmapBytes(uint64_t size)
{
    return size / 8 + (size % 8 != 0);
}

/// Total varint bytes of the gaps of `indices`, and whether they are strictly ascending.
uint64_t
VarintBytes(std::span<const uint32_t> indices, bool& ascending)
{
    if (indices.empty())
    {
        ascending = true;
        return 0;
    }
    uint64_t total = VarintLength(indices[0]);
    bool ok = true;
    for (size_t j = 1; j < indices.size(); ++j)
    {
        ok &= indices[j] > indices[j - 1];
        total += VarintLength(uint32_t(indices[j] - indices[j - 1] - 1));
    }
    ascending = ok;
    return total;
}

void
WriteVarints(ByteWriter& w, std::span<const uint32_t> indices)
{
    // Each varint is stored as a full u64, so the buffer has 8 bytes of slack past kChunk.
    constexpr size_t kChunk = 4096;
    uint8_t buffer[kChunk + 8];
    size_t used = 0;
    uint32_t next = 0; // the smallest index the next one may be
    for (const uint32_t index : indices)
    {
        const uint64_t gap = index - next;
        next = index + 1;
        const uint32_t length = VarintLength(gap);
        uint64_t spread = (gap & 0x7f) | ((gap & 0x3f80) << 1) | ((gap & 0x1fc000) << 2) |
                          ((gap & 0xfe00000) << 3) | ((gap & 0xf0000000) << 4);
        // Continuation bits on every byte but the last.
        spread |= kFirstFiveTerminators & ((uint64_t{1} << (8 * (length - 1))) - 1);
        StoreLe64(buffer + used, spread);
        used += length;
        if (used >= kChunk)
        {
            w.WriteBytes(std::span<const uint8_t>(buffer, used));
            used = 0;
        }
    }
    w.WriteBytes(std::span<const uint8_t>(buffer, used));
}

void
WriteBitmap(ByteWriter& w, std::span<const uint32_t> indices, uint64_t size)
{
    constexpr uint64_t kWords = 512; // 4 KiB of bitmap, 32768 positions, per chunk
    constexpr uint64_t kSpan = 64 * kWords;
    uint64_t words[kWords];
    uint8_t bytes[8 * kWords];
    size_t j = 0;
    for (uint64_t base = 0; base < size; base += kSpan)
    {
        std::fill(std::begin(words), std::end(words), 0);
        const uint64_t end = std::min(size, base + kSpan);
        for (; j < indices.size() && indices[j] < end; ++j)
        {
            const uint64_t offset = indices[j] - base;
            words[offset / 64] |= uint64_t{1} << (offset % 64);
        }
        const uint64_t chunkBytes = BitmapBytes(end - base);
        for (uint64_t i = 0; i < (chunkBytes + 7) / 8; ++i)
        {
            StoreLe64(bytes + 8 * i, words[i]);
        }
        w.WriteBytes(std::span<const uint8_t>(bytes, chunkBytes));
    }
}

[[noreturn]] void
Fail(const std::string& what, size_t offset)
{
    throw DecodeError("sparse body: " + what, offset);
}

/// Length of the varint stream that starts at data[0]: the bytes up to and including the
/// count-th terminator (a byte with the top bit clear). Throws if it is not within `limit`.
size_t
VarintStreamLength(std::span<const uint8_t> data, size_t limit, uint32_t count, size_t offset)
{
    if (count == 0)
    {
        return 0;
    }
    size_t seen = 0;
    size_t pos = 0;
    // Terminators per 8 bytes via one multiply (no popcount instruction in baseline x86-64).
    for (; pos + 8 <= limit; pos += 8)
    {
        const uint64_t stops = ~LoadLe64(data.data() + pos) & kTerminators;
        const size_t inWord = ((stops >> 7) * 0x0101010101010101ull) >> 56;
        if (seen + inWord >= count)
        {
            break;
        }
        seen += inWord;
    }
    for (; pos < limit; ++pos)
    {
        seen += (data[pos] & 0x80) == 0;
        if (seen == count)
        {
            return pos + 1;
        }
    }
    Fail("truncated index varints: " + std::to_string(count) + " expected, " +
             std::to_string(seen) + " found before the values",
         offset + pos);
}

/// What a reader does with each kept value: store it (decode) or subtract it (error feedback's
/// residual, which needs p - decoded only where decoded is not zero).
struct StoreValue
{
    static void Apply(float& out, float value)
    {
        out = value;
    }
};

struct SubtractValue
{
    static void Apply(float& out, float value)
    {
        out -= value;
    }
};

template<typename Op>
void
ReadVarintBody(ByteReader& r, std::span<float> out, uint32_t count)
{
    // At least one index byte and four value bytes per element; checked before scanning.
    r.Require(count, 5);
    const size_t indexOffset = r.Offset();
    ByteReader peek = r;
    const std::span<const uint8_t> rest = peek.ReadBytes(peek.Remaining());
    const size_t length =
        VarintStreamLength(rest, rest.size() - size_t{4} * count, count, indexOffset);
    const uint8_t* const start = r.ReadBytes(length).data();
    const uint8_t* const values = r.ReadBytes(size_t{4} * count).data();

    const uint8_t* p = start;
    const uint8_t* const end = start + length;
    const uint64_t size = out.size();
    uint64_t next = 0;
    // Subtracting reads each kept position of a large residual, far apart, so each one misses
    // the cache: its output is prefetched when its index is decoded and updated kAhead
    // elements later, so that many misses are in flight instead of one (indices are distinct,
    // so the order of the updates does not matter). A plain decode writes into the output it
    // has just zero-filled and gained nothing from this.
    constexpr uint32_t kAhead = std::is_same_v<Op, SubtractValue> ? 32 : 0;
    constexpr uint32_t kRing = kAhead == 0 ? 1 : kAhead;
    uint64_t pending[kRing];
    auto apply = [&](uint32_t k) {
        Op::Apply(out[pending[k % kRing]], LoadLeF32(values + size_t{4} * k));
    };
    for (uint32_t j = 0; j < count; ++j)
    {
        uint64_t gap;
        size_t bytes;
        if (end - p >= 8)
        {
            uint64_t word = LoadLe64(p);
            const uint64_t stops = ~word & kTerminators;
            if ((stops & kFirstFiveTerminators) == 0)
            {
                Fail("index varint longer than 5 bytes", indexOffset + (p - start));
            }
            const unsigned stopBit = std::countr_zero(stops);
            bytes = (stopBit + 1) / 8;
            word &= stops ^ (stops - 1); // this varint's bytes only
            gap = (word & 0x7f) | ((word >> 1) & 0x3f80) | ((word >> 2) & 0x1fc000) |
                  ((word >> 3) & 0xfe00000) | ((word >> 4) & 0x7f0000000ull);
        }
        else
        {
            gap = 0;
            bytes = 0;
            uint8_t byte;
            do
            {
                if (bytes == 5)
                {
                    Fail("index varint longer than 5 bytes", indexOffset + (p - start));
                }
                byte = p[bytes];
                gap |= uint64_t(byte & 0x7f) << (7 * bytes);
                ++bytes;
            } while (byte & 0x80);
        }
        if (VarintLength(gap) != bytes)
        {
            Fail("redundant index varint encoding", indexOffset + (p - start));
        }
        const uint64_t index = next + gap;
        if (index >= size)
        {
            Fail("index " + std::to_string(index) + " out of range for a tensor of " +
                     std::to_string(size),
                 indexOffset + (p - start));
        }
        if constexpr (kAhead == 0)
        {
            Op::Apply(out[index], LoadLeF32(values + size_t{4} * j));
        }
        else
        {
            __builtin_prefetch(&out[index], 1);
            if (j >= kAhead)
            {
                apply(j - kAhead);
            }
            pending[j % kRing] = index;
        }
        next = index + 1;
        p += bytes;
    }
    if constexpr (kAhead != 0)
    {
        for (uint32_t k = count > kAhead ? count - kAhead : 0; k < count; ++k)
        {
            apply(k);
        }
    }
}

template<typename Op>
void
ReadBitmapBody(ByteReader& r, std::span<float> out, uint32_t count)
{
    const uint64_t size = out.size();
    const size_t bitmapOffset = r.Offset();
    const std::span<const uint8_t> bitmap = r.ReadBytes(BitmapBytes(size));
    const uint8_t* const values = r.ReadBytes(size_t{4} * count).data();
    if (size % 8 != 0 && (bitmap.back() >> (size % 8)) != 0)
    {
        Fail("bitmap padding bits set", bitmapOffset + bitmap.size() - 1);
    }
    const size_t fullWords = bitmap.size() / 8;
    uint32_t j = 0;
    auto scatter = [&](uint64_t word, uint64_t base, size_t byteOffset) {
        while (word != 0)
        {
            if (j == count)
            {
                Fail("bitmap has more than " + std::to_string(count) + " bits set",
                     bitmapOffset + byteOffset);
            }
            Op::Apply(out[base + std::countr_zero(word)], LoadLeF32(values + size_t{4} * j));
            ++j;
            word &= word - 1;
        }
    };
    for (size_t i = 0; i < fullWords; ++i)
    {
        scatter(LoadLe64(bitmap.data() + 8 * i), 64 * i, 8 * i);
    }
    uint64_t tail = 0;
    for (size_t b = 8 * fullWords; b < bitmap.size(); ++b)
    {
        tail |= uint64_t{bitmap[b]} << (8 * (b - 8 * fullWords));
    }
    scatter(tail, 64 * fullWords, 8 * fullWords);
    if (j != count)
    {
        Fail("bitmap has " + std::to_string(j) + " bits set, count says " + std::to_string(count),
             bitmapOffset);
    }
}

template<typename Op>
void
ReadSparseBody(ByteReader& r, std::span<float> out, const uint64_t* expectedCount)
{
    const size_t modeOffset = r.Offset();
    const uint8_t mode = r.ReadU8();
    if (mode != kModeVarint && mode != kModeBitmap)
    {
        Fail("unknown index mode " + std::to_string(mode), modeOffset);
    }
    const size_t countOffset = r.Offset();
    const uint32_t count = r.ReadU32();
    if (count > out.size())
    {
        Fail("count " + std::to_string(count) + " exceeds the tensor size " +
                 std::to_string(out.size()),
             countOffset);
    }
    if (expectedCount != nullptr && count != *expectedCount)
    {
        Fail("count " + std::to_string(count) + ", expected " + std::to_string(*expectedCount),
             countOffset);
    }
    if constexpr (std::is_same_v<Op, StoreValue>)
    {
        std::fill(out.begin(), out.end(), 0.0f);
    }
    if (mode == kModeVarint)
    {
        ReadVarintBody<Op>(r, out, count);
    }
    else
    {
        ReadBitmapBody<Op>(r, out, count);
    }
}

} // namespace

uint64_t
SparseBytes(std::span<const uint32_t> indices, uint64_t size)
{
    bool ascending;
    const uint64_t varint = VarintBytes(indices, ascending);
    return kBodyHeaderBytes + std::min(varint, BitmapBytes(size)) + 4 * uint64_t{indices.size()};
}

void
WriteSparse(ByteWriter& w,
            std::span<const uint32_t> indices,
            std::span<const float> values,
            uint64_t size)
{
    if (indices.size() != values.size())
    {
        throw std::invalid_argument("WriteSparse: " + std::to_string(indices.size()) +
                                    " indices but " + std::to_string(values.size()) + " values");
    }
    if (size > (uint64_t{1} << 32))
    {
        throw std::invalid_argument("WriteSparse: tensor of " + std::to_string(size) +
                                    " elements exceeds 32-bit indices");
    }
    bool ascending;
    const uint64_t varintBytes = VarintBytes(indices, ascending);
    if (!ascending || (!indices.empty() && indices.back() >= size))
    {
        throw std::invalid_argument("WriteSparse: indices must be strictly ascending and < " +
                                    std::to_string(size));
    }
    // No Reserve() here: an exact reserve per tensor would reallocate the whole payload once
    // per tensor; the vector's geometric growth (or the codec's own up-front reserve) is
    // cheaper.
    const bool bitmap = BitmapBytes(size) < varintBytes;
    w.WriteU8(bitmap ? kModeBitmap : kModeVarint);
    w.WriteU32(static_cast<uint32_t>(indices.size()));
    if (bitmap)
    {
        WriteBitmap(w, indices, size);
    }
    else
    {
        WriteVarints(w, indices);
    }
    w.WriteF32Array(values);
}

void
ReadSparse(ByteReader& r, std::span<float> out)
{
    ReadSparseBody<StoreValue>(r, out, nullptr);
}

void
ReadSparse(ByteReader& r, std::span<float> out, uint64_t expectedCount)
{
    ReadSparseBody<StoreValue>(r, out, &expectedCount);
}

void
SubtractSparse(ByteReader& r, std::span<float> out)
{
    ReadSparseBody<SubtractValue>(r, out, nullptr);
}

void
SubtractSparse(ByteReader& r, std::span<float> out, uint64_t expectedCount)
{
    ReadSparseBody<SubtractValue>(r, out, &expectedCount);
}

} // namespace fedran::internal
