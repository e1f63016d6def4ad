#include "simulator/star-topology.h"

#include <ns3/config.h>
#include <ns3/data-rate.h>
#include <ns3/internet-stack-helper.h>
#include <ns3/ipv4-address-helper.h>
#include <ns3/ipv4-static-routing-helper.h>
#include <ns3/ipv4.h>
#include <ns3/nstime.h>
#include <ns3/point-to-point-helper.h>
#include <ns3/point-to-point-net-device.h>
#include <ns3/queue-size.h>
#include <ns3/traffic-control-helper.h>
#include <ns3/type-id.h>
#include <ns3/uinteger.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{

namespace
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
 * Assigns addresses and sets the queues. Address assignment installs fq_codel on every device;
 * instead, the router's ports buffer in a plain FIFO (the device's DropTail queue of 100
 * packets), like a radio or switch port, and each end host (devices[0]) gets a pfifo_fast
 * sized by HostQueuePackets, because CoDel would drop TCP's window at the sender itself.
 */
Ipv4InterfaceContainer
AssignAndSetQueues(Ipv4AddressHelper& addresses,
                   const NetDeviceContainer& devices,
                   uint32_t hostConnections)
{
    Ipv4InterfaceContainer ifs = addresses.Assign(devices);
    TrafficControlHelper().Uninstall(devices);
    TrafficControlHelper host;
    host.SetRootQueueDisc(
        "ns3::PfifoFastQueueDisc",
        "MaxSize",
        QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, HostQueuePackets(hostConnections))));
    host.Install(devices.Get(0));
    return ifs;
}

/**
 * The router's port toward the server, where every upload meets: a traffic-control queue
 * discipline holds the backlog, in front of a one-packet device queue (as BQL keeps a Linux
 * driver's ring short), so that the discipline, not the device FIFO, decides drops and delay.
 */
Ptr<QueueDisc>
InstallCoreQueue(Ptr<NetDevice> routerPort, const fedran::ScenarioConfig::Network& network)
{
    const QueueSizeValue limit(QueueSize(QueueSizeUnit::PACKETS, network.coreQueuePackets));
    TrafficControlHelper tc;
    if (network.coreQueue == "red")
    {
        tc.SetRootQueueDisc("ns3::RedQueueDisc",
                            "MaxSize",
                            limit,
                            "LinkBandwidth",
                            DataRateValue(DataRate(network.coreRateBps)),
                            "LinkDelay",
                            TimeValue(Seconds(network.coreDelayS)));
    }
    else if (network.coreQueue == "fq_codel")
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

uint64_t
DeviceRate(Ptr<NetDevice> device)
{
    DataRateValue rate;
    device->GetAttribute("DataRate", rate);
    return rate.Get().GetBitRate();
}

void
SetDefaultRoute(Ptr<Node> node, Ipv4Address gateway)
{
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    Ipv4StaticRoutingHelper helper;
    // Interface 1 is the node's only link (0 is loopback).
    helper.GetStaticRouting(ipv4)->SetDefaultRoute(gateway, 1);
}

} // namespace

void
ConfigureBackhaulTcp()
{
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4u << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(4u << 20));
}

StarTopology::StarTopology(const fedran::ScenarioConfig& config,
                           const std::vector<uint32_t>& clientGroup)
{
    m_server.Create(1);
    m_router.Create(1);
    m_clients.Create(clientGroup.size());

    InternetStackHelper stack;
    stack.SetRoutingHelper(Ipv4StaticRoutingHelper());
    stack.Install(m_server);
    stack.Install(m_router);
    stack.Install(m_clients);

    PointToPointHelper core;
    core.SetDeviceAttribute("DataRate", DataRateValue(DataRate(config.network.coreRateBps)));
    core.SetChannelAttribute("Delay", TimeValue(Seconds(config.network.coreDelayS)));
    NetDeviceContainer coreDevices = core.Install(m_server.Get(0), m_router.Get(0));
    Ipv4AddressHelper coreAddresses("10.0.0.0", "255.255.255.252");
    Ipv4InterfaceContainer coreIfs = AssignAndSetQueues(coreAddresses, coreDevices, clientGroup.size());
    m_coreRouterDevice = coreDevices.Get(1);
    m_coreQueue = InstallCoreQueue(m_coreRouterDevice, config.network);
    // Uplink toward the server: the router's device sends it.
    NetDeviceContainer coreLink(coreDevices.Get(1), coreDevices.Get(0));
    m_coreLink = std::make_unique<PointToPointInstalledLink>(
        coreLink,
        [router = coreDevices.Get(1)] { return DeviceRate(router); },
        [] { return std::nan(""); },
        config.network.coreRateBps);
    m_serverAddress = coreIfs.GetAddress(0);
    SetDefaultRoute(m_server.Get(0), coreIfs.GetAddress(1));

    // One /30 per backhaul link; the router learns each as a connected route.
    Ipv4AddressHelper backhaulAddresses("10.128.0.0", "255.255.255.252");
    for (uint32_t i = 0; i < clientGroup.size(); ++i)
    {
        const fedran::LinkConfig& link = config.groups.at(clientGroup[i]).backhaul;
        auto& model = m_linkModels[link.type];
        if (!model)
        {
            model = MakeBackhaulLink(link.type);
            if (!model)
            {
                throw std::invalid_argument("unknown backhaul type '" + link.type + "'");
            }
        }
        m_links.push_back(model->Install(m_clients.Get(i), m_router.Get(0), link));
        const InstalledLink& installed = *m_links.back();
        const NetDeviceContainer& devices = installed.GetDevices();
        m_clientDevices.push_back(devices.Get(0));
        m_routerDevices.push_back(devices.Get(1));
        if (installed.RoutesClient())
        {
            continue;
        }
        Ipv4InterfaceContainer ifs = AssignAndSetQueues(backhaulAddresses, devices, 1);
        backhaulAddresses.NewNetwork();
        SetDefaultRoute(m_clients.Get(i), ifs.GetAddress(1));
        m_background.Install(installed, link);
    }
}

std::vector<NamedLinkDirection>
StarTopology::GetDirections() const
{
    std::vector<NamedLinkDirection> directions;
    directions.reserve(2 * (m_links.size() + 1));
    auto add = [&](const std::string& link, const InstalledLink& installed) {
        directions.push_back({link + "-up", &installed, LinkDirection::Uplink});
        directions.push_back({link + "-down", &installed, LinkDirection::Downlink});
    };
    add("core", *m_coreLink);
    for (size_t i = 0; i < m_links.size(); ++i)
    {
        add("client-" + std::to_string(i), *m_links[i]);
    }
    return directions;
}

NamedLinkDirection
StarTopology::GetDirection(const std::string& name) const
{
    for (NamedLinkDirection& direction : GetDirections())
    {
        if (direction.name == name)
        {
            return direction;
        }
    }
    throw std::invalid_argument("no link direction \"" + name + "\"");
}

int64_t
StarTopology::AssignStreams(int64_t stream)
{
    int64_t used = 0;
    for (auto& [type, model] : m_linkModels)
    {
        used += model->AssignStreams(stream + used);
    }
    // After the links': a scenario without background keeps its stream numbers.
    return used + m_background.AssignStreams(stream + used);
}

} // namespace ns3
