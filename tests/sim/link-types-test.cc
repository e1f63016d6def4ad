// The link-type and transport tables the scenario reader asks (models/link-config/link-types.h,
// no ns-3) against the classes that implement them; each link's delay and loss per direction
// as its model states them (InstalledLink::DelayS, LossOf), which is all the flow transport
// knows of them.

#include "models/flow/tcp-flow-model.h"
#include "models/link-config/link-types.h"
#include "models/ns3/model/backhaul-link.h"
#include "models/ns3/model/flow-network.h"
#include "models/ns3/model/message-transport.h"
#include "sim-test-util.h"

#include <gtest/gtest.h>
#include <ns3/node-container.h>
#include <ns3/simulator.h>

#include <cmath>
#include <optional>
#include <string>

namespace
{

TEST(LinkTypes, EveryDeclaredLinkTypeHasAModelAndNoOtherDoes)
{
    for (std::string_view type : fedran::LinkTypeNames())
    {
        EXPECT_NE(ns3::MakeBackhaulLink(std::string(type)), nullptr) << type;
    }
    EXPECT_EQ(ns3::MakeBackhaulLink("no_such_link"), nullptr);
    // The declared capability is what the model does: a link stated without devices.
    for (std::string_view type : fedran::LinkTypeNames())
    {
        fedran::LinkConfig config;
        config.type = std::string(type);
        config.rateBps = 1'000'000;
        EXPECT_EQ(ns3::MakeBackhaulLink(config.type)->InstallStated(config) != nullptr,
                  fedran::FindLinkType(type)->statedWithoutDevices)
            << type;
    }
    EXPECT_EQ(fedran::FindLinkType("no_such_link"), nullptr);
    // What the scenario reader relies on: LTE sites come through the EPC, and hubs need
    // a link that routes.
    ASSERT_NE(fedran::FindLinkType("lte"), nullptr);
    EXPECT_TRUE(fedran::FindLinkType("lte")->routesOwnClients);
    EXPECT_FALSE(fedran::FindLinkType("lte")->notAHubLinkBecause.empty());
    EXPECT_TRUE(fedran::FindLinkType("p2p")->notAHubLinkBecause.empty());
}

TEST(LinkTypes, EveryTransportIsBuiltFromItsRowAndSaysWhatItCarries)
{
    for (std::string_view name : fedran::TransportNames())
    {
        const ns3::Ptr<ns3::MessageTransport> transport =
            ns3::CreateMessageTransport(std::string(name));
        ASSERT_NE(transport, nullptr) << name;
        EXPECT_EQ(transport->CarriesPackets(), fedran::FindTransport(name)->carriesPackets) << name;
    }
    EXPECT_THROW(ns3::CreateMessageTransport("pigeon"), std::invalid_argument);
}

/// The hops the flow transport sees on the one link `backhaul` installs, both directions,
/// once the model has applied its first settings (a trace player's first step).
struct FlowHops
{
    fedran::PathHop up;
    fedran::PathHop down;
};

/// With `stated`, the link as stated numbers (no devices, the client an endpoint id).
FlowHops
FlowHopsOf(const fedran::LinkConfig& config, bool stated = false)
{
    ns3::NodeContainer nodes;
    nodes.Create(2);
    std::unique_ptr<ns3::BackhaulLink> model = ns3::MakeBackhaulLink(config.type);
    std::unique_ptr<ns3::InstalledLink> link =
        stated ? model->InstallStated(config) : model->Install(nodes.Get(0), nodes.Get(1), config);
    const uint32_t client = stated ? ns3::kStatedEndpointBase : nodes.Get(0)->GetId();
    ns3::TransportTopology topology;
    topology.links.push_back({client, nodes.Get(1)->GetId(), link.get(), nullptr});
    FlowHops hops;
    {
        ns3::FlowNetwork network(topology, fedran::TcpFlowSettings{});
        const ns3::FlowNetwork::Path path = network.PathTo(client, nodes.Get(1)->GetId());
        ns3::Simulator::Schedule(ns3::MilliSeconds(10), [&] {
            hops.up = network.Hops(path, ns3::LinkDirection::Uplink).at(0);
            hops.down = network.Hops(path, ns3::LinkDirection::Downlink).at(0);
        });
        ns3::Simulator::Stop(ns3::MilliSeconds(20));
        ns3::Simulator::Run();
    }
    ns3::Simulator::Destroy();
    return hops;
}

TEST(LinkTypes, ATraceLinksOwnLossAndDelayPerDirectionReachTheFlowModel)
{
    // A lossy link that is not a plain p2p one: the trace player sets its delay and loss,
    // each direction its own.
    fedran::test::TempDir dir("trace-loss");
    fedran::test::WriteFile(dir.Path() / "lossy.csv",
                            "time_s,rate_bps,delay_ms,loss,downlink_rate_bps,downlink_delay_ms,"
                            "downlink_loss\n0,8000000,5,0.02,4000000,12,0.05\n");
    fedran::LinkConfig trace;
    trace.type = "trace";
    trace.spec = {{"type", "trace"}, {"file", (dir.Path() / "lossy.csv").string()}};
    const FlowHops hops = FlowHopsOf(trace);
    EXPECT_EQ(hops.up.capacityBps, 8e6);
    EXPECT_DOUBLE_EQ(hops.up.delayS, 0.005);
    EXPECT_DOUBLE_EQ(hops.up.loss, 0.02);
    EXPECT_EQ(hops.down.capacityBps, 4e6);
    EXPECT_DOUBLE_EQ(hops.down.delayS, 0.012);
    EXPECT_DOUBLE_EQ(hops.down.loss, 0.05);
}

TEST(LinkTypes, AP2pLinksLossAndDelayPerDirectionReachTheFlowModel)
{
    fedran::LinkConfig p2p;
    p2p.type = "p2p";
    p2p.rateBps = 10'000'000;
    p2p.delayS = 0.003;
    p2p.delayDownS = 0.007;
    p2p.loss = 0.01;
    p2p.rateDownBps = 40'000'000;
    const FlowHops hops = FlowHopsOf(p2p);
    EXPECT_DOUBLE_EQ(hops.up.delayS, 0.003);
    EXPECT_DOUBLE_EQ(hops.down.delayS, 0.007);
    EXPECT_DOUBLE_EQ(hops.up.loss, 0.01);
    EXPECT_DOUBLE_EQ(hops.down.loss, 0.01);
    // The same link stated without devices (a flow-mode site) gives the flow model the same.
    const FlowHops stated = FlowHopsOf(p2p, true);
    for (auto [a, b] : {std::pair{hops.up, stated.up}, std::pair{hops.down, stated.down}})
    {
        EXPECT_EQ(a.capacityBps, b.capacityBps);
        EXPECT_EQ(a.delayS, b.delayS);
        EXPECT_EQ(a.loss, b.loss);
    }
    EXPECT_EQ(stated.down.capacityBps, 40e6);
}

/// A link model that cannot state its delay and loss (none shipped is one).
class UnstatedLink : public ns3::InstalledLink
{
  public:
    UnstatedLink()
        : InstalledLink(ns3::NetDeviceContainer())
    {
    }

