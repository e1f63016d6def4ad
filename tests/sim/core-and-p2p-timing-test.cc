// Timing against theory: a TCP transfer over a p2p link completes within 5% of the analytic
// slow-start model, and the shared core link is a real bottleneck with a real queue: 50
// clients uploading 1 MB at once over 100 Mbit/s take at least 50 * 8 / 100 = 4 s; and the
// server, sending a model to every selected client at once, never drops its own packets.

#include "analytic-tcp.h"
#include "bulk-transfer.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

struct P2pCase
{
    uint64_t bytes;
    const char* rate;
    double rateBps;
    double delayS;
};

void
ExpectAnalytic(const P2pCase& c)
{
    // A core far faster and shorter than the backhaul: the p2p link is the whole path.
    ScenarioConfig config =
        BulkConfig(1, c.rate, std::to_string(c.delayS * 1000) + "ms", "100Gbps", "0ms");
    const BulkResult result = RunBulkUploads(config, c.bytes);
    const double analytic = AnalyticTcpTransferS(c.bytes, c.rateBps, c.delayS);
    ASSERT_GT(result.doneS, 0) << "transfer did not finish";
    EXPECT_NEAR(result.doneS, analytic, 0.05 * analytic)
        << c.bytes << " B over " << c.rate << ", " << c.delayS * 1000 << " ms";
}

TEST(P2pTiming, TransferTimeMatchesTheAnalyticTcpModel)
{
    for (const P2pCase& c : {P2pCase{100'000, "10Mbps", 10e6, 0.020},
                             P2pCase{1'000'000, "50Mbps", 50e6, 0.010},
                             P2pCase{5'000'000, "100Mbps", 100e6, 0.005}})
    {
        ExpectAnalytic(c);
    }
}

TEST(P2pTiming, FiftyMegabytesMatchTheAnalyticTcpModelSlow)
{
    ExpectAnalytic({50'000'000, "100Mbps", 100e6, 0.020});
}

TEST(CoreLink, FiftySimultaneousUploadsCongestTheCore)
{
    // 50 x 1 MB over a 100 Mbit/s core: 4 s of payload alone, 4.15 s with headers.
    ScenarioConfig config = BulkConfig(50, "50Mbps", "5ms", "100Mbps", "10ms");
    const BulkResult result = RunBulkUploads(config, 1'000'000);
    ASSERT_GT(result.doneS, 0) << "uploads did not finish";
    EXPECT_GE(result.doneS, 4.0);
    // 50 flows share a 100-packet FIFO: tail drops cost some flows a retransmission timeout
    // (measured 6.7 s), but the core stays the bottleneck and every upload completes.
    EXPECT_LE(result.doneS, 8.0);
    EXPECT_GT(result.coreDrops, 0u) << "the core queue never overflowed";
}

TEST(CoreLink, EveryQueueDisciplineCarriesTheUploads)
{
    for (const char* discipline : {"red", "fq_codel"})
    {
        ScenarioConfig config = BulkConfig(10, "50Mbps", "5ms", "100Mbps", "10ms");
        config.network.coreQueue = discipline;
        const BulkResult result = RunBulkUploads(config, 1'000'000);
        ASSERT_GT(result.doneS, 0) << discipline;
        EXPECT_GE(result.doneS, 0.8) << discipline; // 10 MB over 100 Mbit/s
        EXPECT_LE(result.doneS, 2.0) << discipline;
    }
}

TEST(ServerHost, SimultaneousDownloadsFillTheServerPortWithoutLoss)
{
    // 13 x 0.8 MB from a 1 Gbit/s server port to clients on faster links (the server's port
    // is the bottleneck): 83 ms of payload, 86 ms with headers, plus a few round trips of
    // handshake and slow start. A 1000-packet host queue dropped 1,331 packets here; in FL
    // rounds such losses cost some downloads a 1 s retransmission timeout.
    ScenarioConfig config = BulkConfig(13, "2250Mbps", "1ms", "1Gbps", "2ms");
    const BulkResult result = RunBulkDownloads(config, 796'876);
    ASSERT_GT(result.doneS, 0) << "downloads did not finish";
    EXPECT_EQ(result.serverDrops, 0u);
    EXPECT_GE(result.doneS, 0.086);
    EXPECT_LE(result.doneS, 0.15);
}

} // namespace
} // namespace fedran::test
