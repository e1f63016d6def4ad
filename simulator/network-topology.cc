#include "simulator/network-topology.h"

#include "simulator/address-plan.h"

#include <ns3/boolean.h>
#include <ns3/channel.h>
#include <ns3/config.h>
#include <ns3/data-rate.h>
#include <ns3/enum.h>
#include <ns3/internet-stack-helper.h>
#include <ns3/ipv4-static-routing-helper.h>
#include <ns3/ipv4.h>
#include <ns3/nstime.h>
#include <ns3/point-to-point-helper.h>
#include <ns3/point-to-point-net-device.h>
#include <ns3/queue-size.h>
#include <ns3/tcp-westwood.h>
#include <ns3/traffic-control-helper.h>
#include <ns3/type-id.h>
#include <ns3/uinteger.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

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
 * Numbers a link's two devices from the /30 at `network` (devices[0] .1, devices[1] .2) and
 * brings the interfaces up, as Ipv4AddressHelper::Assign does, but without its allocator,
 * which scans every address handed out so far (quadratic set-up). Returns the two addresses.
 */
std::pair<Ipv4Address, Ipv4Address>
AssignLink(const NetDeviceContainer& devices, uint32_t network)
{
    for (uint32_t k = 0; k < 2; ++k)
    {
        Ptr<NetDevice> device = devices.Get(k);
        Ptr<Ipv4> ipv4 = device->GetNode()->GetObject<Ipv4>();
        int32_t interface = ipv4->GetInterfaceForDevice(device);
        if (interface < 0)
        {
            interface = static_cast<int32_t>(ipv4->AddInterface(device));
        }
        ipv4->AddAddress(
            interface,
            Ipv4InterfaceAddress(Ipv4Address(network + 1 + k), Ipv4Mask("255.255.255.252")));
        ipv4->SetMetric(interface, 1);
        ipv4->SetUp(interface);
    }
    return {Ipv4Address(network + 1), Ipv4Address(network + 2)};
}

/**
 * Queues: router and hub ports buffer as network.router.queue says (InstallRouterQueue; by
 * default the device's DropTail queue of 100 packets, like a radio or switch port), and an end host
 * (`host`) gets a pfifo_fast sized by HostQueuePackets, because CoDel would drop TCP's window at
 * the sender itself.
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

/**
 * A router or hub port toward a site or hub (network.router.queue). "fifo" is the device's own
 * DropTail queue, resized, with no queue discipline: with the default 100 packets the port is
 * exactly what it was before the key existed. "red" and "fq_codel" sit in front of a
 * one-packet device queue, as at the core port, so that the discipline decides drops.
 */
void
InstallRouterQueue(Ptr<NetDevice> port, const fedran::ScenarioConfig::Network& network)
{
    Ptr<PointToPointNetDevice> device = DynamicCast<PointToPointNetDevice>(port);
    const QueueSize limit(QueueSizeUnit::PACKETS, network.routerQueuePackets);
    if (network.routerQueue == "fifo")
    {
        device->GetQueue()->SetMaxSize(limit);
        return;
    }
    TrafficControlHelper tc;
    if (network.routerQueue == "red")
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

uint64_t
DeviceRate(Ptr<NetDevice> device)
{
    DataRateValue rate;
    device->GetAttribute("DataRate", rate);
    return rate.Get().GetBitRate();
}

/// The route from `device`'s node toward the core: through `device` to `gateway`.
void
SetDefaultRoute(Ptr<NetDevice> device, Ipv4Address gateway)
{
    Ptr<Ipv4> ipv4 = device->GetNode()->GetObject<Ipv4>();
    Ipv4StaticRoutingHelper().GetStaticRouting(ipv4)->SetDefaultRoute(
        gateway,
        ipv4->GetInterfaceForDevice(device));
}

/// At `device`'s node (a router or hub): the block behind a child hub, through `device`.
void
AddBlockRoute(Ptr<NetDevice> device, const fedran::AddressBlock& block, Ipv4Address hub)
{
    Ptr<Ipv4> ipv4 = device->GetNode()->GetObject<Ipv4>();
    Ipv4StaticRoutingHelper().GetStaticRouting(ipv4)->AddNetworkRouteTo(
        Ipv4Address(block.base),
        Ipv4Mask(std::string("/").append(std::to_string(block.PrefixLength())).c_str()),
        hub,
        ipv4->GetInterfaceForDevice(device));
}

} // namespace

