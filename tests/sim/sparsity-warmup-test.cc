// A sparsity warm-up end to end: top_k's per-round size over ns-3, on the uplink and on the
// downlink, follows the warm-up schedule, and every update and model decodes (the decoders are
// told the round too).

#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace fedran::test
{
namespace
{

/// Bytes of a top_k frame of the softmax model (784 x 10 weights, 10 biases) keeping the given
/// density: frame header 28, payload header 8, per tensor u8 mode, u32 count, the index set
/// (delta varints of 1 to 5 bytes each, or a bitmap when smaller) and 4 bytes per value.
std::pair<uint64_t, uint64_t>
TopKFrameBytes(double density)
{
    uint64_t lo = 28 + 8;
    uint64_t hi = lo;
    for (uint64_t d : {7840u, 10u})
    {
        const auto k = std::max<uint64_t>(1, uint64_t(density * double(d)));
        const uint64_t bitmap = (d + 7) / 8;
        lo += 5 + std::min(k, bitmap) + 4 * k;
        hi += 5 + std::min(5 * k, bitmap) + 4 * k;
    }
    return {lo, hi};
}

TEST(SparsityWarmup, TopKFrameSizesFollowTheScheduleOnBothLinks)
{
    TempDir dir("warmup");
    nlohmann::json s = TinyScenario(2, 2, 7);
    // 6 warm-up rounds in 3 steps of 2 (25%, 6.25%, 1.5625%), then 0.1%.
    const nlohmann::json topK = {{"type", "top_k"},
                                 {"ratio", 0.001},
                                 {"warmup_rounds", 6},
                                 {"warmup_stages", 3}};
    s["compression"] = {{"uplink", {{"type", "error_feedback"}, {"base", topK}}},
                        {"downlink", topK}};
    WriteFile(dir.Path() / "s.json", s.dump());
    CommandResult r = RunFedran("run s.json --out out --quiet", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    const std::vector<double> density = {0.25, 0.25, 0.0625, 0.0625, 0.015625, 0.015625, 0.001};
    const auto clients = ReadCsv(dir.Path() / "out" / "clients.csv");
    ASSERT_EQ(clients.size(), 14u);
    for (const auto& row : clients)
    {
        const size_t round = std::stoul(row.at("round"));
        const auto [lo, hi] = TopKFrameBytes(density.at(round - 1));
        EXPECT_EQ(row.at("status"), "completed") << "round " << round;
        const uint64_t up = std::stoull(row.at("payload_bytes"));
        const uint64_t down = std::stoull(row.at("downlink_payload_bytes"));
        EXPECT_GE(up, lo) << "round " << round;
        EXPECT_LE(up, hi) << "round " << round;
        EXPECT_GE(down, lo) << "round " << round;
        EXPECT_LE(down, hi) << "round " << round;
    }
    // The ranges of neighbouring steps do not overlap, so the checks above pin each round.
    for (size_t i = 1; i < density.size(); ++i)
    {
        if (density[i] != density[i - 1])
        {
            EXPECT_LT(TopKFrameBytes(density[i]).second, TopKFrameBytes(density[i - 1]).first);
        }
    }
}

} // namespace
} // namespace fedran::test
