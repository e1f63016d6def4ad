// network.tcp: every congestion control the schema names is one ns-3.37 ships, the settings
// reach ns-3's defaults (and the defaults come back for the next run in the process), the
// initial window shapes a short transfer as the slow-start model says, and run.json records
// what was used.

#include "analytic-tcp.h"
#include "bulk-transfer.h"
#include "sim-test-util.h"
#include "simulator/network-topology.h"
#include "simulator/scenario/scenario.h"

#include <gtest/gtest.h>
#include <ns3/type-id.h>

#include <map>

namespace fedran::test
{
namespace
{

using nlohmann::json;

TEST(TcpConfig, EverySchemaCongestionControlIsAnNs3Type)
{
    const json& names = ScenarioSchema()["properties"]["network"]["properties"]["tcp"]["properties"]
                                        ["congestion_control"]["enum"];
    ASSERT_GE(names.size(), 10u);
    for (const json& name : names)
    {
        ns3::TypeId type;
        EXPECT_TRUE(
            ns3::TypeId::LookupByNameFailSafe(ns3::TcpCongestionTypeId(name.get<std::string>()),
                                              &type))
            << name;
    }
    EXPECT_EQ(ns3::TcpCongestionTypeId("cubic"), "ns3::TcpCubic");
}

TEST(TcpConfig, SettingsReachNs3AndDefaultsComeBack)
{
    ScenarioConfig::Network::Tcp tcp;
    tcp.congestionControl = "bbr";
    tcp.initialWindow = 4;
    tcp.delayedAck = false;
    tcp.sack = false;
    ns3::ConfigureBackhaulTcp(tcp);
    EXPECT_EQ(ns3::BackhaulTcpSettings(),
              json({{"socket_type", "ns3::TcpBbr"},
                    {"initial_cwnd_segments", 4},
                    {"delayed_ack_count", 1},
                    {"sack", false},
                    {"pacing", true},
                    {"segment_size", 1448}}));
    // The defaults are ns-3.37's own (so traces made before network.tcp existed hold).
    ns3::ConfigureBackhaulTcp();
    EXPECT_EQ(ns3::BackhaulTcpSettings(),
              json({{"socket_type", "ns3::TcpCubic"},
                    {"initial_cwnd_segments", 10},
                    {"delayed_ack_count", 2},
                    {"sack", true},
                    {"pacing", false},
                    {"segment_size", 1448}}));
}

TEST(TcpConfig, InitialWindowShapesAShortTransfer)
{
    // The slow-start model doubles the window every round trip, as a sender does when every
    // segment is acknowledged: so without delayed ACKs ns-3 follows it to 1% for any initial
    // window (measured: 0.2749 / 0.2768 s at 2 segments, 0.1896 / 0.1917 s at 10).
    std::map<uint32_t, double> withoutDelayedAck;
    for (uint32_t window : {2u, 4u, 10u})
    {
        ScenarioConfig config = BulkConfig(1, "10Mbps", "20ms", "100Gbps", "0ms");
        config.network.tcp.initialWindow = window;
        config.network.tcp.delayedAck = false;
        const double done = RunBulkUploads(config, 100'000).doneS;
        const double analytic = AnalyticTcpTransferS(100'000, 10e6, 0.020, 1448, 54, window);
        EXPECT_NEAR(done, analytic, 0.02 * analytic) << "initial window " << window;
        withoutDelayedAck[window] = done;
    }
    EXPECT_LT(withoutDelayedAck[10], withoutDelayedAck[4]);
    EXPECT_LT(withoutDelayedAck[4], withoutDelayedAck[2]);
    // With delayed ACKs (one ACK per two segments) the first round trips of a small window
    // grow more slowly: at 2 segments the transfer takes longer (0.3137 s); at 10 the window
    // is large from the start and the difference is gone.
    for (uint32_t window : {2u, 10u})
    {
        ScenarioConfig config = BulkConfig(1, "10Mbps", "20ms", "100Gbps", "0ms");
        config.network.tcp.initialWindow = window;
        const double done = RunBulkUploads(config, 100'000).doneS;
        if (window == 2)
        {
            EXPECT_GT(done, 1.05 * withoutDelayedAck[2]);
        }
        else
        {
            EXPECT_NEAR(done, withoutDelayedAck[10], 0.02 * withoutDelayedAck[10]);
        }
    }
    ns3::ConfigureBackhaulTcp();
}

TEST(TcpConfig, EveryShippedCongestionControlCarriesALossyUpload)
{
    for (const char* cc : {"cubic", "newreno", "bbr", "westwood", "vegas"})
    {
        json scenario = TinyScenario(1, 1, 1);
        scenario["clients"]["groups"][0]["backhaul"] = {{"type", "p2p"},
                                                        {"rate", "20Mbps"},
                                                        {"delay", "10ms"},
                                                        {"loss", 0.01}};
        scenario["network"]["tcp"] = {{"congestion_control", cc}};
        ValidateScenario(scenario);
        const BulkResult result = RunBulkUploads(ToConfig(scenario), 1'000'000);
        EXPECT_GT(result.doneS, 0.4) << cc; // 8 Mbit at 20 Mbit/s
        EXPECT_LT(result.doneS, 30.0) << cc;
    }
    ns3::ConfigureBackhaulTcp();
}

TEST(TcpConfig, TheFlowTransportRefusesWhatItDoesNotModel)
{
    TempDir dir("tcp-flow");
    WriteFile(dir.Path() / "s.json", TinyScenario(2, 1, 1).dump());
    CommandResult r = RunFedran("run s.json --quiet --out out --set network.transport=flow "
                                "--set network.tcp.congestion_control=bbr",
                                dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("network.tcp.congestion_control"), std::string::npos)
        << r.stderrText;
    EXPECT_FALSE(std::filesystem::exists(dir.Path() / "out"));
    r = RunFedran("run s.json --quiet --out out --set network.transport=flow "
                  "--set network.tcp.delayed_ack=false",
                  dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("network.tcp.delayed_ack"), std::string::npos) << r.stderrText;
    // The initial window it does model.
    r = RunFedran("run s.json --quiet --out out --set network.transport=flow "
                  "--set network.tcp.initial_window=4",
                  dir.Path());
    EXPECT_EQ(r.exitCode, 0) << r.stderrText;
}

TEST(TcpConfig, RunJsonRecordsTheTcpInUse)
{
    TempDir dir("tcp-run-json");
    WriteFile(dir.Path() / "s.json", TinyScenario(2, 1, 1).dump());
    const CommandResult r =
        RunFedran("run s.json --quiet --out out --set network.tcp.congestion_control=bbr "
                  "--set network.tcp.initial_window=4 --set network.tcp.delayed_ack=false",
                  dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    const json run = json::parse(ReadFile(dir.Path() / "out" / "run.json"));
    EXPECT_EQ(run["tcp"],
              json({{"congestion_control", "ns3::TcpBbr"},
                    {"initial_window_segments", 4},
                    {"delayed_ack_count", 1},
                    {"sack", true},
                    {"pacing", true},
                    {"segment_size", 1448}}));
    EXPECT_EQ(run["scenario"]["network"]["tcp"]["congestion_control"], "bbr");
}

} // namespace
} // namespace fedran::test
