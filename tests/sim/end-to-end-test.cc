// A whole FL run through the fedran executable: real training, real frames over ns-3 TCP,
// traces on disk. The byte columns must agree with each other and with the frame format.

#include "compression/codec.h"
#include "models/fl/update-frame.h"
#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <numeric>

namespace fedran::test
{
namespace
{

uint64_t
U64(const std::string& text)
{
    return std::stoull(text);
}

class EndToEnd : public ::testing::Test
{
  protected:
    static void SetUpTestSuite()
    {
        s_dir = new TempDir("e2e");
        WriteFile(s_dir->Path() / "tiny.json", TinyScenario(3, 3, 3).dump());
        CommandResult r = RunFedran("run tiny.json --out out --quiet", s_dir->Path());
        ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    }

    static void TearDownTestSuite()
    {
        delete s_dir;
        s_dir = nullptr;
    }

    static std::filesystem::path Out()
    {
        return s_dir->Path() / "out";
    }

    static TempDir* s_dir;
};

TempDir* EndToEnd::s_dir = nullptr;

TEST_F(EndToEnd, AccuracyRisesWellAboveChance)
{
    auto rounds = ReadCsv(Out() / "rounds.csv");
    ASSERT_EQ(rounds.size(), 3u);
    const double first = std::stod(rounds.front()["test_accuracy"]);
    const double last = std::stod(rounds.back()["test_accuracy"]);
    // One round of softmax on a third of Fashion-MNIST already gets far from chance (0.1).
    EXPECT_GT(first, 0.6);
    EXPECT_GT(last, 0.75);
    EXPECT_GE(last, first - 0.01);
}

TEST_F(EndToEnd, UplinkPayloadIsTheSumOfEncodedFrames)
{
    auto rounds = ReadCsv(Out() / "rounds.csv");
    auto clients = ReadCsv(Out() / "clients.csv");
    ASSERT_EQ(clients.size(), 9u);
    // softmax on 784 features, 10 classes: 7850 floats, "none" payload = 8-byte header + 4/float
    const uint64_t frame = kFrameHeaderSize + 8 + 4 * 7850;
    for (auto& row : rounds)
    {
        uint64_t sum = 0;
        for (auto& c : clients)
        {
            if (c["round"] == row["round"])
            {
                EXPECT_EQ(c["status"], "completed");
                EXPECT_EQ(U64(c["payload_bytes"]), frame);
                EXPECT_EQ(U64(c["raw_bytes"]), 4u * 7850);
                sum += U64(c["payload_bytes"]);
            }
        }
        EXPECT_EQ(U64(row["participants"]), 3u);
        EXPECT_EQ(U64(row["uplink_payload_bytes"]), sum);
        EXPECT_EQ(U64(row["downlink_payload_bytes"]), 3 * frame);
    }
}

TEST_F(EndToEnd, WireBytesIncludeHeadersSoExceedPayload)
{
    auto rounds = ReadCsv(Out() / "rounds.csv");
    uint64_t cumulative = 0;
    for (auto& row : rounds)
    {
        const uint64_t up = U64(row["uplink_wire_bytes"]);
        const uint64_t down = U64(row["downlink_wire_bytes"]);
        EXPECT_GE(up, U64(row["uplink_payload_bytes"]));
        EXPECT_GE(down, U64(row["downlink_payload_bytes"]));
        // 40 bytes of IP+TCP (plus options) and 2 of PPP per 1448-byte segment: ~3% overhead.
        EXPECT_LT(up, U64(row["uplink_payload_bytes"]) * 1.10);
        cumulative += up + down;
        EXPECT_EQ(U64(row["cumulative_wire_bytes"]), cumulative);
    }
}

TEST_F(EndToEnd, TimesAreOrderedWithinEachClientRow)
{
    auto clients = ReadCsv(Out() / "clients.csv");
    for (auto& c : clients)
    {
        const double received = std::stod(c["model_received_s"]);
        const double start = std::stod(c["upload_start_s"]);
        const double end = std::stod(c["upload_end_s"]);
        // 20000 examples at 20000 examples/s: one second of simulated compute.
        EXPECT_NEAR(std::stod(c["compute_s"]), 1.0, 0.01);
        EXPECT_NEAR(start - received, std::stod(c["compute_s"]), 1e-5);
        // 31 kB over 50 Mbit/s and 2 x 15 ms one way takes more than the propagation delay.
        EXPECT_GT(end - start, 0.015);
    }
}

TEST_F(EndToEnd, CleanNetworkRoundsTakeComputePlusTransfersOnly)
{
    // 1 s of compute, then 31 kB each way over 50 Mbit/s with a 30 ms round trip. A lost
    // packet would cost a retransmission timeout (at least 1 s in ns-3): none may happen here.
    for (auto& row : ReadCsv(Out() / "rounds.csv"))
    {
        EXPECT_GT(std::stod(row["round_duration_s"]), 1.0);
        EXPECT_LT(std::stod(row["round_duration_s"]), 1.3);
    }
}

TEST_F(EndToEnd, PartitionCsvListsEveryClientsSamplesAndLabels)
{
    auto partition = ReadCsv(Out() / "partition.csv");
    ASSERT_EQ(partition.size(), 3u);
    for (size_t i = 0; i < partition.size(); ++i)
    {
        auto& row = partition[i];
        EXPECT_EQ(row["client"], std::to_string(i));
        EXPECT_EQ(row["group"], "sites");
        // IID thirds of Fashion-MNIST's 60,000 training images, 6,000 per class in all.
        EXPECT_EQ(U64(row["samples"]), 20000u);
        uint64_t labelled = 0;
        for (int label = 0; label < 10; ++label)
        {
            const uint64_t count = U64(row["label_" + std::to_string(label)]);
            EXPECT_GT(count, 1700u);
            EXPECT_LT(count, 2300u);
            labelled += count;
        }
        EXPECT_EQ(labelled, 20000u);
    }
}

TEST_F(EndToEnd, ClientsReportUpdateNormAndGradientVariance)
{
    auto clients = ReadCsv(Out() / "clients.csv");
    ASSERT_FALSE(clients.empty());
    for (auto& c : clients)
    {
        // A full epoch of SGD at lr 0.05 moves the softmax weights by O(1), and minibatch
        // gradients of 32 examples scatter: both are positive and finite.
        const double norm = std::stod(c["update_norm"]);
        const double variance = std::stod(c["grad_variance"]);
        EXPECT_GT(norm, 0.1);
        EXPECT_LT(norm, 100.0);
        EXPECT_GT(variance, 0.0);
        EXPECT_LT(variance, 100.0);
    }
}

TEST_F(EndToEnd, RunJsonRecordsTheResolvedScenario)
{
    const auto manifest = nlohmann::json::parse(ReadFile(Out() / "run.json"));
    EXPECT_EQ(manifest["seed"], 7);
    EXPECT_EQ(manifest["scenario"]["rounds"], 3);
    // Defaults are filled in: the resolved scenario is complete.
    EXPECT_EQ(manifest["scenario"]["compression"]["uplink"]["type"], "none");
    EXPECT_EQ(manifest["result"]["rounds"], 3);
    EXPECT_EQ(manifest["files"], nlohmann::json({"rounds.csv", "clients.csv", "partition.csv"}));
    EXPECT_TRUE(manifest.contains("fedran_version"));
    EXPECT_TRUE(manifest.contains("wall_time_s"));
    // The wall-clock breakdown: one entry per round, and events that really ran.
    EXPECT_EQ(manifest["timing"]["round_wall_s"].size(), 3u);
    EXPECT_EQ(manifest["timing"]["round_cpu_s"].size(), 3u);
    EXPECT_GT(manifest["timing"]["simulate_cpu_s"].get<double>(), 0.0);
    EXPECT_GT(manifest["timing"]["events"].get<uint64_t>(), 0u);
    EXPECT_GT(manifest["result"]["access_packets"].get<uint64_t>(), 0u);
}

} // namespace
} // namespace fedran::test
