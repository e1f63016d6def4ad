// In flow mode a site on a link its model can state (p2p) has no ns-3 node, stack or device:
// the topology holds its rate, delay and loss as numbers, and the flow transport finds it by
// an endpoint id above every node's. A site whose model needs devices (microwave: its rate
// process drives them) keeps its node. Packet mode builds every node as before.

#include "sim-test-util.h"
#include "simulator/network-topology.h"
#include "simulator/scenario/scenario.h"

#include <gtest/gtest.h>
#include <ns3/node-list.h>
#include <ns3/simulator.h>

namespace fedran::test
{
namespace
{

using nlohmann::json;

ScenarioConfig
FiftyWiredOneRadio()
{
    json scenario = TinyScenario(50, 2, 1);
    scenario["clients"]["groups"][0]["backhaul"] = {{"type", "p2p"},
                                                    {"rate", "20Mbps"},
                                                    {"rate_down", "50Mbps"},
                                                    {"delay", "3ms"},
                                                    {"loss", 0.01}};
    scenario["clients"]["groups"].push_back(
        {{"name", "radio"},
         {"count", 1},
         {"compute", {{"samples_per_second", 20000}}},
         {"backhaul", {{"type", "microwave"}, {"bandwidth_mhz", 7}, {"snr_db", 30}}}});
    ValidateScenario(scenario);
    return ToConfig(scenario);
}

std::vector<uint32_t>
GroupOfEachClient(const ScenarioConfig& config)
{
    std::vector<uint32_t> groups;
    for (uint32_t g = 0; g < config.groups.size(); ++g)
    {
        groups.insert(groups.end(), config.groups[g].count, g);
    }
    return groups;
}

TEST(StatedLinks, FlowModeSitesOnStatedLinksHaveNoNodeOfTheirOwn)
{
    const ScenarioConfig config = FiftyWiredOneRadio();
    const uint32_t before = ns3::NodeList::GetNNodes();
    ns3::NetworkTopology topology(config, GroupOfEachClient(config), /* carriesPackets */ false);
    // Server, router, the radio site's node and the one host the stated sites' apps share.
    EXPECT_EQ(ns3::NodeList::GetNNodes() - before, 4u);
    ASSERT_EQ(topology.GetClientCount(), 51u);
    for (uint32_t i = 0; i < 50; ++i)
    {
        ASSERT_TRUE(topology.IsStated(i)) << i;
        EXPECT_EQ(topology.GetClientEndpoint(i), ns3::kStatedEndpointBase + i);
        EXPECT_FALSE(topology.GetClientDevice(i));
        EXPECT_EQ(topology.GetClient(i), topology.GetClient(0)); // the shared host
    }
    EXPECT_FALSE(topology.IsStated(50));
    EXPECT_NE(topology.GetClient(50), topology.GetClient(0));
    EXPECT_EQ(topology.GetClientEndpoint(50), topology.GetClient(50)->GetId());

    // What the flow transport reads is what the scenario says, per direction.
    const ns3::InstalledLink& link = topology.GetLink(7);
    EXPECT_EQ(link.CapacityBpsOf(ns3::LinkDirection::Uplink), 20'000'000u);
    EXPECT_EQ(link.CapacityBpsOf(ns3::LinkDirection::Downlink), 50'000'000u);
    EXPECT_DOUBLE_EQ(*link.DelayS(ns3::LinkDirection::Downlink), 0.003);
    EXPECT_DOUBLE_EQ(*link.LossOf(ns3::LinkDirection::Uplink, 1500), 0.01);
    // The transport topology names the stated sites by their endpoint ids.
    uint32_t statedChildren = 0;
    for (const ns3::TransportLink& hop : topology.GetTransportTopology().links)
    {
        statedChildren += hop.child >= ns3::kStatedEndpointBase ? 1 : 0;
    }
    EXPECT_EQ(statedChildren, 50u);
    // An outage on a stated link has no interface to bring down; its listeners hear it.
    bool heard = false;
    link.ConnectOutageChanged(ns3::Callback<void>([&heard] { heard = true; }));
    link.BeginOutage();
    EXPECT_TRUE(heard);
    EXPECT_EQ(link.AvailableBpsOf(ns3::LinkDirection::Uplink), 0u);
    link.EndOutage();
    ns3::Simulator::Destroy();
}

TEST(StatedLinks, PacketModeBuildsEveryNodeAndDevice)
{
    const ScenarioConfig config = FiftyWiredOneRadio();
    const uint32_t before = ns3::NodeList::GetNNodes();
    ns3::NetworkTopology topology(config, GroupOfEachClient(config), /* carriesPackets */ true);
    EXPECT_EQ(ns3::NodeList::GetNNodes() - before, 53u);
    for (uint32_t i = 0; i < 51; ++i)
    {
        EXPECT_FALSE(topology.IsStated(i));
        EXPECT_TRUE(topology.GetClientDevice(i));
    }
    ns3::Simulator::Destroy();
}

} // namespace
} // namespace fedran::test
