// The "qsgd" codec: the Elias-coded wire format, unbiasedness, the variance bound, and
// rejection of bad payloads and parameters.

#include "quantization-test-util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace fedran
{
namespace
{

using namespace fedran::testing;

std::unique_ptr<Codec>
Qsgd(uint32_t levels, uint32_t bucket = 512)
{
    return MakeFromJson({{"type", "qsgd"}, {"levels", levels}, {"bucket", bucket}});
}

TensorLayout
Mixed()
{
    return TensorLayout({{"a", {10, 100}}, {"b", {3}}, {"empty", {0}}, {"c", {517}}});
}

unsigned
CodeLength(uint32_t level)
{
    return 2 * static_cast<unsigned>(std::bit_width(level + 1)) - 1 + (level > 0);
}

/// Bytes of each bucket's bit length: the smallest of 2, 4, 8 that holds bucket x Lmax.
size_t
LengthBytes(uint32_t s, size_t bucket)
{
    const uint64_t most = bucket * uint64_t{CodeLength(s)};
    return most <= 0xFFFF ? 2 : most <= 0xFFFFFFFF ? 4 : 8;
}

uint64_t
UIntAt(const std::vector<uint8_t>& bytes, size_t at, size_t width)
{
    uint64_t value = 0;
    for (size_t k = 0; k < width; ++k)
    {
        value |= uint64_t{bytes.at(at + k)} << (8 * k);
    }
    return value;
}

/// The documented rounding (file comment of qsgd-codec.cc) with the norms taken from the
/// payload; also checks the norms, the buckets' bit lengths and the payload size.
std::vector<float>
ReferenceQsgd(const TensorLayout& layout,
              const std::vector<float>& x,
              const std::vector<uint8_t>& payload,
              uint32_t s,
              size_t bucket,
              uint64_t seed)
{
    Rng rng(seed, 7);
    ReferenceDither dither(rng);
    const unsigned fraction = std::min(16u, 31u - static_cast<unsigned>(std::bit_width(s + 1)));
    const double cap = std::ldexp(static_cast<double>(s), static_cast<int>(fraction));
    std::vector<float> out(x.size());
    size_t at = 16;
    for (size_t t = 0; t < layout.TensorCount(); ++t)
    {
        if (t > 0)
        {
            dither = ReferenceDither(rng); // the codecs seed each tensor's dither
        }
        dither.StartTensor();
        const size_t d = layout.Tensors()[t].Size();
        const size_t buckets = (d + bucket - 1) / bucket;
        const size_t width = LengthBytes(s, bucket);
        const size_t lengthsAt = at + 4 * buckets;
        uint64_t bits = 0;
        for (size_t j = 0; j < buckets; ++j)
        {
            const uint64_t bucketStart = bits;
            const float norm = F32At(payload, at + 4 * j);
            const size_t begin = layout.Offset(t) + j * bucket;
            const size_t end = layout.Offset(t) + std::min(d, (j + 1) * bucket);
            double sumOfSquares = 0.0;
            for (size_t i = begin; i < end; ++i)
            {
                sumOfSquares += double{x[i]} * x[i];
            }
            EXPECT_NEAR(norm, std::sqrt(sumOfSquares), 1e-6 * norm);
            const auto k = static_cast<float>(cap / norm);
            for (size_t i = begin; i < end; ++i)
            {
                uint32_t truncated;
                if (norm < 0x1p-90)
                {
                    // Tiny norms: |x| / norm in double, as cap / norm would overflow a float.
                    truncated =
                        static_cast<uint32_t>(std::min(std::fabs(double{x[i]}) / norm * cap, cap));
                }
                else
                {
                    const float u = std::min(std::fabs(x[i]) * k, static_cast<float>(cap));
                    truncated = static_cast<uint32_t>(static_cast<int32_t>(u));
                }
                const uint32_t r = dither.Next() >> (16 - fraction);
                const uint32_t level = (truncated + r) >> fraction;
                const float magnitude = static_cast<float>(level) * (norm / static_cast<float>(s));
                out[i] = x[i] < 0 ? -magnitude : magnitude;
                bits += CodeLength(level);
            }
            EXPECT_EQ(UIntAt(payload, lengthsAt + width * j, width), bits - bucketStart)
                << "bucket " << j;
        }
        at += (4 + width) * buckets + (bits + 7) / 8;
    }
    EXPECT_EQ(payload.size(), at);
    return out;
}

TEST(QsgdCodec, HandMadeStreamHasTheDocumentedBits)
{
    // norm 5 and s = 5 make |x| s / norm the integers 3 and 4: no randomness left.
    const TensorLayout layout({{"v", {4}}});
    auto codec = Qsgd(5);
    const auto payload = EncodeWithSeed(*codec, layout, {3.0f, -4.0f, 0.0f, 0.0f}, 1);
    // s, bucket, norm 5, 14 bits of codes (u16), then
    // gamma(4) = 001 00, sign 0 | gamma(5) = 001 10, sign 1 | gamma(1) = 1 | 1
    const std::vector<uint8_t> body = {5, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0xA0, 0x40, 14, 0, 0x04, 0x3B};
    ASSERT_EQ(payload.size(), 8 + body.size());
    EXPECT_EQ(std::vector<uint8_t>(payload.begin() + 8, payload.end()), body);
    EXPECT_EQ(DecodeAll(*codec, layout, payload), (std::vector<float>{3.0f, -4.0f, 0.0f, 0.0f}));
}

TEST(QsgdCodec, EveryCodePathMatchesTheDocumentedRoundingDrawOrderAndSize)
{
    const TensorLayout layout = Mixed();
    auto x = NormalUpdate(layout.TotalSize(), 31);
    for (size_t i = 0; i < 5; ++i)
    {
        x[i] *= 1e-30f; // a bucket of 5 with a tiny norm: the double-precision path
    }
    for (const uint32_t s : {1u, 3u, 16u, 127u, 128u, 2047u, 2048u, 1u << 20})
    {
        for (const uint32_t bucket : {512u, 5u})
        {
            auto codec = Qsgd(s, bucket);
            std::vector<uint8_t> first;
            for (const auto level : kSimdLevels)
            {
                SimdCap cap(level);
                const auto payload = EncodeWithSeed(*codec, layout, x, 99);
                if (first.empty())
                {
                    first = payload;
                }
                ASSERT_EQ(payload, first) << "s " << s << " SIMD level " << static_cast<int>(level);
                ASSERT_EQ(DecodeAll(*codec, layout, payload),
                          ReferenceQsgd(layout, x, payload, s, bucket, 99))
                    << "s " << s << " bucket " << bucket << " SIMD level "
                    << static_cast<int>(level);
            }
        }
    }
}

/// Normal values with every 37th one made 30 times larger, so that buckets hold levels well
/// above 3 (the encoder's general path) and, for s >= 63, codes longer than the decoder's
/// table (its long-code path).
std::vector<float>
SpikyUpdate(size_t n, uint64_t seed)
{
    auto x = NormalUpdate(n, seed);
    for (size_t i = 0; i < n; i += 37)
    {
        x[i] *= 30.0f;
    }
    return x;
}

TEST(QsgdCodec, ManyBucketsDecodeInterleavedLikeTheReferenceOnEveryPath)
{
    // Enough buckets for the interleaved decoder (four at a time, handing out the next one as
    // each finishes), bucket sizes around its minimum of 28, and a tensor after the long one.
    const TensorLayout layout({{"long", {20 * 512 + 77}}, {"short", {300}}});
    const std::vector<std::vector<float>> inputs = {NormalUpdate(layout.TotalSize(), 41),
                                                    SpikyUpdate(layout.TotalSize(), 42)};
    for (const auto& x : inputs)
    {
        for (const uint32_t s : {1u, 3u, 16u, 62u, 63u, 126u, 127u, 128u, 3000u})
        {
            for (const uint32_t bucket : {512u, 28u, 29u, 100u})
            {
                auto codec = Qsgd(s, bucket);
                std::vector<uint8_t> first;
                for (const auto level : kSimdLevels)
                {
                    SimdCap cap(level);
                    const auto payload = EncodeWithSeed(*codec, layout, x, 7);
                    if (first.empty())
                    {
                        first = payload;
                    }
                    ASSERT_EQ(payload, first) << "s " << s << " bucket " << bucket << " SIMD level "
                                              << static_cast<int>(level);
                    ASSERT_EQ(DecodeAll(*codec, layout, payload),
                              ReferenceQsgd(layout, x, payload, s, bucket, 7))
                        << "s " << s << " bucket " << bucket << " SIMD level "
                        << static_cast<int>(level);
                }
            }
        }
    }
}

TEST(QsgdCodec, EmptyTensorsAndSingleElements)
{
    auto codec = Qsgd(16, 512);
    const TensorLayout empty(std::vector<TensorSpec>{{"e", {0}}});
    const auto nothing = EncodeWithSeed(*codec, empty, {}, 1);
    EXPECT_EQ(nothing.size(), 16u); // headers only: no norms, lengths or stream
    EXPECT_TRUE(DecodeAll(*codec, empty, nothing).empty());

    const TensorLayout one({{"e", {0}}, {"x", {1}}, {"f", {0}}});
    for (const float v : {0.0f, 2.5f, -1e-3f})
    {
        const auto payload = EncodeWithSeed(*codec, one, {v}, 1);
        // norm, 2-byte length, then the code of level 0 (1 bit) or s (|v| is the norm: 10 bits).
        ASSERT_EQ(payload.size(), 16u + 4 + 2 + (v == 0.0f ? 1 : 2));
        EXPECT_EQ(DecodeAll(*codec, one, payload), std::vector<float>{v}) << v;
        EXPECT_EQ(UIntAt(payload, 20, 2), v == 0.0f ? 1u : CodeLength(16));
    }
}

TEST(QsgdCodec, BucketBoundariesAndLengthWidths)
{
    const auto x = NormalUpdate(2100, 43);
    for (const uint32_t bucket : {1u, 64u, 512u, 1000u})
    {
        for (const size_t d :
             {size_t{bucket} - 1, size_t{bucket}, size_t{bucket} + 1, 2 * size_t{bucket}})
        {
            if (d == 0)
            {
                continue;
            }
            const TensorLayout layout({{"v", {static_cast<uint32_t>(d)}}});
            const std::vector<float> v(x.begin(), x.begin() + static_cast<ptrdiff_t>(d));
            auto codec = Qsgd(16, bucket);
            const auto payload = EncodeWithSeed(*codec, layout, v, 3);
            ASSERT_EQ(DecodeAll(*codec, layout, payload),
                      ReferenceQsgd(layout, v, payload, 16, bucket, 3))
                << "bucket " << bucket << " d " << d;
        }
    }
    // Bucket lengths widen to 4 bytes past 65535 bits (bucket x Lmax; Lmax = 10 at s = 16) and
    // to 8 past 2^32 - 1.
    const TensorLayout layout({{"v", {2100}}});
    for (const auto& [bucket, width] : {std::pair{6553u, 2u},
                                        std::pair{6554u, 4u},
                                        std::pair{429496729u, 4u},
                                        std::pair{429496730u, 8u}})
    {
        auto codec = Qsgd(16, bucket);
        const auto payload = EncodeWithSeed(*codec, layout, x, 3);
        ASSERT_EQ(LengthBytes(16, bucket), width);
        EXPECT_EQ(DecodeAll(*codec, layout, payload),
                  ReferenceQsgd(layout, x, payload, 16, bucket, 3))
            << "bucket " << bucket;
    }
}

TEST(QsgdCodec, CorruptBucketLengthsAreRejectedAtTheirOffset)
{
    const TensorLayout layout({{"v", {12 * 100}}});
    const auto x = NormalUpdate(layout.TotalSize(), 44);
    auto codec = Qsgd(16, 100);
    const auto payload = EncodeWithSeed(*codec, layout, x, 1);
    constexpr size_t kLengthsAt = 16 + 4 * 12; // after 12 norms
    constexpr size_t kStreamAt = kLengthsAt + 2 * 12;
    auto length = [&](const std::vector<uint8_t>& p, size_t j) {
        return static_cast<uint16_t>(UIntAt(p, kLengthsAt + 2 * j, 2));
    };
    auto setLength = [&](std::vector<uint8_t>& p, size_t j, uint64_t bits) {
        p[kLengthsAt + 2 * j] = static_cast<uint8_t>(bits);
        p[kLengthsAt + 2 * j + 1] = static_cast<uint8_t>(bits >> 8);
    };
    for (const auto level : kSimdLevels)
    {
        SimdCap cap(level);
        ASSERT_NO_THROW(DecodeAll(*codec, layout, payload));
        // Shorter than one bit per element, longer than the longest codes.
        for (const uint64_t bits : {0u, 99u, 100u * CodeLength(16) + 1, 65535u})
        {
            auto bad = payload;
            setLength(bad, 5, bits);
            EXPECT_EQ(DecodeErrorOffset(*codec, layout, bad), kLengthsAt + 2 * 5) << bits;
        }
        // Bits moved from one bucket to the next: the sum still fits the stream, but bucket
        // 6's codes no longer end where its length says. The first such bucket is named, on
        // the interleaved path too.
        for (const size_t j : {2u, 9u})
        {
            auto bad = payload;
            setLength(bad, j, length(payload, j) + 1);
            setLength(bad, j + 1, length(payload, j + 1) - 1);
            EXPECT_EQ(DecodeErrorOffset(*codec, layout, bad), kLengthsAt + 2 * j) << j;
            bad = payload;
            setLength(bad, j, length(payload, j) - 3);
            setLength(bad, j + 1, length(payload, j + 1) + 3);
            EXPECT_EQ(DecodeErrorOffset(*codec, layout, bad), kLengthsAt + 2 * j) << j;
        }
        // Lengths that add up to more than the payload holds.
        auto bad = payload;
        setLength(bad, 11, length(payload, 11) + 64);
        EXPECT_EQ(DecodeErrorOffset(*codec, layout, bad), kStreamAt);
        // Lengths that add up to less: the bytes after the stream are trailing.
        bad = payload;
        setLength(bad, 11, length(payload, 11) - 16);
        const size_t offset = DecodeErrorOffset(*codec, layout, bad);
        EXPECT_GE(offset, kStreamAt);
        EXPECT_LE(offset, payload.size());
    }
}

TEST(QsgdCodec, RoundTripIsWithinOneLevelAndKeepsSigns)
{
    const TensorLayout layout = Mixed();
    const auto x = NormalUpdate(layout.TotalSize(), 32, 0.01);
    for (const uint32_t s : {1u, 4u, 16u, 255u, 100000u})
    {
        auto codec = Qsgd(s, 64);
        const auto decoded = DecodeAll(*codec, layout, EncodeWithSeed(*codec, layout, x, s));
        for (size_t t = 0; t < layout.TensorCount(); ++t)
        {
            const size_t d = layout.Tensors()[t].Size();
            for (size_t begin = 0; begin < d; begin += 64)
            {
                double sumOfSquares = 0.0;
                const size_t end = std::min<size_t>(d, begin + 64);
                for (size_t i = begin; i < end; ++i)
                {
                    sumOfSquares += double{x[layout.Offset(t) + i]} * x[layout.Offset(t) + i];
                }
                const double level = std::sqrt(sumOfSquares) / s;
                for (size_t i = layout.Offset(t) + begin; i < layout.Offset(t) + end; ++i)
                {
                    ASSERT_LE(std::fabs(decoded[i] - x[i]), level * 1.00001) << "s " << s;
                    ASSERT_TRUE(decoded[i] == 0.0f || (decoded[i] < 0) == (x[i] < 0));
                }
            }
        }
    }
}

TEST(QsgdCodec, IsUnbiased)
{
    const TensorLayout layout({{"v", {40}}});
    std::vector<float> x(40);
    for (size_t i = 0; i < x.size(); ++i)
    {
        x[i] = static_cast<float>(std::sin(0.3 + 1.9 * i));
    }
    x[5] = 0.0f;
    constexpr int kSeeds = 4000;
    for (const uint32_t s : {1u, 4u, 16u})
    {
        auto codec = Qsgd(s, 16);
        std::vector<double> sum(x.size(), 0.0);
        for (int seed = 0; seed < kSeeds; ++seed)
        {
            const auto decoded = DecodeAll(*codec, layout, EncodeWithSeed(*codec, layout, x, seed));
            for (size_t i = 0; i < x.size(); ++i)
            {
                sum[i] += decoded[i];
            }
        }
        for (size_t i = 0; i < x.size(); ++i)
        {
            double sumOfSquares = 0.0;
            for (size_t k = i / 16 * 16; k < std::min<size_t>(40, i / 16 * 16 + 16); ++k)
            {
                sumOfSquares += double{x[k]} * x[k];
            }
            // Two outcomes one level apart: standard deviation <= level / 2.
            const double level = std::sqrt(sumOfSquares) / s;
            const double se = level / 2 / std::sqrt(double{kSeeds});
            EXPECT_NEAR(sum[i] / kSeeds, x[i], 5 * se + level * 0x1p-15) << "s " << s << " i " << i;
        }
    }
}

TEST(QsgdCodec, VarianceMatchesTheoryAndMeetsTheBound)
{
    constexpr size_t kD = 512;
    const TensorLayout layout({{"v", {kD}}});
    auto spiky = NormalUpdate(kD, 33);
    spiky[100] = 40.0f;
    for (const auto& x : {NormalUpdate(kD, 34), spiky})
    {
        double norm2 = 0.0;
        for (const float v : x)
        {
            norm2 += double{v} * v;
        }
        for (const uint32_t s : {1u, 2u, 4u, 16u, 127u})
        {
            auto codec = Qsgd(s, kD);
            // E||Q - x||^2 = sum (norm / s)^2 p (1 - p), p the fractional part of s|x| / norm.
            const double level = std::sqrt(norm2) / s;
            double expected = 0.0;
            for (const float v : x)
            {
                const double u = std::fabs(v) / level;
                const double p = u - std::floor(u);
                expected += level * level * p * (1 - p);
            }
            constexpr int kSeeds = 400;
            double sum = 0.0;
            double sumSq = 0.0;
            for (int seed = 0; seed < kSeeds; ++seed)
            {
                const auto decoded =
                    DecodeAll(*codec, layout, EncodeWithSeed(*codec, layout, x, seed));
                double error = 0.0;
                for (size_t i = 0; i < kD; ++i)
                {
                    error += (double{decoded[i]} - x[i]) * (double{decoded[i]} - x[i]);
                }
                sum += error;
                sumSq += error * error;
            }
            const double mean = sum / kSeeds;
            const double se = std::sqrt((sumSq / kSeeds - mean * mean) / kSeeds);
            EXPECT_NEAR(mean, expected, 5 * se + 1e-6 * expected) << "s " << s;
            const double bound = std::min(kD / double(s) / s, std::sqrt(double{kD}) / s) * norm2;
            EXPECT_LE(mean, bound) << "s " << s;
        }
    }
}

TEST(QsgdCodec, ZeroTinyAndNonFiniteBuckets)
{
    const TensorLayout layout({{"v", {3000}}});
    std::vector<float> x(3000, 0.0f);
    auto codec = Qsgd(16, 1000);
    auto payload = EncodeWithSeed(*codec, layout, x, 1);
    EXPECT_EQ(payload.size(), 16u + 3 * (4 + 2) + 375); // one bit per zero
    EXPECT_EQ(DecodeAll(*codec, layout, payload), x);

    for (size_t i = 0; i < 1000; ++i)
    {
        x[i] = static_cast<float>(std::sin(i)) * 1e-42f; // subnormal: the double path
        x[1000 + i] = static_cast<float>(std::cos(i));
    }
    x[2500] = std::numeric_limits<float>::infinity();
    const auto decoded = DecodeAll(*codec, layout, EncodeWithSeed(*codec, layout, x, 1));
    double tinyNorm = 0.0;
    for (size_t i = 0; i < 1000; ++i)
    {
        tinyNorm += double{x[i]} * x[i];
    }
    for (size_t i = 0; i < 1000; ++i)
    {
        ASSERT_LE(std::fabs(decoded[i] - x[i]), std::sqrt(tinyNorm) / 16 * 1.01 + 1e-44) << i;
    }
    for (size_t i = 2000; i < 3000; ++i)
    {
        ASSERT_TRUE(std::isnan(decoded[i])) << i;
    }
}

TEST(QsgdCodec, BucketsWhoseNormOverflowsAreSentAsNaN)
{
    const TensorLayout layout({{"v", {4}}});
    auto codec = Qsgd(16, 2);
    const std::vector<float> x = {3e38f, -3e38f, 1.0f, -2.0f};
    const auto decoded = DecodeAll(*codec, layout, EncodeWithSeed(*codec, layout, x, 1));
    EXPECT_TRUE(std::isnan(decoded[0]));
    EXPECT_TRUE(std::isnan(decoded[1]));
    EXPECT_LE(std::fabs(decoded[2] - 1.0f), std::sqrt(5.0f) / 16 * 1.0001f);
    EXPECT_LE(std::fabs(decoded[3] + 2.0f), std::sqrt(5.0f) / 16 * 1.0001f);
}

TEST(QsgdCodec, RejectsBadFields)
{
    const TensorLayout layout({{"v", {300}}});
    const auto x = NormalUpdate(300, 35);
    auto codec = Qsgd(16, 200);
    const auto payload = EncodeWithSeed(*codec, layout, x, 1);
    EXPECT_NO_THROW(DecodeAll(*codec, layout, payload));
    for (const uint32_t levels : {0u, (1u << 20) + 1, ~0u})
    {
        auto bad = payload;
        PutU32(bad, 8, levels);
        EXPECT_EQ(DecodeErrorOffset(*codec, layout, bad), 8u);
    }
    auto bad = payload;
    PutU32(bad, 12, 0);
    EXPECT_EQ(DecodeErrorOffset(*codec, layout, bad), 12u);
    for (const float norm : {-2.0f, -0.0f, -std::numeric_limits<float>::infinity()})
    {
        bad = payload;
        PutU32(bad, 20, std::bit_cast<uint32_t>(norm));
        EXPECT_EQ(DecodeErrorOffset(*codec, layout, bad), 20u);
    }
    // Levels above s: the stream (from byte 28, after two norms and two u16 lengths) was
    // written for s = 16 and is read as s = 1.
    bad = payload;
    PutU32(bad, 8, 1);
    const size_t offset = DecodeErrorOffset(*codec, layout, bad);
    EXPECT_GE(offset, 28u);
    EXPECT_LT(offset, payload.size());
    // A run of zeros longer than any code of s = 16.
    bad = payload;
    std::fill(bad.begin() + 28, bad.begin() + 44, 0);
    EXPECT_EQ(DecodeErrorOffset(*codec, layout, bad), 28u);
    // Trailing bytes, and padding bits that are not zero.
    bad = payload;
    bad.push_back(0);
    EXPECT_EQ(DecodeErrorOffset(*codec, layout, bad), payload.size());
    const auto zeros = EncodeWithSeed(*codec, layout, std::vector<float>(300, 0.0f), 1);
    ASSERT_EQ(zeros.size(), 16u + 2 * (4 + 2) + 38); // 300 one-bit codes: 4 padding bits
    bad = zeros;
    bad.back() |= 0x10;
    EXPECT_EQ(DecodeErrorOffset(*codec, layout, bad), zeros.size() - 1);
}

TEST(QsgdCodec, SurvivesTruncationAndRandomCorruption)
{
    const TensorLayout layout = Mixed();
    const auto x = NormalUpdate(layout.TotalSize(), 36);
    for (const uint32_t s : {2u, 16u, 100u, 5000u})
    {
        auto codec = Qsgd(s, 100);
        const auto payload = EncodeWithSeed(*codec, layout, x, 1);
        for (size_t length = 0; length < payload.size(); ++length)
        {
            const std::vector<uint8_t> prefix(payload.begin(), payload.begin() + length);
            EXPECT_LE(DecodeErrorOffset(*codec, layout, prefix), length);
        }
        ExpectCorruptionIsHandled(*codec, layout, payload, s, 2000);
    }
}

TEST(QsgdCodec, ParameterErrorsNameThePathAndDefaultsAreWritten)
{
    EXPECT_EQ(ConfigError({{"type", "qsgd"}, {"levels", 0}}),
              "compression.uplink.levels: must be an integer in 1..1048576 (2^20), got 0");
    EXPECT_EQ(ConfigError({{"type", "qsgd"}, {"levels", 1048577}}),
              "compression.uplink.levels: must be an integer in 1..1048576 (2^20), got 1048577");
    EXPECT_EQ(
        ConfigError({{"type", "qsgd"}, {"levels", 1.5}}).rfind("compression.uplink.levels: ", 0),
        0u);
    EXPECT_EQ(ConfigError({{"type", "qsgd"}, {"bucket", 0}}),
              "compression.uplink.bucket: must be an integer >= 1, got 0");
    EXPECT_EQ(ConfigError({{"type", "qsgd"}, {"bits", 4}}),
              "compression.uplink.bits: unknown key for codec 'qsgd'");
    auto codec = MakeFromJson({{"type", "qsgd"}});
    EXPECT_EQ(codec->Id(), 21);
    const auto payload =
        EncodeWithSeed(*codec, TensorLayout({{"v", {10}}}), NormalUpdate(10, 1), 1);
    EXPECT_EQ(payload[8], 16); // levels
    EXPECT_EQ(payload[13], 2); // bucket 512 = 0x200
}

} // namespace
} // namespace fedran
