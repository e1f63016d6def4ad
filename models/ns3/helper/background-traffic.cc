#include "models/ns3/helper/background-traffic.h"

#include <ns3/inet-socket-address.h>
#include <ns3/ipv4.h>
#include <ns3/packet-sink-helper.h>
#include <ns3/uinteger.h>

#include <stdexcept>

namespace ns3
{

namespace
{

/// The IPv4 address of `device` on its link.
Ipv4Address
AddressOf(Ptr<NetDevice> device)
{
    Ptr<Ipv4> ipv4 = device->GetNode()->GetObject<Ipv4>();
    const int32_t interface = ipv4 ? ipv4->GetInterfaceForDevice(device) : -1;
    if (interface < 0)
    {
        throw std::logic_error("background traffic needs an IPv4 address on each link end");
    }
    return ipv4->GetAddress(interface, 0).GetLocal();
}

} // namespace

void
BackgroundTraffic::Install(const InstalledLink& link, const fedran::LinkConfig& config)
{
    if (!config.background || config.background->load <= 0.0)
    {
        return;
    }
    if (link.NominalRateBps() == 0)
    {
        // A link model must say what capacity `load` is a fraction of (InstalledLink).
        throw std::logic_error(config.path + ".background: the " + config.type +
                               " link model gives no nominal capacity");
    }
    const fedran::BackgroundConfig& bg = *config.background;
    auto installDirection = [&](Ptr<NetDevice> from, Ptr<NetDevice> to, LinkDirection direction) {
        // Each direction a fraction of its own capacity (an asymmetric link's differ).
        const double peakBps =
            bg.PeakFraction() * static_cast<double>(link.NominalRateBpsOf(direction));
        const Time interval = Seconds((bg.packetBytes + kWireOverhead) * 8.0 / peakBps);
        // One discarding sink per node, bound to any address: the router ends every link, and
        // UDP demultiplexing scans a node's sockets, so a sink per link would cost O(links)
        // per background packet there.
        if (m_sinkNodes.insert(to->GetNode()->GetId()).second)
        {
            PacketSinkHelper("ns3::UdpSocketFactory",
                             InetSocketAddress(Ipv4Address::GetAny(), kPort))
                .Install(to->GetNode());
        }
        const InetSocketAddress sinkAddress(AddressOf(to), kPort);
        Ptr<BackgroundSource> source = CreateObject<BackgroundSource>();
        source->SetAttribute("Remote", AddressValue(sinkAddress));
        source->SetAttribute("PacketSize", UintegerValue(bg.packetBytes));
        source->SetAttribute("Interval", TimeValue(interval));
        source->SetAttribute("MeanOnTime", TimeValue(Seconds(bg.meanOnS)));
        source->SetAttribute("MeanOffTime", TimeValue(Seconds(bg.onOff ? bg.meanOffS : 0.0)));
        from->GetNode()->AddApplication(source);
        m_sources.push_back(source);
    };
    for (LinkDirection direction : {LinkDirection::Uplink, LinkDirection::Downlink})
    {
        if (direction == LinkDirection::Uplink ? bg.uplink : bg.downlink)
        {
            installDirection(link.GetSender(direction), link.GetReceiver(direction), direction);
        }
    }
}

int64_t
BackgroundTraffic::AssignStreams(int64_t stream)
{
    int64_t used = 0;
    for (Ptr<BackgroundSource>& source : m_sources)
    {
        used += source->AssignStreams(stream + used);
    }
    return used;
}

} // namespace ns3
