// LargeBuffer: huge-page-advised buffers for model-sized codec state (large-buffer.h), and
// SubtractSparse, error feedback's in-place residual update, against decode-then-subtract.

#include "compression/internal/byte-io.h"
#include "compression/internal/large-buffer.h"
#include "compression/internal/sparse-coding.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

namespace fedran
{
namespace
{

using internal::LargeBuffer;

TEST(LargeBuffer, HoldsWhatIsWrittenAtEverySizeAndCopies)
{
    // Below, at and above the huge-page threshold, and not a whole number of pages.
    for (const size_t n : {size_t{0},
                           size_t{1000},
                           internal::kHugePageMinBytes / 4,
                           internal::kHugePageMinBytes / 4 + 12345})
    {
        LargeBuffer<float> buffer;
        buffer.resize(n);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.data()) % 64, 0u) << n;
        for (size_t i = 0; i < n; ++i)
        {
            buffer[i] = static_cast<float>(i);
        }
        const LargeBuffer<float> copy = buffer;
        ASSERT_EQ(copy.size(), n);
        for (size_t i = 0; i < n; i += 997)
        {
            EXPECT_EQ(copy[i], static_cast<float>(i)) << n << " " << i;
        }
        buffer.assign(n, 0.0f); // assign sets every element, unlike resize
        for (size_t i = 0; i < n; i += 997)
        {
            EXPECT_EQ(buffer[i], 0.0f);
        }
    }
}

TEST(SubtractSparse, EqualsDecodingThenSubtractingBitForBit)
{
    // A varint body (sparse) and a bitmap body (dense), over a residual with specials.
    const size_t size = 5000;
    std::vector<float> residual(size);
    for (size_t i = 0; i < size; ++i)
    {
        residual[i] = static_cast<float>(i % 13) - 6.0f;
    }
    residual[7] = -0.0f;
    residual[8] = std::numeric_limits<float>::infinity();
    residual[9] = std::numeric_limits<float>::quiet_NaN();
    residual[10] = std::numeric_limits<float>::denorm_min();
    residual[11] = -0.0f; // never kept: x - 0.0f must leave it -0.0
    for (const size_t stride : {size_t{97}, size_t{3}})
    {
        std::vector<uint32_t> indices;
        std::vector<float> values;
        for (size_t i = 7; i < size; i += stride)
        {
            indices.push_back(static_cast<uint32_t>(i));
            values.push_back(residual[i] * 0.5f);
        }
        std::vector<uint8_t> body;
        internal::ByteWriter writer(body);
        internal::WriteSparse(writer, indices, values, size);

        std::vector<float> decoded(size);
        internal::ByteReader decodeReader(body);
        internal::ReadSparse(decodeReader, decoded);
        std::vector<float> want = residual;
        for (size_t i = 0; i < size; ++i)
        {
            want[i] -= decoded[i];
        }

        std::vector<float> got = residual;
        internal::ByteReader subtractReader(body);
        internal::SubtractSparse(subtractReader, got, indices.size());
        subtractReader.ExpectEnd();
        for (size_t i = 0; i < size; ++i)
        {
            EXPECT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(want[i]))
                << "stride " << stride << ", element " << i;
        }
    }
}

} // namespace
} // namespace fedran
