#include "bulk-transfer.h"

#include "sim-test-util.h"
#include "simulator/network-topology.h"

#include <ns3/bulk-send-helper.h>
#include <ns3/config.h>
#include <ns3/inet-socket-address.h>
#include <ns3/ipv4.h>
#include <ns3/packet-sink-helper.h>
#include <ns3/packet-sink.h>
#include <ns3/point-to-point-net-device.h>
#include <ns3/queue-disc.h>
#include <ns3/queue.h>
#include <ns3/rng-seed-manager.h>
#include <ns3/simulator.h>
#include <ns3/traffic-control-layer.h>
#include <ns3/uinteger.h>

#include <algorithm>

namespace fedran::test
{

namespace
{

using namespace ns3;

struct Counter
{
    uint64_t expected = 0;
    uint64_t received = 0;
    double doneS = -1.0;

    void Rx(Ptr<const Packet> packet, const Address&)
    {
        received += packet->GetSize();
        if (received >= expected && doneS < 0)
        {
            doneS = Simulator::Now().GetSeconds();
            Simulator::Stop();
        }
    }
};

} // namespace

ScenarioConfig
BulkConfig(uint32_t clients,
           const std::string& rate,
           const std::string& delay,
           const std::string& coreRate,
           const std::string& coreDelay)
{
    nlohmann::json scenario = TinyScenario(clients, 1, 1);
    scenario["clients"]["groups"][0]["backhaul"] = {{"type", "p2p"},
                                                    {"rate", rate},
                                                    {"delay", delay}};
    scenario["network"]["core"] = {{"rate", coreRate}, {"delay", coreDelay}};
    ValidateScenario(scenario);
    return ToConfig(scenario);
}

namespace
{

/// Drops in the server's queue discipline and device queue toward the core.
uint64_t
ServerDrops(const NetworkTopology& topology)
{
    Ptr<Node> server = topology.GetServer();
    Ptr<PointToPointNetDevice> device = DynamicCast<PointToPointNetDevice>(server->GetDevice(1));
    Ptr<QueueDisc> qdisc =
        server->GetObject<TrafficControlLayer>()->GetRootQueueDiscOnDevice(device);
    return qdisc->GetStats().nTotalDroppedPackets + device->GetQueue()->GetTotalDroppedPackets();
}

BulkResult
RunBulk(const ScenarioConfig& config, uint64_t bytes, double stopS, bool upload)
{
    ConfigureBackhaulTcp(config.network.tcp);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);

    const uint32_t clients = config.TotalClients();
    NetworkTopology topology(config, std::vector<uint32_t>(clients, 0));
    topology.AssignStreams(0);
    const uint16_t port = 9000;
    PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), port));
    Counter counter;
    counter.expected = bytes * clients;
    BulkResult result;
    BulkSendHelper bulk("ns3::TcpSocketFactory", Address());
    bulk.SetAttribute("MaxBytes", UintegerValue(bytes));
    bulk.SetAttribute("SendSize", UintegerValue(1448 * 8));
    for (uint32_t i = 0; i < clients; ++i)
    {
        Ptr<Node> sender = upload ? topology.GetClient(i) : topology.GetServer();
        Ptr<Node> receiver = upload ? topology.GetServer() : topology.GetClient(i);
        if (!upload || i == 0)
        {
            Ptr<PacketSink> sink = DynamicCast<PacketSink>(sinkHelper.Install(receiver).Get(0));
            sink->TraceConnectWithoutContext("Rx", MakeCallback(&Counter::Rx, &counter));
        }
        const Ipv4Address to = receiver->GetObject<Ipv4>()->GetAddress(1, 0).GetLocal();
        bulk.SetAttribute("Remote", AddressValue(InetSocketAddress(to, port)));
        bulk.Install(sender).Start(Seconds(topology.GetLink(i).ReadyS()));
        result.startS = std::max(result.startS, topology.GetLink(i).ReadyS());
    }
    Simulator::Stop(Seconds(stopS));
    Simulator::Run();
    result.doneS = counter.doneS;
    result.coreDrops = topology.GetCoreQueue()->GetStats().nTotalDroppedPackets;
    result.serverDrops = ServerDrops(topology);
    Simulator::Destroy();
    return result;
}

} // namespace

BulkResult
RunBulkUploads(const ScenarioConfig& config, uint64_t bytes, double stopS)
{
    return RunBulk(config, bytes, stopS, true);
}

BulkResult
RunBulkDownloads(const ScenarioConfig& config, uint64_t bytes, double stopS)
{
    return RunBulk(config, bytes, stopS, false);
}

} // namespace fedran::test
