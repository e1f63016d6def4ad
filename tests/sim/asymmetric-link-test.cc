// Asymmetric links: a p2p link's rate_down and delay_down, and a trace link's downlink (a file
// of its own, or a CSV file's downlink columns). An upload and a download of the same size
// each take as long as on a symmetric link of their own direction's rate (and uploads the
// analytic slow-start time, within 5%). With different delays, the round trip is their sum and
// the last packet arrives after its own direction's delay.

#include "analytic-tcp.h"
#include "bulk-transfer.h"
#include "sim-test-util.h"
#include "simulator/scenario/scenario.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

using nlohmann::json;

/// One client on `backhaul`, behind a core far faster and shorter (the link is the path).
ScenarioConfig
OneClient(const json& backhaul)
{
    json scenario = TinyScenario(1, 1, 1);
    scenario["clients"]["groups"][0]["backhaul"] = backhaul;
    scenario["network"]["core"] = {{"rate", "100Gbps"}, {"delay", "0ms"}};
    ValidateScenario(scenario);
    return ToConfig(scenario);
}

constexpr uint64_t kBytes = 1'000'000;

/// The analytic time over one-way delays `sendS` (the data's direction) and `backS` (ACKs).
double
Analytic(double rateBps, double sendS, double backS)
{
    const double mean = (sendS + backS) / 2; // the model's RTT is 2 D
    return AnalyticTcpTransferS(kBytes, rateBps, mean) - mean + sendS;
}

/// Upload and download times over `backhaul`.
std::pair<double, double>
Times(const json& backhaul)
{
    const ScenarioConfig config = OneClient(backhaul);
    return {RunBulkUploads(config, kBytes).doneS, RunBulkDownloads(config, kBytes).doneS};
}

/// An upload over `backhaul` takes as long as over the symmetric link `upOnly`, a download as
/// over `downOnly` (within 2%): each direction follows its own rate and delay. The
/// uploads are also checked against the analytic model of their rate (downloads meet the
/// router's 100-packet port, whose drops the model leaves out).
void
ExpectTimes(const json& backhaul, const json& upOnly, const json& downOnly, double analyticUp)
{
    const auto [up, down] = Times(backhaul);
    const double refUp = Times(upOnly).first;
    const double refDown = Times(downOnly).second;
    ASSERT_GT(up, 0);
    ASSERT_GT(down, 0);
    EXPECT_NEAR(up, refUp, 0.02 * refUp) << backhaul.dump();
    EXPECT_NEAR(down, refDown, 0.02 * refDown) << backhaul.dump();
    EXPECT_NEAR(up, analyticUp, 0.05 * analyticUp) << backhaul.dump();
}

TEST(AsymmetricLink, P2pUploadAndDownloadFollowTheirOwnRates)
{
    const json slow = {{"type", "p2p"}, {"rate", "10Mbps"}, {"delay", "10ms"}};
    const json fast = {{"type", "p2p"}, {"rate", "50Mbps"}, {"delay", "10ms"}};
    json asymmetric = slow;
    asymmetric["rate_down"] = "50Mbps";
    ExpectTimes(asymmetric, slow, fast, Analytic(10e6, 0.010, 0.010));
    // The downlink is five times faster: a download takes well under half the upload's time.
    const auto [up, down] = Times(asymmetric);
    EXPECT_LT(down, 0.5 * up);
}

TEST(AsymmetricLink, P2pDirectionsHaveTheirOwnDelays)
{
    const auto [up, down] = Times({{"type", "p2p"},
                                   {"rate", "50Mbps"},
                                   {"rate_down", "20Mbps"},
                                   {"delay", "5ms"},
                                   {"delay_down", "45ms"}});
    // The round trip is 5 + 45 ms; the upload's last packet takes 5 ms, the download's 45.
    const double expectUp = Analytic(50e6, 0.005, 0.045);
    EXPECT_NEAR(up, expectUp, 0.05 * expectUp);
    const auto [refUp, refDown] = Times({{"type", "p2p"}, {"rate", "20Mbps"}, {"delay", "25ms"}});
    // The same round trip as a symmetric 25 ms link: the download differs by the last
    // packet's one-way delay, 45 against 25 ms.
    EXPECT_NEAR(down, refDown + 0.020, 0.02 * refDown);
}

TEST(AsymmetricLink, TraceDownlinkFileAndColumns)
{
    TempDir dir("asymmetric-trace");
    WriteFile(dir.Path() / "up.csv", "time_s,rate_bps,delay_ms\n0,8000000,20\n");
    WriteFile(dir.Path() / "down.csv", "time_s,rate_bps,delay_ms\n0,40000000,20\n");
    WriteFile(dir.Path() / "both.csv",
              "time_s,rate_bps,delay_ms,downlink_rate_bps,downlink_delay_ms\n"
              "0,8000000,20,40000000,20\n");
    const json upOnly = {{"type", "trace"}, {"file", (dir.Path() / "up.csv").string()}};
    const json downOnly = {{"type", "trace"}, {"file", (dir.Path() / "down.csv").string()}};
    const double analyticUp = Analytic(8e6, 0.020, 0.020);
    ExpectTimes({{"type", "trace"},
                 {"uplink", (dir.Path() / "up.csv").string()},
                 {"downlink", (dir.Path() / "down.csv").string()}},
                upOnly,
                downOnly,
                analyticUp);
    ExpectTimes({{"type", "trace"}, {"file", (dir.Path() / "both.csv").string()}},
                upOnly,
                downOnly,
                analyticUp);
}

TEST(AsymmetricLink, TraceNeedsExactlyOneUplinkFile)
{
    TempDir dir("asymmetric-trace-keys");
    const std::filesystem::path root = FEDRAN_SOURCE_DIR;
    json scenario = TinyScenario(1, 1, 1);
    scenario["clients"]["groups"][0]["backhaul"] = {
        {"type", "trace"},
        {"downlink", (root / "scenarios/traces/lte-downlink-good.csv").string()}};
    WriteFile(dir.Path() / "s.json", scenario.dump());
    const CommandResult r = RunFedran("validate s.json", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find(
                  "clients.groups.0.backhaul: a trace link needs exactly one of file and uplink"),
              std::string::npos)
        << r.stderrText;
}

} // namespace
} // namespace fedran::test
