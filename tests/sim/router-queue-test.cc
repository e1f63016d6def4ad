// The router's ports toward the sites (network.router.queue) in rural-microwave's first three
// rounds: the server sends the model to ten sites at once over the 1 Gbit/s core into 252
// Mbit/s hops, on persistent connections whose windows grew in earlier transfers. With the old
// fixed 100-packet DropTail port, bursts overflow it and downloads lose a 1 s retransmission
// timeout (6 of the first 50 downloads, measured); at one bandwidth-delay product none does.

#include "bulk-transfer.h"
#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace fedran::test
{
namespace
{

/// One bandwidth-delay product of the path behind the port, in 1500-byte packets: 252 Mbit/s
/// times the round trip (core 2 x 10 ms, the 30 km hop 2 x 0.1 ms; the longest, 80 km, adds
/// 0.35 ms more).
uint32_t
BdpPackets()
{
    const double rtt = 2 * 0.010 + 2 * 30e3 / 299'792'458.0;
    return static_cast<uint32_t>(std::ceil(252e6 * rtt / 8 / 1500));
}

/// Downloads of rural-microwave's first 3 rounds slower than 0.9 s (a 1 s retransmission
/// timeout: they take 0.08-0.6 s otherwise), with the router's ports at `packets`.
int
SlowDownloads(uint32_t packets, size_t& downloads)
{
    TempDir dir("router-queue");
    const std::filesystem::path root = FEDRAN_SOURCE_DIR;
    const CommandResult r =
        RunFedran("run " + (root / "scenarios/rural-microwave.json").string() +
                      " --quiet --set rounds=3 --set network.router.queue.packets=" +
                      std::to_string(packets) + " --out out",
                  dir.Path());
    EXPECT_EQ(r.exitCode, 0) << r.stderrText;
    std::map<std::string, double> roundStart;
    for (const auto& row : ReadCsv(dir.Path() / "out" / "rounds.csv"))
    {
        roundStart[row.at("round")] =
            std::stod(row.at("sim_time_s")) - std::stod(row.at("round_duration_s"));
    }
    int slow = 0;
    downloads = 0;
    for (const auto& row : ReadCsv(dir.Path() / "out" / "clients.csv"))
    {
        // A late client's update arriving later has a row of its own (late_arrival).
        if (row.at("model_received_s").empty() || row.at("status") == "late_arrival")
        {
            continue;
        }
        ++downloads;
        slow += std::stod(row.at("model_received_s")) - roundStart.at(row.at("round")) > 0.9;
    }
    return slow;
}

TEST(RouterQueue, HundredPacketPortCostsDownloadsARetransmissionTimeout)
{
    size_t downloads = 0;
    EXPECT_GE(SlowDownloads(100, downloads), 1);
    EXPECT_EQ(downloads, 30u);
}

TEST(RouterQueue, OneBandwidthDelayProductLeavesNoDownloadTimeout)
{
    EXPECT_EQ(BdpPackets(), 425u);
    size_t downloads = 0;
    EXPECT_EQ(SlowDownloads(BdpPackets(), downloads), 0);
    EXPECT_EQ(downloads, 30u);
}

TEST(RouterQueue, RedAndFqCodelPortsCarryDownloads)
{
    for (const char* discipline : {"red", "fq_codel"})
    {
        ScenarioConfig config = BulkConfig(10, "252Mbps", "0.1ms", "1Gbps", "10ms");
        config.network.routerQueue = discipline;
        config.network.routerQueuePackets = BdpPackets();
        const BulkResult result = RunBulkDownloads(config, 796'876);
        ASSERT_GT(result.doneS, 0) << discipline;
        EXPECT_GE(result.doneS, 0.064) << discipline; // 8 MB over the 1 Gbit/s core
        EXPECT_LT(result.doneS, 3.0) << discipline;
    }
}

} // namespace
} // namespace fedran::test
