// What server.selection "network" reads of the links: each client's path bottleneck now, its
// access link, its hubs' links and the core link, following a microwave hop's modulation as
// a scripted fade lowers it, so that a faded site ranks behind a clear one with the same
// history.

#include "models/ns3/helper/path-capacity.h"
#include "sim-test-util.h"
#include "simulator/network-topology.h"

#include <gtest/gtest.h>
#include <ns3/rng-seed-manager.h>
#include <ns3/simulator.h>

namespace fedran::test
{
namespace
{

using namespace ns3;
using nlohmann::json;

// The microwave links' rate: 3.5 MHz x bits per symbol x 0.75.
constexpr double kFullRate = 3.5e6 * 12 * 0.75; // 4096-QAM at 42 dB
constexpr double kFadedRate = 3.5e6 * 7 * 0.75; // 128-QAM at 42 - 15 = 27 dB

json
Microwave(bool fades)
{
    json radio = {{"type", "microwave"},
                  {"bandwidth_mhz", 3.5},
                  {"efficiency", 0.75},
                  {"snr_db", 42},
                  {"delay", "1ms"}};
    if (fades)
    {
        radio["fade"] = {{"type", "script"}, {"points", {{1.0, 15.0}}}};
    }
    return radio;
}

TEST(PathCapacity, IsTheBottleneckOfAccessHubAndCoreLinksNow)
{
    json scenario = TinyScenario(1, 1, 1);
    scenario["clients"]["groups"] = json::array({
        {{"name", "faded"}, {"count", 1}, {"hub", "fast"}, {"backhaul", Microwave(true)}},
        {{"name", "clear"}, {"count", 1}, {"hub", "fast"}, {"backhaul", Microwave(false)}},
        {{"name", "behind-slow"}, {"count", 1}, {"hub", "slow"}, {"backhaul", Microwave(false)}},
        {{"name", "direct"},
         {"count", 1},
         {"backhaul", {{"type", "p2p"}, {"rate", "5Mbps"}, {"rate_down", "8Mbps"}}}},
    });
    scenario["network"]["hubs"] = json::parse(R"([
        {"name": "fast", "backhaul": {"type": "p2p", "rate": "100Mbps", "delay": "1ms"}},
        {"name": "slow", "parent": "fast",
         "backhaul": {"type": "p2p", "rate": "10Mbps", "delay": "1ms"}}
    ])");
    scenario["network"]["core"] = {{"rate", "1Gbps"}, {"delay", "1ms"}};
    ValidateScenario(scenario);
    const ScenarioConfig config = ToConfig(scenario);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
    NetworkTopology topology(config, {0, 1, 2, 3});
    topology.AssignStreams(0);
    const PathCapacity paths(topology);
    std::vector<std::optional<PathRate>> before(4);
    std::vector<std::optional<PathRate>> after(4);
    Simulator::Schedule(Seconds(0.5), [&] {
        for (uint32_t c = 0; c < 4; ++c)
        {
            before[c] = paths.Of(c);
        }
    });
    Simulator::Schedule(Seconds(2.0), [&] {
        for (uint32_t c = 0; c < 4; ++c)
        {
            after[c] = paths.Of(c);
        }
    });
    Simulator::Stop(Seconds(2.5));
    Simulator::Run();
    Simulator::Destroy();
    for (const auto& rates : {before, after})
    {
        for (const auto& rate : rates)
        {
            ASSERT_TRUE(rate.has_value());
        }
    }
    // Before the fade both microwave sites have the full rate (the 100 Mbit/s hub and the
    // core are wider); after it the faded one has the lower modulation's rate.
    EXPECT_DOUBLE_EQ(before[0]->upBps, kFullRate);
    EXPECT_DOUBLE_EQ(before[1]->upBps, kFullRate);
    EXPECT_DOUBLE_EQ(after[1]->downBps, kFullRate);
    EXPECT_DOUBLE_EQ(after[0]->downBps, kFadedRate);
    EXPECT_DOUBLE_EQ(after[0]->upBps, kFadedRate);
    // Behind the 10 Mbit/s hub (a child of the fast one) the hub link is the bottleneck.
    EXPECT_DOUBLE_EQ(after[2]->upBps, 10e6);
    EXPECT_DOUBLE_EQ(after[2]->downBps, 10e6);
    // A p2p site on the router: its own rates, each direction its own.
    EXPECT_DOUBLE_EQ(after[3]->upBps, 5e6);
    EXPECT_DOUBLE_EQ(after[3]->downBps, 8e6);

    // server.selection "network" on these capacities: the two microwave sites have the same
    // history (2 s rounds, 1.5 s of compute, a 4 MB model and update), yet after the fade the
    // clear one (1) ranks first; before it, with equal paths, the lower id (the one that will
    // fade, 0) does.
    ClientLedger ledger;
    for (uint32_t c : {0u, 1u})
    {
        ClientRecord& r = ledger[c];
        r.samples = 10;
        r.lastSelected = 1;
        r.durationS = r.meanDurationS = 2.0;
        r.meanComputeS = 1.5;
        r.modelBytes = r.updateBytes = 4'000'000;
    }
    auto policy = MakeSelectionPolicy(
        SelectionSpec::Parse({{"type", "network"}, {"fairness_rounds", 0}}, "server.selection"),
        SelectionContext{1, 10, 60.0, 1});
    SelectionRequest request;
    request.round = 2;
    request.idle = {0, 1};
    request.wanted = 1;
    request.ledger = &ledger;
    request.pathRate = [&](uint32_t c) {
        return before[c];
    };
    EXPECT_EQ(policy->Select(request).clients, std::vector<uint32_t>{0});
    request.pathRate = [&](uint32_t c) {
        return after[c];
    };
    const Selection faded = policy->Select(request);
    EXPECT_EQ(faded.clients, std::vector<uint32_t>{1});
    EXPECT_DOUBLE_EQ(faded.scores.at(1), 1.5 + 2 * 8.0 * 4'000'000 / kFullRate);
}

} // namespace
} // namespace fedran::test