namespace
{

/// network.tcp.congestion_control -> the ns-3.37 congestion-control TypeId.
const std::map<std::string, std::string> kCongestionControls = {
    {"cubic", "ns3::TcpCubic"},
    {"newreno", "ns3::TcpNewReno"},
    {"linux_reno", "ns3::TcpLinuxReno"},
    {"bbr", "ns3::TcpBbr"},
    {"bic", "ns3::TcpBic"},
    {"highspeed", "ns3::TcpHighSpeed"},
    {"htcp", "ns3::TcpHtcp"},
    {"hybla", "ns3::TcpHybla"},
    {"illinois", "ns3::TcpIllinois"},
    {"ledbat", "ns3::TcpLedbat"},
    {"lp", "ns3::TcpLp"},
    {"scalable", "ns3::TcpScalable"},
    {"vegas", "ns3::TcpVegas"},
    {"veno", "ns3::TcpVeno"},
    {"westwood", "ns3::TcpWestwood"},
    {"yeah", "ns3::TcpYeah"},
    {"dctcp", "ns3::TcpDctcp"},
};

} // namespace

std::string
TcpCongestionTypeId(const std::string& name)
{
    auto it = kCongestionControls.find(name);
    if (it == kCongestionControls.end())
    {
        throw std::invalid_argument("unknown network.tcp.congestion_control \"" + name + "\"");
    }
    return it->second;
}

void
ConfigureBackhaulTcp(const fedran::ScenarioConfig::Network::Tcp& tcp)
{
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4u << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(4u << 20));
    // Every value is set, defaults included: Config defaults outlive a run in one process.
    Config::SetDefault(
        "ns3::TcpL4Protocol::SocketType",
        TypeIdValue(TypeId::LookupByName(TcpCongestionTypeId(tcp.congestionControl))));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(tcp.initialWindow));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(tcp.delayedAck ? 2 : 1));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(tcp.sack));
    // BBR paces its sending (its model needs it; ns-3's TcpBbr expects pacing on); the others
    // send as ns-3 and Linux do by default, without pacing.
    Config::SetDefault("ns3::TcpSocketState::EnablePacing",
                       BooleanValue(tcp.congestionControl == "bbr"));
    // Westwood+ (the variant Linux ships), not the original Westwood.
    Config::SetDefault("ns3::TcpWestwood::ProtocolType", EnumValue(TcpWestwood::WESTWOODPLUS));
}

nlohmann::json
BackhaulTcpSettings()
{
    auto initial = [](const char* type, const char* attribute) {
        TypeId::AttributeInformation info;
        TypeId::LookupByName(type).LookupAttributeByName(attribute, &info);
        return info.initialValue->SerializeToString(info.checker);
    };
    return {{"socket_type", initial("ns3::TcpL4Protocol", "SocketType")},
            {"initial_cwnd_segments", std::stoul(initial("ns3::TcpSocket", "InitialCwnd"))},
            {"delayed_ack_count", std::stoul(initial("ns3::TcpSocket", "DelAckCount"))},
            {"sack", initial("ns3::TcpSocketBase", "Sack") == "true"},
            {"pacing", initial("ns3::TcpSocketState", "EnablePacing") == "true"},
            {"segment_size", std::stoul(initial("ns3::TcpSocket", "SegmentSize"))}};
}

