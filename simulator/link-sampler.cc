#include "simulator/link-sampler.h"

#include "simulator/trace-schema.h"

#include <ns3/callback.h>
#include <ns3/channel.h>
#include <ns3/data-rate.h>
#include <ns3/point-to-point-net-device.h>
#include <ns3/queue-disc.h>
#include <ns3/queue.h>
#include <ns3/simulator.h>
#include <ns3/traffic-control-layer.h>

#include <cmath>
#include <optional>

namespace ns3
{

namespace
{

void
CountBytes(uint64_t* bytes, Ptr<const Packet> packet)
{
    *bytes += packet->GetSize();
}

/// Bytes waiting to leave `device`: its own queue plus the queue discipline in front of it.
/// Empty for a device that is not point-to-point (lte: the backlog sits in RLC buffers that
/// ns-3 does not expose).
std::optional<uint64_t>
Backlog(Ptr<NetDevice> device)
{
    Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(device);
    if (!p2p)
    {
        return std::nullopt;
    }
    uint64_t bytes = p2p->GetQueue()->GetNBytes();
    Ptr<TrafficControlLayer> tc = device->GetNode()->GetObject<TrafficControlLayer>();
    Ptr<QueueDisc> qdisc = tc ? tc->GetRootQueueDiscOnDevice(device) : nullptr;
    return bytes + (qdisc ? qdisc->GetNBytes() : 0);
}

uint64_t
DeviceRate(Ptr<NetDevice> device)
{
    DataRateValue rate;
    device->GetAttribute("DataRate", rate);
    return rate.Get().GetBitRate();
}

} // namespace

LinkSampler::LinkSampler(const std::string& outDir,
                         const StarTopology& topology,
                         double intervalS)
    : m_intervalS(intervalS)
{
    m_csv = fedran::OpenTrace(outDir, "links.csv");
    auto noSnr = [] { return std::nan(""); };
    Ptr<NetDevice> coreRouter = topology.GetCoreRouterDevice();
    Ptr<NetDevice> coreServer = coreRouter->GetChannel()->GetDevice(0) == coreRouter
                                    ? coreRouter->GetChannel()->GetDevice(1)
                                    : coreRouter->GetChannel()->GetDevice(0);
    AddDirection("core-up", coreRouter, coreServer, [coreRouter] { return DeviceRate(coreRouter); }, noSnr);
    AddDirection("core-down", coreServer, coreRouter, [coreServer] { return DeviceRate(coreServer); }, noSnr);
    for (uint32_t i = 0; i < topology.GetClientCount(); ++i)
    {
        const InstalledLink& link = topology.GetLink(i);
        const std::string name = "client-" + std::to_string(i);
        if (link.connectDelivered)
        {
            for (bool uplink : {true, false})
            {
                Direction& d = AddDirection(name + (uplink ? "-up" : "-down"),
                                            link.devices.Get(uplink ? 0 : 1),
                                            nullptr,
                                            link.capacityBps,
                                            link.snrDb);
                link.connectDelivered(uplink, [&d](uint64_t bytes) { d.bytes += bytes; });
            }
            continue;
        }
        AddDirection(name + "-up",
                     link.devices.Get(0),
                     link.devices.Get(1),
                     link.capacityBps,
                     link.snrDb);
        AddDirection(name + "-down",
                     link.devices.Get(1),
                     link.devices.Get(0),
                     link.capacityBps,
                     link.snrDb);
    }
    Simulator::Schedule(Seconds(m_intervalS), &LinkSampler::Sample, this);
}

LinkSampler::Direction&
LinkSampler::AddDirection(std::string name,
                          Ptr<NetDevice> sender,
                          Ptr<NetDevice> receiver,
                          std::function<uint64_t()> capacityBps,
                          std::function<double()> snrDb)
{
    auto direction = std::make_unique<Direction>();
    direction->name = std::move(name);
    direction->sender = sender;
    direction->capacityBps = std::move(capacityBps);
    direction->snrDb = std::move(snrDb);
    if (receiver)
    {
        receiver->TraceConnectWithoutContext("PhyRxEnd",
                                             MakeBoundCallback(&CountBytes, &direction->bytes));
    }
    m_directions.push_back(std::move(direction));
    return *m_directions.back();
}

void
LinkSampler::Sample()
{
    const double now = Simulator::Now().GetSeconds();
    for (auto& d : m_directions)
    {
        m_csv->Add(now, 6)
            .Add(d->name)
            .Add(d->capacityBps())
            .Add(static_cast<uint64_t>(std::llround(d->bytes * 8.0 / m_intervalS)));
        const std::optional<uint64_t> backlog = Backlog(d->sender);
        if (backlog)
        {
            m_csv->Add(*backlog);
        }
        else
        {
            m_csv->AddEmpty();
        }
        const double snr = d->snrDb();
        if (std::isnan(snr))
        {
            m_csv->AddEmpty();
        }
        else
        {
            m_csv->Add(snr, 3);
        }
        m_csv->EndRow();
        d->bytes = 0;
    }
    m_csv->Flush();
    Simulator::Schedule(Seconds(m_intervalS), &LinkSampler::Sample, this);
}

} // namespace ns3
