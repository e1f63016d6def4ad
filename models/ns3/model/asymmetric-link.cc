#include "models/ns3/model/asymmetric-link.h"

#include <ns3/data-rate.h>
#include <ns3/drop-tail-queue.h>
#include <ns3/mac48-address.h>
#include <ns3/net-device-queue-interface.h>
#include <ns3/point-to-point-helper.h>
#include <ns3/point-to-point-net-device.h>
#include <ns3/simulator.h>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(AsymmetricPointToPointChannel);

TypeId
AsymmetricPointToPointChannel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::AsymmetricPointToPointChannel")
            .SetParent<PointToPointChannel>()
            .SetGroupName("Fedran")
            .AddConstructor<AsymmetricPointToPointChannel>()
            .AddAttribute("DelayDown",
                          "Propagation delay from the second device to the first",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&AsymmetricPointToPointChannel::m_delayDown),
                          MakeTimeChecker());
    return tid;
}

bool
AsymmetricPointToPointChannel::TransmitStart(Ptr<const Packet> p,
                                             Ptr<PointToPointNetDevice> src,
                                             Time txTime)
{
    // As PointToPointChannel::TransmitStart, with the delay of the sending direction.
    const uint32_t wire = src == GetSource(0) ? 0 : 1;
    Ptr<PointToPointNetDevice> dst = GetDestination(wire);
    const Time delay = wire == 0 ? GetDelay() : m_delayDown;
    Simulator::ScheduleWithContext(dst->GetNode()->GetId(),
                                   txTime + delay,
                                   &PointToPointNetDevice::Receive,
                                   dst,
                                   p->Copy());
    return true;
}

namespace
{

/// One end of the link, as PointToPointHelper::Install makes it.
Ptr<PointToPointNetDevice>
MakeDevice(Ptr<Node> node, uint64_t bps)
{
    Ptr<PointToPointNetDevice> device = CreateObject<PointToPointNetDevice>();
    device->SetAddress(Mac48Address::Allocate());
    device->SetDataRate(DataRate(bps));
    node->AddDevice(device);
    Ptr<Queue<Packet>> queue = CreateObject<DropTailQueue<Packet>>();
    device->SetQueue(queue);
    Ptr<NetDeviceQueueInterface> ndqi = CreateObject<NetDeviceQueueInterface>();
    ndqi->GetTxQueue(0)->ConnectQueueTraces(queue);
    device->AggregateObject(ndqi);
    return device;
}

} // namespace

NetDeviceContainer
InstallPointToPoint(Ptr<Node> client, Ptr<Node> router, const PointToPointRates& rates)
{
    if (rates.upDelay == rates.downDelay && !rates.delayPerDirection)
    {
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(rates.upBps)));
        p2p.SetChannelAttribute("Delay", TimeValue(rates.upDelay));
        NetDeviceContainer devices = p2p.Install(client, router);
        if (rates.downBps != rates.upBps)
        {
            DynamicCast<PointToPointNetDevice>(devices.Get(1))
                ->SetDataRate(DataRate(rates.downBps));
        }
        return devices;
    }
    Ptr<PointToPointNetDevice> up = MakeDevice(client, rates.upBps);
    Ptr<PointToPointNetDevice> down = MakeDevice(router, rates.downBps);
    Ptr<AsymmetricPointToPointChannel> channel = CreateObject<AsymmetricPointToPointChannel>();
    channel->SetAttribute("Delay", TimeValue(rates.upDelay));
    channel->SetAttribute("DelayDown", TimeValue(rates.downDelay));
    up->Attach(channel);
    down->Attach(channel);
    NetDeviceContainer devices;
    devices.Add(up);
    devices.Add(down);
    return devices;
}

} // namespace ns3
