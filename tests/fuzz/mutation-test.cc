// Randomized-mutation fuzzing of the frame parser, every codec decoder and the two-exchange
// codec's message parsers, run in CI under ASan/UBSan. Inputs start from valid encodings and
// are bit-flipped, truncated, extended, spliced and overwritten with extreme values; every
// input must be handled without a crash.

#include "fuzz-targets.h"

#include "compression/rng.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace fedran::fuzz
{
namespace
{

/// Iterations per seed; FEDRAN_FUZZ_ITERATIONS raises it for a longer local run.
size_t
Iterations()
{
    const char* env = std::getenv("FEDRAN_FUZZ_ITERATIONS");
    return env ? std::strtoull(env, nullptr, 10) : 20000;
}

std::vector<uint8_t>
Mutate(const std::vector<uint8_t>& seed, Rng& rng)
{
    std::vector<uint8_t> m = seed;
    const int edits = 1 + static_cast<int>(rng.UniformInt(4));
    for (int e = 0; e < edits; ++e)
    {
        // Never touch byte 0 of a codec input too often: it selects the codec.
        const size_t at = m.size() > 1 ? 1 + rng.UniformInt(m.size() - 1) : 0;
        switch (rng.UniformInt(6))
        {
        case 0: // flip one bit
            if (!m.empty())
            {
                m[at % m.size()] ^= static_cast<uint8_t>(1u << rng.UniformInt(8));
            }
            break;
        case 1: // truncate
            m.resize(rng.UniformInt(m.size() + 1));
            break;
        case 2: // append random bytes
            for (uint64_t i = rng.UniformInt(16); i > 0; --i)
            {
                m.push_back(static_cast<uint8_t>(rng.NextU64()));
            }
            break;
        case 3: // overwrite 4 bytes with an extreme little-endian value (lengths, counts)
        {
            static const uint32_t extremes[] = {0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 64};
            const uint32_t v = extremes[rng.UniformInt(6)];
            for (int b = 0; b < 4 && at + b < m.size(); ++b)
            {
                m[at + b] = static_cast<uint8_t>(v >> (8 * b));
            }
            break;
        }
        case 4: // random byte
            if (!m.empty())
            {
                m[at % m.size()] = static_cast<uint8_t>(rng.NextU64());
            }
            break;
        default: // duplicate a slice
            if (m.size() > 2)
            {
                const size_t from = rng.UniformInt(m.size());
                const size_t len = rng.UniformInt(m.size() - from);
                m.insert(m.begin() + at % m.size(), m.begin() + from, m.begin() + from + len);
            }
        }
    }
    return m;
}

void
RunMutations(void (*target)(const uint8_t*, size_t), const std::vector<std::vector<uint8_t>>& seeds)
{
    ASSERT_FALSE(seeds.empty());
    Rng rng(2024);
    for (const auto& seed : seeds)
    {
        target(seed.data(), seed.size()); // the valid input first
        for (size_t i = 0; i < Iterations(); ++i)
        {
            const std::vector<uint8_t> input = Mutate(seed, rng);
            target(input.data(), input.size());
        }
    }
    // Pure noise too.
    for (size_t i = 0; i < Iterations(); ++i)
    {
        std::vector<uint8_t> noise(rng.UniformInt(200));
        for (auto& b : noise)
        {
            b = static_cast<uint8_t>(rng.NextU64());
        }
        target(noise.data(), noise.size());
    }
}

TEST(Fuzz, FrameStreamSurvivesMutations)
{
    RunMutations(&FuzzFrameStream, FrameStreamSeeds());
}

TEST(Fuzz, EveryCodecDecoderSurvivesMutations)
{
    RunMutations(&FuzzCodecDecode, CodecDecodeSeeds());
}

TEST(Fuzz, TwoExchangeMessagesSurviveMutations)
{
    RunMutations(&FuzzExchangeMessages, ExchangeMessageSeeds());
}

} // namespace
} // namespace fedran::fuzz
