#include "bulk-transfer.h"

#include "sim-test-util.h"
#include "simulator/star-topology.h"

#include <ns3/bulk-send-helper.h>
#include <ns3/config.h>
#include <ns3/inet-socket-address.h>
#include <ns3/packet-sink-helper.h>
#include <ns3/packet-sink.h>
#include <ns3/rng-seed-manager.h>
#include <ns3/simulator.h>
#include <ns3/uinteger.h>

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
    scenario["clients"]["groups"][0]["backhaul"] = {{"type", "p2p"}, {"rate", rate}, {"delay", delay}};
    scenario["network"]["core"] = {{"rate", coreRate}, {"delay", coreDelay}};
    ValidateScenario(scenario);
    return ToConfig(scenario);
}

BulkResult
RunBulkUploads(const ScenarioConfig& config, uint64_t bytes, double stopS)
{
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4u << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(4u << 20));
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);

    const uint32_t clients = config.TotalClients();
    StarTopology topology(config, std::vector<uint32_t>(clients, 0));
    topology.AssignStreams(0);
    const uint16_t port = 9000;
    PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), port));
    Ptr<PacketSink> sink = DynamicCast<PacketSink>(sinkHelper.Install(topology.GetServer()).Get(0));
    Counter counter;
    counter.expected = bytes * clients;
    sink->TraceConnectWithoutContext("Rx", MakeCallback(&Counter::Rx, &counter));
    for (uint32_t i = 0; i < clients; ++i)
    {
        BulkSendHelper bulk("ns3::TcpSocketFactory",
                            InetSocketAddress(topology.GetServerAddress(), port));
        bulk.SetAttribute("MaxBytes", UintegerValue(bytes));
        bulk.SetAttribute("SendSize", UintegerValue(1448 * 8));
        bulk.Install(topology.GetClient(i));
    }
    Simulator::Stop(Seconds(stopS));
    Simulator::Run();
    BulkResult result;
    result.doneS = counter.doneS;
    result.coreDrops = topology.GetCoreQueue()->GetStats().nTotalDroppedPackets;
    Simulator::Destroy();
    return result;
}

} // namespace fedran::test
