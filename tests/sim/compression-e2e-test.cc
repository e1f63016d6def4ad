// Compression end to end: clients encode with a real codec, the bytes cross ns-3, the server
// decodes and aggregates. Error feedback over top-k 1% must learn nearly as well as
// uncompressed updates while sending a fiftieth of the uplink payload.

#include "sim-test-util.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

struct RunSummary
{
    double accuracy = 0.0;
    uint64_t uplinkPayload = 0;
};

RunSummary
Summarise(const std::filesystem::path& run)
{
    RunSummary summary;
    for (auto& row : ReadCsv(run / "rounds.csv"))
    {
        summary.accuracy = std::stod(row["test_accuracy"]);
        summary.uplinkPayload += std::stoull(row["uplink_payload_bytes"]);
    }
    return summary;
}

TEST(SlowCompression, ErrorFeedbackTopKIsWithinTwoPointsOfNoneWithFiftyTimesLessUplink)
{
    TempDir dir("compression-e2e");
    // 10 clients, all in every round, 30 rounds: with 15 rounds EF is still 3 points behind.
    WriteFile(dir.Path() / "s.json", TinyScenario(10, 10, 30).dump());
    ASSERT_EQ(RunFedran("run s.json --out none --quiet", dir.Path()).exitCode, 0);
    CommandResult r = RunFedran(
        "run s.json --out ef --quiet --set 'compression.uplink={\"type\":\"error_feedback\","
        "\"base\":{\"type\":\"top_k\",\"ratio\":0.01}}'",
        dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;

    const RunSummary none = Summarise(dir.Path() / "none");
    const RunSummary ef = Summarise(dir.Path() / "ef");
    EXPECT_GT(none.accuracy, 0.8);
    EXPECT_GE(ef.accuracy, none.accuracy - 0.02);
    EXPECT_GE(double(none.uplinkPayload) / double(ef.uplinkPayload), 50.0);
}

TEST(Compression, SignWithMajorityVoteAndVotedSignsDownLearns)
{
    TempDir dir("sign");
    WriteFile(dir.Path() / "s.json", TinyScenario(5, 5, 5).dump());
    CommandResult r = RunFedran(
        "run s.json --out out --quiet "
        "--set 'compression.uplink={\"type\":\"sign\",\"aggregation\":\"majority_vote\"}' "
        "--set 'compression.downlink={\"type\":\"sign\"}' "
        "--set compression.downlink_reference=client_view",
        dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    auto rounds = ReadCsv(dir.Path() / "out" / "rounds.csv");
    // 1 bit per element each way: 7,850 weights -> 982 bytes + scales + headers.
    for (auto& c : ReadCsv(dir.Path() / "out" / "clients.csv"))
    {
        EXPECT_LT(std::stoull(c["payload_bytes"]), 1100u);
        EXPECT_LT(std::stoull(c["downlink_payload_bytes"]), 1100u);
    }
    // Measured 0.78 after 5 rounds (0.68 after the first).
    EXPECT_GT(std::stod(rounds.back()["test_accuracy"]), 0.7);
}

} // namespace
} // namespace fedran::test
