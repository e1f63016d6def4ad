// The lte backhaul: uplink throughput falls as the UE moves away from its eNB, an FL scenario
// over LTE runs to its end, its traces are byte-identical for a seed at any thread count, and
// bad lte keys exit 2 naming the JSON path.

#include "bulk-transfer.h"
#include "sim-test-util.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

using nlohmann::json;

json
LteBackhaul(const json& distance)
{
    return {{"type", "lte"}, {"distance_m", distance}};
}

/// Seconds `ues` UEs with this backhaul take to upload `bytes` each to the server, from
/// their start.
double
UploadSeconds(const json& backhaul, uint64_t bytes, uint32_t ues = 1)
{
    json scenario = TinyScenario(ues, 1, 1);
    scenario["clients"]["groups"][0]["backhaul"] = backhaul;
    ValidateScenario(scenario);
    const BulkResult result = RunBulkUploads(ToConfig(scenario), bytes, 60.0);
    EXPECT_GT(result.doneS, 0) << "the upload over " << backhaul.dump() << " did not finish";
    return result.doneS - result.startS;
}

double
UploadSeconds(double distanceM, uint64_t bytes)
{
    return UploadSeconds(LteBackhaul(distanceM), bytes);
}

TEST(LteLink, UplinkThroughputFallsAsTheUeMovesAway)
{
    // Default cell (5 MHz, 23 dBm UE, log-distance exponent 3 beyond 100 m): the path-loss
    // SNR is 38 dB at 200 m (the top MCS: 18.3 Mbit/s over 25 RBs), 17 dB at 1 km
    // (10.7 Mbit/s) and 3 dB at 3 km (1.8 Mbit/s).
    const uint64_t bytes = 1'000'000;
    const double near = UploadSeconds(200, bytes);
    const double mid = UploadSeconds(1000, bytes);
    const double far = UploadSeconds(3000, bytes);
    EXPECT_GT(mid, 1.3 * near);
    EXPECT_GT(far, 3.0 * mid);
    // Goodput stays below what the grant at that SINR carries, and not far below it once TCP
    // has opened its window: the radio, not TCP, sets the pace.
    const std::pair<double, double> cases[] = {{near, 18.336e6}, {mid, 10.68e6}, {far, 1.8e6}};
    for (const auto& [seconds, capacityBps] : cases)
    {
        const double goodputBps = bytes * 8.0 / seconds;
        EXPECT_LT(goodputBps, capacityBps) << seconds;
        EXPECT_GT(goodputBps, 0.5 * capacityBps) << seconds;
    }
}

TEST(LteLink, UesShareTheirCellAndThePathLossKeysSetTheirSinr)
{
    const uint64_t bytes = 500'000;
    json shared = LteBackhaul(1000);
    const double sharedS = UploadSeconds(shared, bytes, 2);
    json ownCells = shared;
    ownCells["ues_per_enb"] = 1;
    const double ownCellsS = UploadSeconds(ownCells, bytes, 2);
    // Two UEs in one cell split its grants; in cells of their own each has all of them.
    EXPECT_GT(sharedS, 1.5 * ownCellsS);
    EXPECT_LT(sharedS, 2.5 * ownCellsS);
    // Free space all the way gives 3 km the SINR log-distance gives about 1 km (17.8 dB
    // against 17.3 dB), far better than log-distance at 3 km (3.0 dB).
    json friis = LteBackhaul(3000);
    friis["pathloss"] = "friis";
    const double friisS = UploadSeconds(friis, bytes);
    EXPECT_NEAR(friisS, UploadSeconds(1000, bytes), 0.1 * friisS);
    EXPECT_LT(2.0 * friisS, UploadSeconds(3000, bytes));
}

json
LteScenario()
{
    json s = TinyScenario(4, 4, 3);
    s["clients"]["groups"][0]["backhaul"] = LteBackhaul(json::array({300, 2000}));
    s["output"] = {{"link_sample_s", 0.5}};
    return s;
}