BackhaulLink&
NetworkTopology::LinkModel(const std::string& type)
{
    std::unique_ptr<BackhaulLink>& model = m_linkModels[type];
    if (!model)
    {
        model = MakeBackhaulLink(type);
        if (!model)
        {
            throw std::invalid_argument("unknown backhaul type '" + type + "'");
        }
    }
    return *model;
}

NetworkTopology::NetworkTopology(const fedran::ScenarioConfig& config,
                                 const std::vector<uint32_t>& clientGroup,
                                 bool packetBackground)
{
    const std::vector<fedran::HubConfig>& hubs = config.network.hubs;
    m_server.Create(1);
    m_router.Create(1);
    m_clients.Create(clientGroup.size());
    m_hubs.Create(hubs.size());

    InternetStackHelper stack;
    stack.SetRoutingHelper(Ipv4StaticRoutingHelper());
    stack.Install(m_server);
    stack.Install(m_router);
    stack.Install(m_clients);
    stack.Install(m_hubs);

    PointToPointHelper core;
    core.SetDeviceAttribute("DataRate", DataRateValue(DataRate(config.network.coreRateBps)));
    core.SetChannelAttribute("Delay", TimeValue(Seconds(config.network.coreDelayS)));
    NetDeviceContainer coreDevices = core.Install(m_server.Get(0), m_router.Get(0));
    const auto [serverAddress, routerCoreAddress] =
        AssignLink(coreDevices, fedran::AddressPlan::kCoreNetwork);
    SetHostQueue(coreDevices.Get(0), clientGroup.size());
    m_coreRouterDevice = coreDevices.Get(1);
    m_coreQueue = InstallCoreQueue(m_coreRouterDevice, config.network);
    // Uplink toward the server: the router's device sends it.
    NetDeviceContainer coreLink(coreDevices.Get(1), coreDevices.Get(0));
    m_coreLink = std::make_unique<PointToPointInstalledLink>(
        coreLink,
        [router = coreDevices.Get(1)] { return DeviceRate(router); },
        [] { return std::nan(""); },
        config.network.coreRateBps);
    m_serverAddress = serverAddress;
    SetDefaultRoute(coreDevices.Get(0), routerCoreAddress);
    m_transportLinks.push_back({m_router.Get(0)->GetId(),
                                m_server.Get(0)->GetId(),
                                m_coreLink.get(),
                                config.network.coreDelayS,
                                nullptr});

    // Which hub each client hangs off: a group's clients take its hubs in turn.
    std::vector<int32_t> clientHub(clientGroup.size(), -1);
    std::vector<uint32_t> inGroup(config.groups.size(), 0);
    for (uint32_t i = 0; i < clientGroup.size(); ++i)
    {
        const std::vector<uint32_t>& groupHubs = config.groups.at(clientGroup[i]).hubs;
        const uint32_t j = inGroup[clientGroup[i]]++;
        if (!groupHubs.empty())
        {
            clientHub[i] = static_cast<int32_t>(groupHubs[j % groupHubs.size()]);
        }
        m_clientHub.push_back(clientHub[i] < 0 ? "" : hubs[clientHub[i]].name);
    }
    std::vector<int32_t> hubParent;
    for (const fedran::HubConfig& hub : hubs)
    {
        hubParent.push_back(hub.parent);
    }
    const fedran::AddressPlan plan = fedran::PlanAddresses(hubParent, clientHub);
    auto upstream = [this](int32_t hub) {
        return hub < 0 ? m_router.Get(0) : m_hubs.Get(hub);
    };

    // One /30 per backhaul link; the router or hub learns each as a connected route.
    std::vector<TransportLink> clientTransport;
    for (uint32_t i = 0; i < clientGroup.size(); ++i)
    {
        const fedran::LinkConfig& link = config.groups.at(clientGroup[i]).backhaul;
        m_links.push_back(
            LinkModel(link.type).Install(m_clients.Get(i), upstream(clientHub[i]), link));
        const InstalledLink& installed = *m_links.back();
        const NetDeviceContainer& devices = installed.GetDevices();
        m_clientDevices.push_back(devices.Get(0));
        m_routerDevices.push_back(devices.Get(1));
        clientTransport.push_back({m_clients.Get(i)->GetId(),
                                   upstream(clientHub[i])->GetId(),
                                   &installed,
                                   link.delayS,
                                   link.background ? &*link.background : nullptr});
        if (installed.RoutesClient())
        {
            continue;
        }
        const Ipv4Address gateway = AssignLink(devices, plan.clientLink[i]).second;
        SetHostQueue(devices.Get(0), 1);
        InstallRouterQueue(devices.Get(1), config.network);
        SetDefaultRoute(devices.Get(0), gateway);
        if (packetBackground)
        {
            m_background.Install(installed, link);
        }
    }

    // Each hub's link to its parent; the parent routes the hub's block through it.
    for (uint32_t h = 0; h < hubs.size(); ++h)
    {
        m_hubNames.push_back(hubs[h].name);
        const fedran::LinkConfig& link = hubs[h].backhaul;
        m_hubLinks.push_back(
            LinkModel(link.type).Install(m_hubs.Get(h), upstream(hubs[h].parent), link));
        const InstalledLink& installed = *m_hubLinks.back();
        const NetDeviceContainer& devices = installed.GetDevices();
        const auto [hubAddress, parentAddress] = AssignLink(devices, plan.hubLink[h]);
        InstallRouterQueue(devices.Get(0), config.network);
        InstallRouterQueue(devices.Get(1), config.network);
        SetDefaultRoute(devices.Get(0), parentAddress);
        AddBlockRoute(devices.Get(1), plan.hubBlock[h], hubAddress);
        m_transportLinks.push_back({m_hubs.Get(h)->GetId(),
                                    upstream(hubs[h].parent)->GetId(),
                                    &installed,
                                    link.delayS,
                                    link.background ? &*link.background : nullptr});
        if (packetBackground)
        {
            m_background.Install(installed, link);
        }
    }
    m_transportLinks.insert(m_transportLinks.end(), clientTransport.begin(), clientTransport.end());
}

