// Randomized-mutation fuzzing of the frame parser, every codec decoder and the two-exchange
// codec's message parsers, run in CI under ASan/UBSan. Inputs start from valid encodings and
// are bit-flipped, truncated, extended, spliced and overwritten with extreme values; every
// input must be handled without a crash.

#include "compression/rng.h"
#include "fuzz-targets.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

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

/// Runs `target` on each seed and `iterations` mutations of it, then on as many inputs of
/// pure noise; returns the number of executions. A finding (a crash, a sanitizer report, an
/// exception the target does not expect) ends the test run or fails the test.
uint64_t
RunMutations(void (*target)(const uint8_t*, size_t),
             const std::vector<std::vector<uint8_t>>& seeds,
             size_t iterations = Iterations())
{
    EXPECT_FALSE(seeds.empty());
    uint64_t executions = 0;
    Rng rng(2024);
    for (const auto& seed : seeds)
    {
        target(seed.data(), seed.size()); // the valid input first
        ++executions;
        for (size_t i = 0; i < iterations; ++i)
        {
            const std::vector<uint8_t> input = Mutate(seed, rng);
            target(input.data(), input.size());
            ++executions;
        }
    }
    // Pure noise too.
    for (size_t i = 0; i < iterations; ++i)
    {
        std::vector<uint8_t> noise(rng.UniformInt(200));
        for (auto& b : noise)
        {
            b = static_cast<uint8_t>(rng.NextU64());
        }
        target(noise.data(), noise.size());
        ++executions;
    }
    return executions;
}

/// The run's figures, on stdout (ctest --verbose, the CI log) and in the test's XML output.
void
Report(const char* target, uint64_t executions, uint64_t findings)
{
    std::printf("fuzz %s: %llu executions, %llu findings\n",
                target,
                static_cast<unsigned long long>(executions),
                static_cast<unsigned long long>(findings));
    ::testing::Test::RecordProperty("executions", std::to_string(executions));
    ::testing::Test::RecordProperty("findings", std::to_string(findings));
}

// The byte targets have no finding to count: a crash or sanitizer report ends the process, and
// an exception other than the decoder's own fails the test. Reaching Report means none.
TEST(Fuzz, FrameStreamSurvivesMutations)
{
    const uint64_t executions = RunMutations(&FuzzFrameStream, FrameStreamSeeds());
    Report("frame-stream", executions, HasFailure() ? 1 : 0);
}

TEST(Fuzz, EveryCodecDecoderSurvivesMutations)
{
    const uint64_t executions = RunMutations(&FuzzCodecDecode, CodecDecodeSeeds());
    Report("codec-decode", executions, HasFailure() ? 1 : 0);
}

TEST(Fuzz, TwoExchangeMessagesSurviveMutations)
{
    const uint64_t executions = RunMutations(&FuzzExchangeMessages, ExchangeMessageSeeds());
    Report("exchange-messages", executions, HasFailure() ? 1 : 0);
}

TEST(Fuzz, ScenarioReaderValidatorAndSetParserSurviveMutations)
{
    const std::vector<std::vector<uint8_t>> seeds = ScenarioSeeds();
    // Every seed (each shipped scenario, each --set assignment) is itself accepted.
    for (const auto& seed : seeds)
    {
        FuzzScenario(seed.data(), seed.size());
    }
    const ScenarioFuzzCounts valid = TakeScenarioFuzzCounts();
    EXPECT_EQ(valid.accepted, seeds.size()) << valid.firstRejection << valid.firstFinding;
    // A fortieth of the iterations per seed (500 by default): each input is parsed, validated
    // against the whole schema and typed, about a hundred times the work of a codec input.
    RunMutations(&FuzzScenario, seeds, std::max<size_t>(Iterations() / 40, 1));
    const ScenarioFuzzCounts counts = TakeScenarioFuzzCounts();
    std::printf("fuzz scenario: %llu accepted, %llu rejected as scenario errors\n",
                static_cast<unsigned long long>(counts.accepted),
                static_cast<unsigned long long>(counts.rejected));
    Report("scenario", counts.executions, counts.findings);
    EXPECT_EQ(counts.findings, 0u) << counts.firstFinding;
    EXPECT_GT(counts.accepted, seeds.size()) << "some mutations stay valid";
    EXPECT_GT(counts.rejected, 0u);
}

} // namespace
} // namespace fedran::fuzz