TEST(LteLink, FederatedScenarioRunsToItsEndWithTheSameTracesAtAnyThreadCount)
{
    TempDir dir("lte");
    WriteFile(dir.Path() / "s.json", LteScenario().dump());
    const CommandResult one = RunFedran("run s.json --out a --quiet --threads 1", dir.Path());
    ASSERT_EQ(one.exitCode, 0) << one.stderrText;
    ASSERT_EQ(RunFedran("run s.json --out b --quiet --threads 2", dir.Path()).exitCode, 0);
    ExpectSameTraces(dir.Path() / "a",
                     dir.Path() / "b",
                     {"rounds.csv", "clients.csv", "links.csv"});

    // The UEs attached before their clients started: no SYN was lost (a lost one costs 3 s),
    // so the first model arrives within the 1 s join window and a few round trips.
    EXPECT_LT(std::stod(ReadCsv(dir.Path() / "a" / "clients.csv").front().at("model_received_s")),
              2.0);
    const auto rounds = ReadCsv(dir.Path() / "a" / "rounds.csv");
    ASSERT_EQ(rounds.size(), 3u);
    EXPECT_GT(std::stod(rounds.back().at("test_accuracy")), 0.6);
    for (const auto& row : rounds)
    {
        EXPECT_EQ(row.at("participants"), "4");
        // IP bytes into the radio: every update's payload plus TCP/IP headers and ACKs.
        EXPECT_GT(std::stoull(row.at("uplink_wire_bytes")),
                  std::stoull(row.at("uplink_payload_bytes")));
    }
    // The far UEs (2 km, odd clients) take longer to upload than the near ones (300 m).
    double nearS = 0;
    double farS = 0;
    for (const auto& row : ReadCsv(dir.Path() / "a" / "clients.csv"))
    {
        const double s = std::stod(row.at("upload_end_s")) - std::stod(row.at("upload_start_s"));
        (std::stoi(row.at("client")) % 2 ? farS : nearS) += s;
    }
    EXPECT_GT(farS, nearS);
    // links.csv: the radio's capacity and SINR per UE, nothing for an RLC backlog ns-3 hides.
    bool sawUplinkTraffic = false;
    for (const auto& row : ReadCsv(dir.Path() / "a" / "links.csv"))
    {
        if (row.at("link") == "client-1-up")
        {
            EXPECT_NEAR(std::stod(row.at("snr_db")), 8.28, 0.01); // path loss 117.2 dB
            EXPECT_EQ(row.at("queue_bytes"), "");
            sawUplinkTraffic = sawUplinkTraffic || std::stoull(row.at("throughput_bps")) > 0;
        }
    }
    EXPECT_TRUE(sawUplinkTraffic);
}

struct BadLteKey
{
    const char* name;
    const char* key;
    json value;
    const char* expectedInMessage;
};

class LteBadKey : public ::testing::TestWithParam<BadLteKey>
{
};

TEST_P(LteBadKey, ExitsTwoNamingTheJsonPathAndWritesNothing)
{
    const BadLteKey& c = GetParam();
    json s = LteScenario();
    s["clients"]["groups"][0]["backhaul"][c.key] = c.value;
    TempDir dir("lte-bad");
    WriteFile(dir.Path() / "s.json", s.dump());
    const CommandResult r = RunFedran("run s.json --out out --quiet", dir.Path());
    EXPECT_EQ(r.exitCode, 2) << r.stderrText;
    EXPECT_NE(r.stderrText.find(c.expectedInMessage), std::string::npos) << r.stderrText;
    EXPECT_FALSE(std::filesystem::exists(dir.Path() / "out"));
}

INSTANTIATE_TEST_SUITE_P(
    Cases,
    LteBadKey,
    ::testing::Values(
        BadLteKey{"NegativeDistance", "distance_m", -5, "clients.groups.0.backhaul.distance_m"},
        BadLteKey{"EmptyDistanceList",
                  "distance_m",
                  json::array(),
                  "clients.groups.0.backhaul.distance_m"},
        BadLteKey{"BandwidthNotAnLteChannel",
                  "bandwidth_rb",
                  30,
                  "clients.groups.0.backhaul.bandwidth_rb"},
        BadLteKey{"EarfcnOutsideEveryBand", "earfcn", 17999, "clients.groups.0.backhaul.earfcn"},
        BadLteKey{"UnknownScheduler", "scheduler", "fifo", "clients.groups.0.backhaul.scheduler"},
        BadLteKey{"KeyOfAnotherLinkType", "loss", 0.1, "clients.groups.0.backhaul.loss"}),
    [](const auto& info) { return std::string(info.param.name); });

} // namespace
} // namespace fedran::test