Ipv4Address
NetworkTopology::GetHubAddress(uint32_t h) const
{
    Ptr<Ipv4> ipv4 = m_hubs.Get(h)->GetObject<Ipv4>();
    for (uint32_t i = 1; i < ipv4->GetNInterfaces(); ++i) // 0 is the loopback
    {
        if (ipv4->GetNAddresses(i) > 0)
        {
            return ipv4->GetAddress(i, 0).GetLocal();
        }
    }
    NS_FATAL_ERROR("hub " << m_hubNames[h] << " has no address");
    return Ipv4Address();
}

TransportTopology
NetworkTopology::GetTransportTopology() const
{
    return TransportTopology{m_transportLinks};
}

std::vector<NamedLinkDirection>
NetworkTopology::GetDirections() const
{
    std::vector<NamedLinkDirection> directions;
    directions.reserve(2 * (m_links.size() + m_hubLinks.size() + 1));
    auto add = [&](const std::string& link, const InstalledLink& installed) {
        directions.push_back({link + "-up", &installed, LinkDirection::Uplink});
        directions.push_back({link + "-down", &installed, LinkDirection::Downlink});
    };
    add("core", *m_coreLink);
    for (size_t h = 0; h < m_hubLinks.size(); ++h)
    {
        add("hub-" + m_hubNames[h], *m_hubLinks[h]);
    }
    for (size_t i = 0; i < m_links.size(); ++i)
    {
        add("client-" + std::to_string(i), *m_links[i]);
    }
    return directions;
}

NamedLinkDirection
NetworkTopology::GetDirection(const std::string& name) const
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
NetworkTopology::AssignStreams(int64_t stream)
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
