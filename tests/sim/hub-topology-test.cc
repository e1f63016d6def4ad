// Hubs, chains and trees (network.hubs): a hub's link carries everything behind it, and only
// that; per-hop delays add up along a chain; a router holds one route per child hub whatever
// the number of sites behind it; traces are the same at any thread count. The address plan
// alone: tests/link-config/address-plan-test.cc.

#include "sim-test-util.h"
#include "simulator/network-topology.h"

#include <gtest/gtest.h>
#include <ns3/bulk-send-helper.h>
#include <ns3/inet-socket-address.h>
#include <ns3/ipv4-static-routing-helper.h>
#include <ns3/ipv4.h>
#include <ns3/packet-sink-helper.h>
#include <ns3/packet-sink.h>
#include <ns3/rng-seed-manager.h>
#include <ns3/simulator.h>
#include <ns3/socket.h>
#include <ns3/udp-socket-factory.h>
#include <ns3/uinteger.h>

#include <algorithm>
#include <set>

namespace fedran::test
{
namespace
{

using namespace ns3;
using nlohmann::json;

/// A scenario of `groups` (each {"name", "count", "hub"?, "backhaul"}) and `hubs`.
ScenarioConfig
TreeConfig(const json& groups, const json& hubs, const std::string& coreDelay = "1ms")
{
    json scenario = TinyScenario(1, 1, 1);
    scenario["clients"]["groups"] = groups;
    scenario["network"]["hubs"] = hubs;
    scenario["network"]["core"] = {{"rate", "1Gbps"}, {"delay", coreDelay}};
    ValidateScenario(scenario);
    return ToConfig(scenario);
}

std::vector<uint32_t>
ClientGroups(const ScenarioConfig& config)
{
    std::vector<uint32_t> clientGroup;
    for (uint32_t g = 0; g < config.groups.size(); ++g)
    {
        clientGroup.insert(clientGroup.end(), config.groups[g].count, g);
    }
    return clientGroup;
}

json
Group(const std::string& name, uint32_t count, const std::string& hub)
{
    json group = {{"name", name},
                  {"count", count},
                  {"backhaul", {{"type", "p2p"}, {"rate", "100Mbps"}, {"delay", "1ms"}}}};
    if (!hub.empty())
    {
        group["hub"] = hub;
    }
    return group;
}

/// Per client: when the server had all `bytes` of its upload (-1: never).
struct Upload
{
    uint64_t bytes = 0;
    uint64_t received = 0;
    double doneS = -1.0;