    void ConnectTransmitted(ns3::LinkDirection, PacketSink) const override
    {
    }

    void ConnectDelivered(ns3::LinkDirection, PacketSink) const override
    {
    }

    bool ConnectFrames(ns3::LinkDirection, PacketSink) const override
    {
        return false;
    }

    std::optional<uint64_t> QueuedBytes(ns3::LinkDirection) const override
    {
        return std::nullopt;
    }

    uint64_t CapacityBps() const override
    {
        return 1'000'000;
    }

    double SnrDb() const override
    {
        return std::nan("");
    }

    uint64_t NominalRateBps() const override
    {
        return 1'000'000;
    }

    std::optional<double> DelayS(ns3::LinkDirection) const override
    {
        return std::nullopt;
    }

    std::optional<double> LossOf(ns3::LinkDirection, uint32_t) const override
    {
        return std::nullopt;
    }

    double ReadyS() const override
    {
        return 0.0;
    }

    bool RoutesClient() const override
    {
        return false;
    }
};

TEST(LinkTypesDeathTest, TheFlowModelRefusesALinkThatCannotStateItsDelayAndLoss)
{
    // Every shipped model states them (the scenario reader refuses a type whose kLinkTypes
    // row says it cannot); a program that builds its own topology is stopped here instead of
    // running the link as lossless.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    for (std::string_view type : fedran::LinkTypeNames())
    {
        EXPECT_TRUE(fedran::FindLinkType(type)->noDelayAndLossBecause.empty()) << type;
    }
    const UnstatedLink link;
    ns3::TransportTopology topology;
    topology.links.push_back({1, 0, &link, nullptr});
    EXPECT_DEATH(ns3::FlowNetwork(topology, fedran::TcpFlowSettings{}),
                 "cannot state its delay and loss");
}

} // namespace
