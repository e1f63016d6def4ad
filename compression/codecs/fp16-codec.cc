// "fp16": every value rounded to IEEE binary16 (nearest, ties to even), 8 + 2d bytes with no
// padding. Relative error at most 2^-11 for |x| in [2^-14, 65504]; smaller values lose
// precision gradually, and |x| >= 65520 becomes +-inf. Deterministic, so it needs no rng.

#include "compression/internal/byte-io.h"
#include "compression/internal/codecs.h"
#include "compression/internal/half.h"
#include "compression/internal/payload-header.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <thread>
#include <vector>

namespace fedran::internal
{

namespace
{

// Values are converted through a small stack buffer: the conversion loop then has no
// byte-order or bounds logic in it and vectorises, and the buffer stays in L1.
constexpr size_t kFp16Chunk = 1024;
// Below this a tensor is not worth a thread: starting one costs about as much as converting
// this many values.
constexpr size_t kPartitionMin = 1 << 16;

class Fp16Codec : public RegisteredCodec
{
  public:
    std::unique_ptr<Codec> Clone() const override
    {
        return std::make_unique<Fp16Codec>(*this);
    }

    bool BiasedError() const override
    {
        return true;
    }

    using RegisteredCodec::RegisteredCodec;

    void SetEncodeThreads(unsigned threads) override
    {
        m_threads = std::max(1u, threads);
    }

    void Encode(const TensorLayout& layout,
                std::span<const float> update,
                Rng& /* rng */,
                std::vector<uint8_t>& out) override
    {
        CheckUpdateSize(layout, update.size(), Name());
        ByteWriter writer(out);
        writer.Reserve(kPayloadHeaderSize + 2 * update.size());
        WritePayloadHeader(layout, writer);
        if (m_threads > 1 && update.size() >= kPartitionMin)
        {
            EncodePartitioned(update, out);
            return;
        }
        std::array<uint16_t, kFp16Chunk> halves;
        for (size_t begin = 0; begin < update.size(); begin += kFp16Chunk)
        {
            const size_t n = std::min(kFp16Chunk, update.size() - begin);
            const float* in = update.data() + begin;
            for (size_t i = 0; i < n; ++i)
            {
                halves[i] = FloatToHalf(in[i]);
            }
            writer.WriteU16Array(std::span<const uint16_t>(halves.data(), n));
        }
    }

    void Decode(const TensorLayout& layout,
                std::span<const uint8_t> payload,
                std::span<float> out) override
    {
        CheckUpdateSize(layout, out.size(), Name());
        ByteReader reader(payload);
        ReadPayloadHeader(layout, reader);
        // Check the whole body length first so that a truncated payload leaves `out` alone
        // instead of half-written.
        reader.Require(out.size(), 2);
        std::array<uint16_t, kFp16Chunk> halves;
        for (size_t begin = 0; begin < out.size(); begin += kFp16Chunk)
        {
            const size_t n = std::min(kFp16Chunk, out.size() - begin);
            reader.ReadU16Array(std::span<uint16_t>(halves.data(), n));
            float* dst = out.data() + begin;
            for (size_t i = 0; i < n; ++i)
            {
                dst[i] = HalfToFloat(halves[i]);
            }
        }
        reader.ExpectEnd();
    }

  private:
    /// Converts values[begin, end) into halves at dst, 2 bytes each, little-endian. The
    /// conversion goes through the same stack buffer as the one-thread path so that it
    /// vectorises; converting straight into bytes keeps it scalar and three times slower.
    static void ConvertSlice(const float* values, size_t count, uint8_t* dst)
    {
        std::array<uint16_t, kFp16Chunk> halves;
        for (size_t begin = 0; begin < count; begin += kFp16Chunk)
        {
            const size_t n = std::min(kFp16Chunk, count - begin);
            for (size_t i = 0; i < n; ++i)
            {
                halves[i] = FloatToHalf(values[begin + i]);
            }
            uint8_t* out = dst + 2 * begin;
            if constexpr (std::endian::native == std::endian::little)
            {
                std::memcpy(out, halves.data(), 2 * n);
            }
            else
            {
                for (size_t i = 0; i < n; ++i)
                {
                    out[2 * i] = static_cast<uint8_t>(halves[i]);
                    out[2 * i + 1] = static_cast<uint8_t>(halves[i] >> 8);
                }
            }
        }
    }

    /// The body (2 bytes per value, in order) of a large update: each value's bytes have a
    /// fixed place, so slices convert side by side into the same bytes as one thread's.
    void EncodePartitioned(std::span<const float> update, std::vector<uint8_t>& out) const
    {
        const size_t base = out.size();
        // The one serial pass left: resize() zero-fills the body before the slices overwrite
        // it (about a fifth of the one-thread encoding time; bench/partition-bench).
        out.resize(base + 2 * update.size());
        uint8_t* body = out.data() + base;
        const size_t slices = std::min<size_t>(m_threads, update.size() / (kPartitionMin / 2));
        // Slice boundaries on whole chunks, so each slice's buffer runs full.
        const size_t per = (update.size() / slices + kFp16Chunk - 1) / kFp16Chunk * kFp16Chunk;
        std::vector<std::thread> workers;
        for (size_t t = 1; t < slices && t * per < update.size(); ++t)
        {
            const size_t begin = t * per;
            const size_t count = std::min(update.size(), begin + per) - begin;
            workers.emplace_back(ConvertSlice, update.data() + begin, count, body + 2 * begin);
        }
        ConvertSlice(update.data(), std::min(update.size(), per), body);
        for (std::thread& worker : workers)
        {
            worker.join();
        }
    }

    unsigned m_threads = 1;
};

} // namespace

std::unique_ptr<Codec>
MakeFp16Codec(CodecArgs& args)
{
    return std::make_unique<Fp16Codec>(args);
}

} // namespace fedran::internal
