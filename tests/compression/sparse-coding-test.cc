// The sparse body shared by top_k, threshold and dgc: exact bytes, both index codings, the
// choice between them, and rejection of every malformed body.

#include "compression/internal/sparse-coding.h"
#include "compression/rng.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

namespace fedran::internal
{
namespace
{

struct Sparse
{
    std::vector<uint32_t> indices;
    std::vector<float> values;
};

/// Each position kept with probability `density`; values normal, NaN and -0.0 included.
Sparse
RandomSparse(uint64_t size, double density, uint64_t seed)
{
    Rng rng(seed, 3);
    Sparse s;
    for (uint64_t i = 0; i < size; ++i)
    {
        if (rng.Uniform() < density)
        {
            s.indices.push_back(static_cast<uint32_t>(i));
            const uint64_t kind = rng.UniformInt(50);
            s.values.push_back(kind == 0   ? std::numeric_limits<float>::quiet_NaN()
                               : kind == 1 ? -0.0f
                                           : static_cast<float>(rng.Normal()));
        }
    }
    return s;
}

std::vector<uint8_t>
Write(const Sparse& s, uint64_t size)
{
    std::vector<uint8_t> out;
    ByteWriter w(out);
    WriteSparse(w, s.indices, s.values, size);
    return out;
}

/// Decodes a body that must span the whole of `bytes`.
std::vector<float>
Read(std::span<const uint8_t> bytes, uint64_t size)
{
    std::vector<float> out(size, 123.0f); // not zero: ReadSparse must clear it
    ByteReader r(bytes);
    ReadSparse(r, out);
    r.ExpectEnd();
    return out;
}

void
ExpectDecodesTo(const std::vector<float>& decoded, const Sparse& s)
{
    std::vector<float> expected(decoded.size(), 0.0f);
    for (size_t j = 0; j < s.indices.size(); ++j)
    {
        expected[s.indices[j]] = s.values[j];
    }
    for (size_t i = 0; i < decoded.size(); ++i)
    {
        ASSERT_EQ(std::bit_cast<uint32_t>(decoded[i]), std::bit_cast<uint32_t>(expected[i]))
            << "element " << i;
    }
}

TEST(SparseCoding, ExactVarintBytes)
{
    // Gaps minus one: 0 -> 0, 1 -> 0, 130 -> 128 (two bytes), 1000 - 131 = 869 -> two bytes.
    const Sparse s{{0, 1, 130, 1000}, {1.0f, -2.0f, 0.5f, 3.0f}};
    const std::vector<uint8_t> bytes = Write(s, 5000);
    const std::vector<uint8_t> expectedIndex = {0x00, 0x00, 0x80, 0x01, 0xe5, 0x06};
    ASSERT_EQ(bytes.size(), 5 + expectedIndex.size() + 16);
    EXPECT_EQ(bytes[0], 0); // varint mode
    EXPECT_EQ(bytes[1], 4); // count, little-endian
    EXPECT_EQ(bytes[2] | bytes[3] | bytes[4], 0);
    EXPECT_TRUE(std::equal(expectedIndex.begin(), expectedIndex.end(), bytes.begin() + 5));
    float first;
    std::memcpy(&first, bytes.data() + 11, 4);
    EXPECT_EQ(first, 1.0f);
    EXPECT_EQ(SparseBytes(s.indices, 5000), bytes.size());
    ExpectDecodesTo(Read(bytes, 5000), s);
}

TEST(SparseCoding, ExactBitmapBytes)
{
    const Sparse s{{0, 2, 3, 9}, {1, 2, 3, 4}};
    const std::vector<uint8_t> bytes = Write(s, 10); // 4 varint bytes vs 2 bitmap bytes
    ASSERT_EQ(bytes.size(), 5 + 2 + 16);
    EXPECT_EQ(bytes[0], 1);
    EXPECT_EQ(bytes[5], 0x0d);
    EXPECT_EQ(bytes[6], 0x02);
    ExpectDecodesTo(Read(bytes, 10), s);
}

TEST(SparseCoding, FiveByteVarintsForHugeGaps)
{
    // Only written (decoding needs a 2^32-float tensor): gap 2^31 - 1 and 2^31 - 2.
    const Sparse s{{0, 1u << 31, 0xffffffffu}, {1, 2, 3}};
    const std::vector<uint8_t> bytes = Write(s, uint64_t{1} << 32);
    const std::vector<uint8_t> expectedIndex =
        {0x00, 0xff, 0xff, 0xff, 0xff, 0x07, 0xfe, 0xff, 0xff, 0xff, 0x07};
    ASSERT_EQ(bytes.size(), 5 + expectedIndex.size() + 12);
    EXPECT_TRUE(std::equal(expectedIndex.begin(), expectedIndex.end(), bytes.begin() + 5));
}

TEST(SparseCoding, RoundTripsAtManyDensitiesAndSizes)
{
    uint64_t seed = 1;
    for (const uint64_t size :
         {0ull, 1ull, 7ull, 8ull, 9ull, 63ull, 64ull, 65ull, 1000ull, 40000ull, 100003ull})
    {
        for (const double density : {0.0, 0.001, 0.01, 0.05, 0.1, 0.3, 0.5, 0.9, 1.0})
        {
            const Sparse s = RandomSparse(size, density, seed++);
            const std::vector<uint8_t> bytes = Write(s, size);
            ASSERT_EQ(bytes.size(), SparseBytes(s.indices, size));
            ExpectDecodesTo(Read(bytes, size), s);
        }
    }
}

TEST(SparseCoding, MultiByteGapsInTheTail)
{
    // Large gaps everywhere, and the last varints decode on the byte-by-byte tail path.
    const Sparse s{{3, 200, 70000, 70001, 3000000, 3000002}, {1, 2, 3, 4, 5, 6}};
    const std::vector<uint8_t> bytes = Write(s, 3000003);
    EXPECT_EQ(bytes[0], 0);
    ExpectDecodesTo(Read(bytes, 3000003), s);
}

TEST(SparseCoding, PicksTheSmallerIndexSet)
{
    const uint64_t size = 100000;
    const Sparse dense = RandomSparse(size, 0.5, 7);
    const std::vector<uint8_t> denseBytes = Write(dense, size);
    EXPECT_EQ(denseBytes[0], 1); // bitmap: 12.5 kB instead of ~50 kB of varints
    EXPECT_EQ(denseBytes.size(), 5 + size / 8 + 4 * dense.indices.size());

    const Sparse sparse = RandomSparse(size, 0.01, 8);
    const std::vector<uint8_t> sparseBytes = Write(sparse, size);
    EXPECT_EQ(sparseBytes[0], 0);
    EXPECT_LT(sparseBytes.size(), 5 + size / 8 + 4 * sparse.indices.size());
    // At 1% the gaps average 100: one or two bytes each, about 1.3 on average.
    EXPECT_LT(sparseBytes.size() - 5 - 4 * sparse.indices.size(), 1.5 * sparse.indices.size());
}

TEST(SparseCoding, WriterRejectsBadInput)
{
    std::vector<uint8_t> out;
    ByteWriter w(out);
    const std::vector<float> two = {1, 2};
    EXPECT_THROW(WriteSparse(w, std::vector<uint32_t>{1, 1}, two, 10), std::invalid_argument);
    EXPECT_THROW(WriteSparse(w, std::vector<uint32_t>{2, 1}, two, 10), std::invalid_argument);
    EXPECT_THROW(WriteSparse(w, std::vector<uint32_t>{1, 10}, two, 10), std::invalid_argument);
    EXPECT_THROW(WriteSparse(w, std::vector<uint32_t>{1}, two, 10), std::invalid_argument);
}

/// Expects DecodeError at `offset` when decoding `bytes` as a body of a `size` tensor.
void
ExpectRejected(const std::vector<uint8_t>& bytes, uint64_t size, size_t offset)
{
    std::vector<float> out(size);
    ByteReader r(bytes);
    try
    {
        ReadSparse(r, out);
        r.ExpectEnd();
        FAIL() << "accepted";
    }
    catch (const DecodeError& e)
    {
        EXPECT_EQ(e.Offset(), offset) << e.what();
    }
}

std::vector<uint8_t>
Body(uint8_t mode, uint32_t count, std::vector<uint8_t> indexBytes)
{
    std::vector<uint8_t> bytes = {mode,
                                  static_cast<uint8_t>(count),
                                  static_cast<uint8_t>(count >> 8),
                                  static_cast<uint8_t>(count >> 16),
                                  static_cast<uint8_t>(count >> 24)};
    for (const uint8_t byte : indexBytes) // not insert(): GCC 12 -Warray-bounds false positive
    {
        bytes.push_back(byte);
    }
    bytes.resize(bytes.size() + 4 * size_t{count}, 0x3f);
    return bytes;
}

TEST(SparseCoding, RejectsMalformedBodies)
{
    ExpectRejected(Body(2, 0, {}), 10, 0);             // unknown mode
    ExpectRejected(Body(0, 11, {}), 10, 1);            // count > size
    ExpectRejected(Body(0, 1, {0x0a}), 10, 5);         // index 10 of 10
    ExpectRejected(Body(0, 2, {0x03, 0x06}), 10, 6);   // 3, then 3 + 1 + 6 = 10
    ExpectRejected(Body(0, 1, {0x80, 0x00}), 1000, 5); // redundant byte
    ExpectRejected(Body(0, 1, {0x81, 0x80, 0x80, 0x80, 0x80, 0x00}), 1000, 5); // 6 bytes
    ExpectRejected(Body(1, 2, {0x07}), 8, 5); // three bits for count 2
    ExpectRejected(Body(1, 3, {0x03}), 8, 5); // two bits for count 3
    ExpectRejected(Body(1, 1, {0x10}), 4, 5); // padding bit set
    // A count the remaining bytes cannot hold: rejected before anything is scanned.
    ExpectRejected({0, 100, 0, 0, 0}, 1000, 5);
    // Enough bytes, but not enough terminators before the values.
    ExpectRejected(Body(0, 3, {0x81, 0x81, 0x81, 0x81}), 1000, 9);
}

TEST(SparseCoding, RejectsAWrongExpectedCount)
{
    const Sparse s{{1, 5}, {1, 2}};
    const std::vector<uint8_t> bytes = Write(s, 10);
    std::vector<float> out(10);
    ByteReader ok(bytes);
    ReadSparse(ok, out, 2);
    ByteReader r(bytes);
    try
    {
        ReadSparse(r, out, 3);
        FAIL() << "accepted";
    }
    catch (const DecodeError& e)
    {
        EXPECT_EQ(e.Offset(), 1u);
    }
}

TEST(SparseCoding, RejectsEveryTruncation)
{
    for (const double density : {0.02, 0.6})
    {
        const Sparse s = RandomSparse(300, density, 11);
        const std::vector<uint8_t> bytes = Write(s, 300);
        for (size_t length = 0; length < bytes.size(); ++length)
        {
            std::vector<float> out(300);
            ByteReader r(std::span<const uint8_t>(bytes.data(), length));
            EXPECT_THROW(ReadSparse(r, out), DecodeError) << "length " << length;
        }
    }
}

TEST(SparseCoding, SurvivesRandomCorruption)
{
    // Flipped bytes either decode to something or throw DecodeError; never anything else.
    // Under ASan/UBSan this is the fuzz test of the decoder.
    Rng rng(5, 5);
    for (int trial = 0; trial < 3000; ++trial)
    {
        const uint64_t size = 1 + rng.UniformInt(500);
        const Sparse s = RandomSparse(size, trial % 2 ? 0.05 : 0.5, trial);
        std::vector<uint8_t> bytes = Write(s, size);
        const int flips = 1 + static_cast<int>(rng.UniformInt(3));
        for (int f = 0; f < flips; ++f)
        {
            bytes[rng.UniformInt(bytes.size())] ^= static_cast<uint8_t>(1 + rng.UniformInt(255));
        }
        std::vector<float> out(size);
        ByteReader r(bytes);
        try
        {
            ReadSparse(r, out);
        }
        catch (const DecodeError&)
        {
        }
    }
}

} // namespace
} // namespace fedran::internal
