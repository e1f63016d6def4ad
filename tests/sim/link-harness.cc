#include "link-harness.h"

#include "sim-test-util.h"
#include "simulator/network-topology.h"
#include "simulator/scenario/scenario.h"

#include <ns3/bulk-send-helper.h>
#include <ns3/config.h>
#include <ns3/inet-socket-address.h>
#include <ns3/packet-sink-helper.h>
#include <ns3/rng-seed-manager.h>
#include <ns3/simulator.h>
#include <ns3/uinteger.h>

namespace fedran::test
{

namespace
{

using namespace ns3;

struct Sampler
{
    const NetworkTopology* topology = nullptr;
    double intervalS = 0.0;
    uint64_t bytes = 0;
    uint64_t downlinkBytes = 0;
    std::vector<LinkSample> samples;

    void Received(Ptr<const Packet> packet)
    {
        bytes += packet->GetSize();
    }

    void ReceivedDownlink(Ptr<const Packet> packet)
    {
        downlinkBytes += packet->GetSize();
    }

    void Sample()
    {
        const InstalledLink& link = topology->GetLink(0);
        samples.push_back({Simulator::Now().GetSeconds() - intervalS,
                           Simulator::Now().GetSeconds(),
                           bytes * 8.0 / intervalS,
                           downlinkBytes * 8.0 / intervalS,
                           link.CapacityBps(),
                           link.SnrDb()});
        bytes = 0;
        downlinkBytes = 0;
        Simulator::Schedule(Seconds(intervalS), &Sampler::Sample, this);
    }
};

} // namespace

std::vector<LinkSample>
RunLink(const nlohmann::json& backhaul, const LinkRunOptions& options)
{
    nlohmann::json scenario = TinyScenario(1, 1, 1);
    scenario["clients"]["groups"][0]["backhaul"] = backhaul;
    scenario["network"]["core"] = {{"rate", "10Gbps"}, {"delay", "0ms"}};
    ValidateScenario(scenario);
    const ScenarioConfig config = ToConfig(scenario);

    ConfigureBackhaulTcp();
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(options.seed);

    NetworkTopology topology(config, {0});
    topology.AssignStreams(0);
    Sampler sampler;
    sampler.topology = &topology;
    sampler.intervalS = options.intervalS;
    topology.GetRouterDevice(0)->TraceConnectWithoutContext(
        "PhyRxEnd",
        MakeCallback(&Sampler::Received, &sampler));
    topology.GetClientDevice(0)->TraceConnectWithoutContext(
        "PhyRxEnd",
        MakeCallback(&Sampler::ReceivedDownlink, &sampler));
    if (options.upload)
    {
        const uint16_t port = 9000;
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        sink.Install(topology.GetServer());
        BulkSendHelper bulk("ns3::TcpSocketFactory",
                            InetSocketAddress(topology.GetServerAddress(), port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(1448 * 8));
        bulk.Install(topology.GetClient(0));
    }
    Simulator::Schedule(Seconds(options.intervalS), &Sampler::Sample, &sampler);
    Simulator::Stop(Seconds(options.durationS + 1e-9));
    Simulator::Run();
    Simulator::Destroy();
    return sampler.samples;
}

double
MeanThroughput(const std::vector<LinkSample>& samples, double fromS, double toS)
{
    double sum = 0.0;
    int count = 0;
    for (const LinkSample& s : samples)
    {
        if (s.startS + 1e-9 >= fromS && s.timeS <= toS + 1e-9)
        {
            sum += s.throughputBps;
            ++count;
        }
    }
    return count == 0 ? 0.0 : sum / count;
}

} // namespace fedran::test