    void Rx(Ptr<const Packet> packet, const Address&)
    {
        received += packet->GetSize();
        if (received >= bytes && doneS < 0)
        {
            doneS = Simulator::Now().GetSeconds();
        }
    }
};

/// Clients `senders` each upload `bytes` to the server at time 0, each on its own port.
std::vector<double>
RunUploads(const ScenarioConfig& config, const std::vector<uint32_t>& senders, uint64_t bytes)
{
    ConfigureBackhaulTcp();
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
    NetworkTopology topology(config, ClientGroups(config));
    topology.AssignStreams(0);
    std::vector<Upload> uploads(senders.size());
    for (size_t k = 0; k < senders.size(); ++k)
    {
        const uint16_t port = static_cast<uint16_t>(9000 + k);
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        Ptr<PacketSink> app = DynamicCast<PacketSink>(sink.Install(topology.GetServer()).Get(0));
        uploads[k].bytes = bytes;
        app->TraceConnectWithoutContext("Rx", MakeCallback(&Upload::Rx, &uploads[k]));
        BulkSendHelper bulk("ns3::TcpSocketFactory",
                            InetSocketAddress(topology.GetServerAddress(), port));
        bulk.SetAttribute("MaxBytes", UintegerValue(bytes));
        bulk.SetAttribute("SendSize", UintegerValue(1448 * 8));
        bulk.Install(topology.GetClient(senders[k])).Start(Seconds(0));
    }
    Simulator::Stop(Seconds(60));
    Simulator::Run();
    Simulator::Destroy();
    std::vector<double> done;
    for (const Upload& upload : uploads)
    {
        done.push_back(upload.doneS);
    }
    return done;
}

double
Span(const std::vector<double>& done, size_t from, size_t to)
{
    double last = 0.0;
    for (size_t k = from; k < to; ++k)
    {
        EXPECT_GT(done[k], 0.0) << "upload " << k << " did not finish";
        last = std::max(last, done[k]);
    }
    return last;
}

const json kTwoHubs = json::parse(R"([
    {"name": "a", "backhaul": {"type": "p2p", "rate": "10Mbps", "delay": "1ms"}},
    {"name": "b", "backhaul": {"type": "p2p", "rate": "10Mbps", "delay": "1ms"}}
])");

TEST(HubTopology, AHubLinkIsSharedByItsSitesAndOnlyByThem)
{
    constexpr uint64_t kBytes = 500'000;
    // The 10 Mbit/s hub link carries five uploads: at least 5 x 4 Mbit / 10 Mbit/s = 2 s.
    constexpr double kFloorS = 5.0 * kBytes * 8 / 10e6;
    const ScenarioConfig split =
        TreeConfig(json::array({Group("a", 5, "a"), Group("b", 5, "b")}), kTwoHubs);
    const std::vector<uint32_t> all = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    const std::vector<double> both = RunUploads(split, all, kBytes);
    const double spanA = Span(both, 0, 5);
    const double spanB = Span(both, 5, 10);
    EXPECT_GE(spanA, kFloorS);
    EXPECT_GE(spanB, kFloorS);
    // Hub b's sites alone: the same span within 1% (the uploads behind a share only the
    // 1 Gbit/s core with them).
    const std::vector<double> alone = RunUploads(split, {5, 6, 7, 8, 9}, kBytes);
    const double spanAlone = Span(alone, 0, 5);
    EXPECT_NEAR(spanB, spanAlone, 0.01 * spanAlone);
    // At most 15% above the floor: TCP keeps a 10 Mbit/s link full.
    EXPECT_LE(spanA, 1.15 * kFloorS);

    // All ten behind hub a: twice the bytes over the same link, twice the span.
    const ScenarioConfig shared =
        TreeConfig(json::array({Group("a", 5, "a"), Group("b", 5, "a")}), kTwoHubs);
    const double spanShared = Span(RunUploads(shared, all, kBytes), 0, 10);
    EXPECT_GE(spanShared, 2 * kFloorS);
    EXPECT_NEAR(spanShared / spanA, 2.0, 0.1);
}

void
Arrived(double* at, Ptr<Socket> socket)
{
    socket->Recv();
    *at = Simulator::Now().GetSeconds();
}

/// Sends one UDP datagram of `payload` bytes from client 0 to the server at 1 s; returns
/// when it arrived, minus 1 s.
double
OneWayS(const ScenarioConfig& config, uint32_t payload)
{
    ConfigureBackhaulTcp();
    NetworkTopology topology(config, ClientGroups(config));
    topology.AssignStreams(0);
    double arrivedS = -1.0;
    Ptr<Socket> sink = Socket::CreateSocket(topology.GetServer(), UdpSocketFactory::GetTypeId());
    sink->Bind(InetSocketAddress(Ipv4Address::GetAny(), 9999));
    sink->SetRecvCallback(MakeBoundCallback(&Arrived, &arrivedS));
    Ptr<Socket> source = Socket::CreateSocket(topology.GetClient(0), UdpSocketFactory::GetTypeId());
    source->Connect(InetSocketAddress(topology.GetServerAddress(), 9999));
    Simulator::Schedule(Seconds(1), [source, payload] { source->Send(Create<Packet>(payload)); });
    Simulator::Stop(Seconds(2));
    Simulator::Run();
    Simulator::Destroy();
    return arrivedS - 1.0;
}

TEST(HubTopology, DelaysAddUpAlongAChain)
{
    const json chain = json::parse(R"([
        {"name": "c0", "backhaul": {"type": "p2p", "rate": "100Mbps", "delay": "2ms"}},
        {"name": "c1", "parent": "c0", "backhaul": {"type": "p2p", "rate": "100Mbps", "delay": "4ms"}},
        {"name": "c2", "parent": "c1", "backhaul": {"type": "p2p", "rate": "100Mbps", "delay": "8ms"}}
    ])");
    constexpr uint32_t kPayload = 1000;
    const double frameBits = (kPayload + 28 + 2) * 8.0; // UDP/IPv4 and PPP headers
    const ScenarioConfig config = TreeConfig(json::array({Group("end", 1, "c2")}), chain, "10ms");
    // tail (100 Mbit/s, 1 ms), the three hub hops, the core (1 Gbit/s, 10 ms).
    const double expected = (0.001 + frameBits / 100e6) + (0.008 + frameBits / 100e6) +
                            (0.004 + frameBits / 100e6) + (0.002 + frameBits / 100e6) +
                            (0.010 + frameBits / 1e9);
    EXPECT_NEAR(OneWayS(config, kPayload), expected, 1e-7);
    // The same family as a chain of three: the same hops.
    const json family = json::parse(R"([{"name": "c", "count": 3, "chain": true,
        "backhaul": {"type": "p2p", "rate": "100Mbps", "delay": "4ms"}}])");
    const double three = 3 * (0.004 + frameBits / 100e6);
    const double direct =
        OneWayS(TreeConfig(json::array({Group("s", 1, "")}), json::array(), "10ms"), kPayload);
    EXPECT_NEAR(
        OneWayS(TreeConfig(json::array({Group("end", 1, "c-2")}), family, "10ms"), kPayload) -
            direct,
        three,
        1e-7);
}

