#include "models/ns3/helper/backhaul-queues.h"

#include <ns3/channel.h>
#include <ns3/data-rate.h>
#include <ns3/nstime.h>
#include <ns3/point-to-point-net-device.h>
#include <ns3/queue-size.h>
#include <ns3/traffic-control-helper.h>
#include <ns3/type-id.h>
#include <ns3/uinteger.h>

#include <algorithm>

namespace ns3
{

/**
 * Packets an end host's queue may hold: the send buffers of all its TCP connections, and at
 * least a Linux txqueuelen (1000). A Linux host never drops its own TCP packets: TCP small
 * queues keep each socket's share of the qdisc to a few packets and a full qdisc pushes back
 * into the socket buffer. ns-3 TCP has neither and pushes its whole window into the device,
 * so a smaller queue would drop at the sender itself; the server, which starts a download to
 * every selected client at once, would then lose a retransmission timeout (1 s) in most rounds.
 */
uint32_t
HostQueuePackets(uint32_t connections)
{
    const TypeId tcp = TypeId::LookupByName("ns3::TcpSocket");
    TypeId::AttributeInformation info;
    uint64_t sndBuf = 0;
    uint64_t segment = 0;
    if (tcp.LookupAttributeByName("SndBufSize", &info))
    {
        sndBuf = DynamicCast<const UintegerValue>(info.initialValue)->Get();
    }
    if (tcp.LookupAttributeByName("SegmentSize", &info))
    {
        segment = DynamicCast<const UintegerValue>(info.initialValue)->Get();
    }
    const uint64_t perConnection = segment > 0 ? (sndBuf + segment - 1) / segment : 0;
    return static_cast<uint32_t>(std::max<uint64_t>(1000, connections * perConnection));
}

/**
 * Queues: router and hub ports buffer as network.router.queue says (InstallRouterQueue; by
 * default the device's DropTail queue of 100 packets, like a radio or switch port), and an
 * end host (`host`) gets a pfifo_fast sized by HostQueuePackets, because CoDel would drop
 * TCP's window at the sender itself.
 */
void
SetHostQueue(Ptr<NetDevice> host, uint32_t hostConnections)
{
    TrafficControlHelper tc;
    tc.SetRootQueueDisc(
        "ns3::PfifoFastQueueDisc",
        "MaxSize",
        QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, HostQueuePackets(hostConnections))));
    tc.Install(host);
}

/**
 * The router's port toward the server, where every upload meets: a traffic-control queue
 * discipline holds the backlog, in front of a one-packet device queue (as BQL keeps a Linux
 * driver's ring short), so that the discipline, not the device FIFO, decides drops and delay.
 */
Ptr<QueueDisc>
InstallCoreQueue(Ptr<NetDevice> routerPort,
                 const std::string& discipline,
                 uint32_t packets,
                 uint64_t rateBps,
                 double delayS)
{
    const QueueSizeValue limit(QueueSize(QueueSizeUnit::PACKETS, packets));
    TrafficControlHelper tc;
    if (discipline == "red")
    {
        tc.SetRootQueueDisc("ns3::RedQueueDisc",
                            "MaxSize",
                            limit,
                            "LinkBandwidth",
                            DataRateValue(DataRate(rateBps)),
                            "LinkDelay",
                            TimeValue(Seconds(delayS)));
    }
    else if (discipline == "fq_codel")
    {
        tc.SetRootQueueDisc("ns3::FqCoDelQueueDisc", "MaxSize", limit);
    }
    else
    {
        tc.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", limit);
    }
    DynamicCast<PointToPointNetDevice>(routerPort)->GetQueue()->SetMaxSize(QueueSize("1p"));
    return tc.Install(routerPort).Get(0);
}

/**
 * A router or hub port toward a site or hub (network.router.queue). "fifo" is the device's own
 * DropTail queue, resized, with no queue discipline: with the default 100 packets the port is
 * exactly what it was before the key existed. "red" and "fq_codel" sit in front of a
 * one-packet device queue, as at the core port, so that the discipline decides drops.
 */
void
InstallRouterQueue(Ptr<NetDevice> port, const std::string& discipline, uint32_t packets)
{
    Ptr<PointToPointNetDevice> device = DynamicCast<PointToPointNetDevice>(port);
    const QueueSize limit(QueueSizeUnit::PACKETS, packets);
    if (discipline == "fifo")
    {
        device->GetQueue()->SetMaxSize(limit);
        return;
    }
    TrafficControlHelper tc;
    if (discipline == "red")
    {
        DataRateValue rate;
        device->GetAttribute("DataRate", rate);
        TimeValue delay;
        device->GetChannel()->GetAttribute("Delay", delay);
        tc.SetRootQueueDisc("ns3::RedQueueDisc",
                            "MaxSize",
                            QueueSizeValue(limit),
                            "LinkBandwidth",
                            rate,
                            "LinkDelay",
                            delay);
    }
    else
    {
        tc.SetRootQueueDisc("ns3::FqCoDelQueueDisc", "MaxSize", QueueSizeValue(limit));
    }
    device->GetQueue()->SetMaxSize(QueueSize("1p"));
    tc.Install(port);
}

} // namespace ns3
