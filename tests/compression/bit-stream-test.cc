// BitWriter / BitReader: bit order, Elias codes, packed fields, and bounds checks.

#include "compression/internal/bit-stream.h"
#include "compression/rng.h"

#include <gtest/gtest.h>

#include <bit>
#include <functional>
#include <limits>
#include <stdexcept>
#include <vector>

namespace fedran::internal
{
namespace
{

std::vector<uint8_t>
Bytes(const std::function<void(BitWriter&)>& write)
{
    std::vector<uint8_t> out;
    BitWriter writer(out);
    write(writer);
    writer.Finish();
    return out;
}

size_t
DecodeErrorOffset(const std::function<void()>& read)
{
    try
    {
        read();
    }
    catch (const DecodeError& e)
    {
        return e.Offset();
    }
    ADD_FAILURE() << "no DecodeError";
    return std::numeric_limits<size_t>::max();
}

TEST(BitStream, BitsAreLeastSignificantFirst)
{
    const auto bytes = Bytes([](BitWriter& w) {
        w.WriteBits(0b101, 3);
        w.WriteBits(0xF, 4);
        w.WriteBits(1, 1);
        w.WriteBits(0x1FF, 9); // crosses a byte boundary
        w.WriteBits(0xFFFF, 0);
    });
    EXPECT_EQ(bytes, (std::vector<uint8_t>{0xFD, 0xFF, 0x01}));
}

TEST(BitStream, WriterAppendsAndPadsWithZeros)
{
    std::vector<uint8_t> out = {7, 7};
    BitWriter writer(out);
    writer.WriteBits(0x3, 2);
    EXPECT_EQ(writer.BitCount(), 2u);
    writer.Finish();
    EXPECT_EQ(writer.BitCount(), 8u);
    EXPECT_EQ(out, (std::vector<uint8_t>{7, 7, 0x03}));
}

TEST(BitStream, RandomWidthsRoundTripAcrossTheStagingBuffer)
{
    Rng rng(11, 0);
    std::vector<std::pair<uint64_t, unsigned>> fields;
    uint64_t totalBits = 0;
    while (totalBits < 8 * 100000) // several times the 16 KiB staging buffer
    {
        const auto width = static_cast<unsigned>(rng.UniformInt(65));
        const uint64_t value =
            width == 64 ? rng.NextU64() : rng.NextU64() & ((uint64_t{1} << width) - 1);
        fields.emplace_back(value, width);
        totalBits += width;
    }
    const auto bytes = Bytes([&](BitWriter& w) {
        for (const auto& [value, width] : fields)
        {
            w.WriteBits(value, width);
        }
        EXPECT_EQ(w.BitCount(), totalBits);
    });
    ASSERT_EQ(bytes.size(), (totalBits + 7) / 8);
    BitReader reader(bytes, 0);
    for (const auto& [value, width] : fields)
    {
        ASSERT_EQ(reader.ReadBits(width), value);
    }
    EXPECT_NO_THROW(reader.SkipPadding());
    EXPECT_EQ(reader.BitsRemaining(), 0u);
}

TEST(BitStream, EliasGammaAndDeltaHaveTheDocumentedBits)
{
    // gamma(1) = 1; gamma(2) = 0 1 0; gamma(5) = 0 0 1, then 5's low bits 01 LSB first: 1 0.
    EXPECT_EQ(Bytes([](BitWriter& w) { w.WriteEliasGamma(1); }), std::vector<uint8_t>{0b1});
    EXPECT_EQ(Bytes([](BitWriter& w) { w.WriteEliasGamma(2); }), std::vector<uint8_t>{0b010});
    EXPECT_EQ(Bytes([](BitWriter& w) { w.WriteEliasGamma(5); }), std::vector<uint8_t>{0b01100});
    // delta(2) = gamma(2), then 2's low bit 0; delta(5) = gamma(3) = 0 1 1, then 0 1.
    EXPECT_EQ(Bytes([](BitWriter& w) { w.WriteEliasDelta(2); }), std::vector<uint8_t>{0b0010});
    EXPECT_EQ(Bytes([](BitWriter& w) { w.WriteEliasDelta(5); }), std::vector<uint8_t>{0b01110});
    EXPECT_EQ(EliasGammaLength(1), 1u);
    EXPECT_EQ(EliasGammaLength(uint64_t{1} << 63), 127u);
    std::vector<uint8_t> out;
    BitWriter writer(out);
    EXPECT_THROW(writer.WriteEliasGamma(0), std::invalid_argument);
    EXPECT_THROW(writer.WriteEliasDelta(0), std::invalid_argument);
}

TEST(BitStream, EliasCodesRoundTripUpTo64Bits)
{
    Rng rng(12, 0);
    std::vector<uint64_t> values = {1,
                                    2,
                                    3,
                                    4,
                                    (uint64_t{1} << 28) - 1,
                                    uint64_t{1} << 28,
                                    (uint64_t{1} << 63) - 1,
                                    uint64_t{1} << 63,
                                    std::numeric_limits<uint64_t>::max()};
    for (unsigned width = 1; width <= 64; ++width)
    {
        for (int k = 0; k < 20; ++k)
        {
            const uint64_t low = width == 1 ? 0 : rng.NextU64() >> (65 - width);
            values.push_back((uint64_t{1} << (width - 1)) | low);
        }
    }
    uint64_t expectedBits = 0;
    const auto bytes = Bytes([&](BitWriter& w) {
        for (const uint64_t value : values)
        {
            w.WriteEliasGamma(value);
            w.WriteEliasDelta(value);
            const unsigned n = static_cast<unsigned>(std::bit_width(value)) - 1;
            expectedBits += (2 * n + 1) + (n + EliasGammaLength(n + 1));
        }
        EXPECT_EQ(w.BitCount(), expectedBits);
    });
    BitReader reader(bytes, 0);
    for (const uint64_t value : values)
    {
        ASSERT_EQ(reader.ReadEliasGamma(), value);
        ASSERT_EQ(reader.ReadEliasDelta(), value);
    }
    EXPECT_NO_THROW(reader.SkipPadding());
}

TEST(BitStream, ReadingPastTheEndNamesTheByteOffset)
{
    const std::vector<uint8_t> bytes = {0xAB, 0xCD};
    BitReader reader(bytes, 100);
    EXPECT_EQ(reader.ReadBits(12), 0xDABu);
    EXPECT_EQ(DecodeErrorOffset([&] { reader.ReadBits(5); }), 101u);
    BitReader empty(std::span<const uint8_t>(), 40);
    EXPECT_EQ(DecodeErrorOffset([&] { empty.ReadBits(1); }), 40u);
    EXPECT_EQ(DecodeErrorOffset([&] { empty.ReadEliasGamma(); }), 40u);
    EXPECT_EQ(DecodeErrorOffset([&] { empty.Seek(1); }), 40u);
}

TEST(BitStream, EliasDecodingRejectsOverlongAndTruncatedCodes)
{
    // 63 zeros, then a one and 63 payload bits: 2^63 + (2^63 - 1), the largest gamma code.
    auto largest = Bytes([](BitWriter& w) { w.WriteEliasGamma(~uint64_t{0}); });
    {
        BitReader reader(largest, 0);
        EXPECT_EQ(reader.ReadEliasGamma(), ~uint64_t{0});
    }
    // 64 zeros would need a 65-bit value; a long run of zeros must fail, not spin.
    const std::vector<uint8_t> zeros64 = {0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF};
    BitReader overlong(zeros64, 7);
    EXPECT_EQ(DecodeErrorOffset([&] { overlong.ReadEliasGamma(); }), 7u);
    const std::vector<uint8_t> allZero(1000, 0);
    BitReader endless(allZero, 0);
    EXPECT_EQ(DecodeErrorOffset([&] { endless.ReadEliasGamma(); }), 0u);
    BitReader endlessDelta(allZero, 0);
    EXPECT_EQ(DecodeErrorOffset([&] { endlessDelta.ReadEliasDelta(); }), 0u);

    // delta whose length prefix says 65 bits.
    const auto delta65 = Bytes([](BitWriter& w) {
        w.WriteEliasGamma(65);
        w.WriteBits(~uint64_t{0}, 64);
    });
    BitReader tooWide(delta65, 3);
    EXPECT_EQ(DecodeErrorOffset([&] { tooWide.ReadEliasDelta(); }), 3u);

    // Every truncation of a long code fails inside the data, never past it.
    for (size_t length = 0; length < largest.size(); ++length)
    {
        const std::vector<uint8_t> prefix(largest.begin(), largest.begin() + length);
        BitReader reader(prefix, 0);
        EXPECT_LE(DecodeErrorOffset([&] { reader.ReadEliasGamma(); }), length);
    }
}

TEST(BitStream, GarbageNeverHangsOrOverreads)
{
    Rng rng(13, 0);
    for (int trial = 0; trial < 2000; ++trial)
    {
        std::vector<uint8_t> bytes(rng.UniformInt(40));
        for (auto& b : bytes)
        {
            // Mostly zero bits, so that long zero runs are common.
            b = static_cast<uint8_t>(rng.NextU64() & rng.NextU64() & rng.NextU64());
        }
        BitReader reader(bytes, 0);
        try
        {
            for (int k = 0; k < 1000; ++k)
            {
                static_cast<void>(k % 2 ? reader.ReadEliasDelta() : reader.ReadEliasGamma());
            }
        }
        catch (const DecodeError& e)
        {
            EXPECT_LE(e.Offset(), bytes.size());
        }
    }
}

/// The reference for packed fields: one WriteBits per code.
std::vector<uint8_t>
PackedByReference(const std::vector<uint8_t>& codes, unsigned bits, unsigned lead)
{
    return Bytes([&](BitWriter& w) {
        w.WriteBits(0x5, lead);
        for (const uint8_t code : codes)
        {
            w.WriteBits(code, bits);
        }
    });
}

TEST(BitStream, PackedFieldsMatchBitByBitWritingForEveryWidth)
{
    Rng rng(14, 0);
    for (unsigned bits = 1; bits <= 8; ++bits)
    {
        for (const size_t n : {0, 1, 7, 8, 9, 15, 16, 17, 100, 5000, 70000})
        {
            for (const unsigned lead : {0u, 3u})
            {
                std::vector<uint8_t> codes(n);
                for (auto& code : codes)
                {
                    code = static_cast<uint8_t>(rng.UniformInt(uint64_t{1} << bits));
                }
                const auto bytes = Bytes([&](BitWriter& w) {
                    w.WriteBits(0x5, lead);
                    w.WritePacked(codes, bits);
                });
                ASSERT_EQ(bytes, PackedByReference(codes, bits, lead))
                    << "bits " << bits << " n " << n << " lead " << lead;

                BitReader reader(bytes, 0);
                EXPECT_EQ(reader.ReadBits(lead), lead ? 0x5u : 0u);
                std::vector<uint8_t> decoded(n, 0xEE);
                reader.ReadPacked(decoded, bits);
                ASSERT_EQ(decoded, codes) << "bits " << bits << " n " << n << " lead " << lead;
                EXPECT_NO_THROW(reader.SkipPadding());
                EXPECT_EQ(reader.BitsRemaining(), 0u);
            }
        }
    }
}

TEST(BitStream, PackedReadOfATruncatedStreamFailsBeforeWriting)
{
    std::vector<uint8_t> codes(100, 5);
    const auto bytes = Bytes([&](BitWriter& w) { w.WritePacked(codes, 3); });
    ASSERT_EQ(bytes.size(), 38u);
    const std::vector<uint8_t> cut(bytes.begin(), bytes.end() - 1);
    BitReader reader(cut, 20);
    std::vector<uint8_t> decoded(100, 0xEE);
    EXPECT_EQ(DecodeErrorOffset([&] { reader.ReadPacked(decoded, 3); }), 20u);
    EXPECT_EQ(decoded, std::vector<uint8_t>(100, 0xEE));
}

TEST(BitStream, PaddingMustBeZero)
{
    const std::vector<uint8_t> bytes = {0x81};
    BitReader reader(bytes, 9);
    EXPECT_EQ(reader.ReadBits(1), 1u);
    EXPECT_EQ(DecodeErrorOffset([&] { reader.SkipPadding(); }), 9u);
    const std::vector<uint8_t> zeroPadded = {0x01};
    BitReader clean(zeroPadded, 0);
    EXPECT_EQ(clean.ReadBits(1), 1u);
    EXPECT_EQ(clean.BytesConsumed(), 1u);
    EXPECT_NO_THROW(clean.SkipPadding());
    EXPECT_EQ(clean.BitPosition(), 8u);
    EXPECT_NO_THROW(clean.SkipPadding()); // already at a boundary
}

TEST(BitStream, CursorAndPeekAgreeWithTheCheckedCalls)
{
    std::vector<uint8_t> out;
    BitWriter writer(out);
    std::vector<std::pair<uint64_t, unsigned>> fields;
    Rng rng(15, 0);
    for (int round = 0; round < 50; ++round)
    {
        BitCursor c = writer.Open(1000 * 56);
        for (int k = 0; k < 1000; ++k)
        {
            const auto width = static_cast<unsigned>(rng.UniformInt(57));
            const uint64_t value = rng.NextU64() & ((uint64_t{1} << width) - 1);
            PutBits(c, value, width);
            fields.emplace_back(value, width);
        }
        writer.Commit(c);
    }
    writer.Finish();
    BitReader reader(out, 0);
    uint64_t pos = 0;
    for (const auto& [value, width] : fields)
    {
        if (pos < reader.FastLimit())
        {
            ASSERT_EQ(reader.PeekFast(pos) & ((uint64_t{1} << width) - 1), value);
        }
        reader.Seek(pos);
        ASSERT_EQ(reader.ReadBits(width), value);
        pos += width;
    }
    EXPECT_EQ(reader.FastLimit(), 8 * (out.size() - 7));
}

} // namespace
} // namespace fedran::internal