/// Routes in `node`'s static routing table.
uint32_t
Routes(Ptr<Node> node)
{
    return Ipv4StaticRoutingHelper().GetStaticRouting(node->GetObject<Ipv4>())->GetNRoutes();
}

TEST(HubTopology, RoutersHoldOneRoutePerChildWhateverIsBehindIt)
{
    const json tree = json::parse(R"([{"name": "agg", "count": 2},
                                      {"name": "tail", "parent": "agg", "count": 4}])");
    std::vector<uint32_t> routerRoutes;
    std::vector<uint32_t> aggRoutes;
    for (uint32_t sites : {4u, 64u})
    {
        const ScenarioConfig config = TreeConfig(json::array({Group("s", sites, "tail")}), tree);
        NetworkTopology topology(config, ClientGroups(config));
        routerRoutes.push_back(Routes(topology.GetCoreRouterDevice()->GetNode()));
        aggRoutes.push_back(Routes(topology.GetHub(0)));
        Simulator::Destroy();
    }
    // Router: loopback, core, two hub links, two blocks.
    EXPECT_EQ(routerRoutes[0], 6u);
    EXPECT_EQ(routerRoutes[1], 6u);
    // agg-0: loopback, its uplink, default, two tail links, two tail blocks.
    EXPECT_EQ(aggRoutes[0], 7u);
    EXPECT_EQ(aggRoutes[1], 7u);
}

TEST(HubTopology, TracesAreTheSameAtAnyThreadCount)
{
    TempDir dir("hubs-threads");
    json scenario = TinyScenario(6, 4, 2);
    scenario["clients"]["groups"] = json::array({Group("near", 2, ""), Group("far", 4, "t")});
    scenario["network"]["hubs"] = json::parse(R"([
        {"name": "t", "count": 2, "chain": true,
         "backhaul": {"type": "p2p", "rate": "20Mbps", "delay": "3ms"}}])");
    scenario["output"] = {{"pcap", {"hub-t-1-up"}}};
    WriteFile(dir.Path() / "s.json", scenario.dump());
    ASSERT_EQ(RunFedran("run s.json --out a --quiet --threads 1", dir.Path()).exitCode, 0);
    ASSERT_EQ(RunFedran("run s.json --out b --quiet --threads 2", dir.Path()).exitCode, 0);
    ExpectSameTraces(
        dir.Path() / "a",
        dir.Path() / "b",
        {"rounds.csv", "clients.csv", "links.csv", "population.csv", "hub-t-1-up.pcap"});
    const auto population = ReadCsv(dir.Path() / "a" / "population.csv");
    ASSERT_EQ(population.size(), 6u);
    const std::vector<std::string> hubs = {"", "", "t-0", "t-1", "t-0", "t-1"};
    for (size_t i = 0; i < hubs.size(); ++i)
    {
        EXPECT_EQ(population[i].at("hub"), hubs[i]) << "client " << i;
    }
    std::set<std::string> links;
    uint64_t hubThroughput = 0;
    for (const auto& row : ReadCsv(dir.Path() / "a" / "links.csv"))
    {
        links.insert(row.at("link"));
        if (row.at("link") == "hub-t-0-up")
        {
            hubThroughput += std::stoull(row.at("throughput_bps"));
        }
    }
    EXPECT_TRUE(links.count("hub-t-0-up") && links.count("hub-t-1-down"));
    EXPECT_GT(hubThroughput, 0u);
    for (const auto& row : ReadCsv(dir.Path() / "a" / "clients.csv"))
    {
        EXPECT_EQ(row.at("hub"), hubs.at(std::stoul(row.at("client"))));
    }
}

} // namespace
} // namespace fedran::test
