// The flow transport's download ports (models/ns3/model/flow-port-episodes.cc): a router's
// drop-tail port toward a hub runs the port micro-simulation when the round's downloads can
// overflow it, fed by the server's link at the share of it those downloads are of all the
// downloads it carries. Checked against the hand computation of that share.

#include "models/ns3/model/flow-network.h"
#include "sim-test-util.h"
#include "simulator/network-topology.h"
#include "simulator/scenario/scenario.h"

#include <gtest/gtest.h>
#include <ns3/node.h>
#include <ns3/simulator.h>

#include <algorithm>
#include <string>
#include <vector>

namespace fedran::test
{
namespace
{

using nlohmann::json;

/// `underHub` sites of 100 Mbit/s below one 100 Mbit/s hub link (its router port: the
/// default 100-packet FIFO) and `direct` sites of `directRate` below the router, under a
/// `coreRate` core; each site downloads `bytes` at once. Returns the transfers that crossed a
/// port micro-simulation, and each download's finish in `finish`.
uint64_t
Downloads(uint32_t underHub,
          uint32_t direct,
          uint64_t bytes,
          std::vector<double>& finish,
          const std::string& coreRate = "1Gbps",
          const std::string& directRate = "5Mbps")
{
    json scenario = TinyScenario(underHub + direct, 1, 1);
    scenario["network"]["core"] = {{"rate", coreRate}, {"delay", "2ms"}};
    scenario["network"]["hubs"] = {
        {{"name", "hub"},
         {"count", 1},
         {"backhaul", {{"type", "p2p"}, {"rate", "100Mbps"}, {"delay", "3ms"}}}}};
    json& sites = scenario["clients"]["groups"][0];
    sites["count"] = underHub;
    sites["hub"] = "hub";
    sites["backhaul"] = {{"type", "p2p"}, {"rate", "100Mbps"}, {"delay", "1ms"}};
    std::vector<uint32_t> groups(underHub, 0);
    if (underHub == 0)
    {
        // The direct sites alone: the first group, and no hub.
        sites.erase("hub");
        sites["backhaul"]["rate"] = directRate;
        sites["count"] = direct;
        scenario["network"].erase("hubs");
        groups.assign(direct, 0);
    }
    else if (direct > 0)
    {
        json other = sites;
        other.erase("hub");
        other["backhaul"]["rate"] = directRate;
        other["name"] = "direct";
        other["count"] = direct;
        scenario["clients"]["groups"].push_back(other);
        groups.insert(groups.end(), direct, 1);
    }
    ValidateScenario(scenario);
    const ScenarioConfig config = ToConfig(scenario);
    uint64_t micro = 0;
    finish.assign(underHub + direct, -1.0);
    {
        ns3::NetworkTopology topology(config, groups, /* carriesPackets */ false);
        ns3::FlowNetwork network(topology.GetTransportTopology(), fedran::TcpFlowSettings{});
        network.SetPortModel(fedran::MicroTcpSettings{});
        std::vector<uint64_t> cwnd(underHub + direct, 10);
        const uint32_t server = topology.GetServer()->GetId();
        ns3::Simulator::Schedule(ns3::MilliSeconds(1), [&] {
            for (uint32_t i = 0; i < underHub + direct; ++i)
            {
                network.Start(network.PathTo(topology.GetClientEndpoint(i), server),
                              ns3::LinkDirection::Downlink,
                              bytes,
                              &cwnd[i],
                              [&finish, i](ns3::Time arrival, ns3::Time) {
                                  finish[i] = arrival.GetSeconds();
                              });
            }
        });
        ns3::Simulator::Stop(ns3::Seconds(60));
        ns3::Simulator::Run();
        micro = network.MicroTransfers();
    }
    ns3::Simulator::Destroy();
    return micro;
}

TEST(FlowDownloadPorts, TheServersShareOfItsLinkDecidesWhetherAHubPortOverflows)
{
    // Ten 0.8 MB downloads (553 segments each, windows far above the port's 100 packets plus
    // its bandwidth-delay product) through the router's port toward the hub (100 Mbit/s).
    // Alone on the server's 1 Gbit/s link they reach the port at up to 1 Gbit/s: it can
    // overflow, and all ten cross its micro-simulation.
    std::vector<double> finish;
    EXPECT_EQ(Downloads(10, 0, 800000, finish), 10u);
    for (double f : finish)
    {
        EXPECT_GT(f, 0.0);
    }
    // With 80 more downloads to sites below the router, the server's link carries 90: the
    // hub port's ten get 10/90 of 1 Gbit/s = 111 Mbit/s, still above its 100 Mbit/s. (Those
    // sites' links, 5 Mbit/s, are slower than their 11 Mbit/s share of the server's link, so
    // the server's own queue is not their bottleneck and stays fluid: see below.)
    EXPECT_EQ(Downloads(10, 80, 800000, finish), 10u);
    // With 100 more, 10/110 of 1 Gbit/s = 90.9 Mbit/s: the server cannot feed the port faster
    // than it drains, no queue builds (the sites' own ports carry one download each), and
    // every download stays in the fluid model.
    EXPECT_EQ(Downloads(10, 100, 800000, finish), 0u);
    for (double f : finish)
    {
        EXPECT_GT(f, 0.0);
    }
}

TEST(FlowDownloadPorts, TheServersQueueOrdersDownloadsWhereItsLinkIsTheirBottleneck)
{
    // Ten 0.8 MB downloads from a server on a 100 Mbit/s link to sites of 100 Mbit/s: the
    // server's link is their bottleneck (10 x 100 Mbit/s after it) and their windows exceed
    // its bandwidth-delay product, so ns-3's TCP queues them in the server's FIFO, which they
    // leave one after another. All ten cross the micro-simulation of that queue and end
    // spread out, none together (ns-3 ends 20 such downloads from windows of 10 over 14 ms
    // in mlp-contended's first round, docs/flow-validation.md).
    std::vector<double> finish;
    EXPECT_EQ(Downloads(0, 10, 800000, finish, "100Mbps", "100Mbps"), 10u);
    std::vector<double> sorted = finish;
    std::sort(sorted.begin(), sorted.end());
    ASSERT_GT(sorted.front(), 0.0);
    EXPECT_GT(sorted.back() - sorted.front(), 0.005);
    EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
    // At 5 Mbit/s each site's own link is slower than its 10 Mbit/s share of the server's:
    // the downloads stay fluid and end together.
    EXPECT_EQ(Downloads(0, 10, 800000, finish, "100Mbps", "5Mbps"), 0u);
    const auto [slow, slowest] = std::minmax_element(finish.begin(), finish.end());
    ASSERT_GT(*slow, 0.0);
    EXPECT_LT(*slowest - *slow, 0.001);
}

} // namespace
} // namespace fedran::test
