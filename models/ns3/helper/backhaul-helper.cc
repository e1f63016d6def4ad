#include "models/ns3/helper/backhaul-helper.h"

#include "models/link-config/address-plan.h"
#include "models/ns3/helper/backhaul-queues.h"

#include <ns3/channel.h>
#include <ns3/data-rate.h>
#include <ns3/internet-stack-helper.h>
#include <ns3/ipv4-static-routing-helper.h>
#include <ns3/ipv4.h>
#include <ns3/nstime.h>
#include <ns3/point-to-point-helper.h>
#include <ns3/point-to-point-net-device.h>

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

BackhaulLink&
BackhaulHelper::LinkModel(const std::string& type)
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

BackhaulHelper::BackhaulHelper(const BackhaulSpec& spec)
    : m_spec(spec)
{
    const std::vector<BackhaulSpec::Hub>& hubs = m_spec.hubs;
    const std::vector<BackhaulSpec::Client>& clients = m_spec.clients;
    // Stated links first, in client order (a model's random streams follow its install
    // order); the clients they leave out get nodes.
    std::vector<std::unique_ptr<InstalledLink>> stated(clients.size());
    for (uint32_t i = 0; i < clients.size() && m_spec.statedClientLinks; ++i)
    {
        stated[i] = LinkModel(clients[i].backhaul.type).InstallStated(clients[i].backhaul);
    }
    m_server.Create(1);
    m_router.Create(1);
    NodeContainer clientNodes;
    m_clientNodes.resize(clients.size());
    for (uint32_t i = 0; i < clients.size(); ++i)
    {
        if (!stated[i])
        {
            m_clientNodes[i] = CreateObject<Node>();
            clientNodes.Add(m_clientNodes[i]);
        }
    }
    m_hubs.Create(hubs.size());
    if (clientNodes.GetN() < clients.size())
    {
        m_statedHost = CreateObject<Node>();
    }

    InternetStackHelper stack;
    stack.SetRoutingHelper(Ipv4StaticRoutingHelper());
    stack.Install(m_server);
    stack.Install(m_router);
    stack.Install(clientNodes);
    stack.Install(m_hubs);

    PointToPointHelper core;
    core.SetDeviceAttribute("DataRate", DataRateValue(DataRate(m_spec.coreRateBps)));
    core.SetChannelAttribute("Delay", TimeValue(Seconds(m_spec.coreDelayS)));
    NetDeviceContainer coreDevices = core.Install(m_server.Get(0), m_router.Get(0));
    const auto [serverAddress, routerCoreAddress] =
        AssignLink(coreDevices, fedran::AddressPlan::kCoreNetwork);
    SetHostQueue(coreDevices.Get(0), clients.size());
    m_coreRouterDevice = coreDevices.Get(1);
    m_coreQueue = InstallCoreQueue(m_coreRouterDevice,
                                   m_spec.coreQueue,
                                   m_spec.coreQueuePackets,
                                   m_spec.coreRateBps,
                                   m_spec.coreDelayS);
    // Uplink toward the server: the router's device sends it.
    NetDeviceContainer coreLink(coreDevices.Get(1), coreDevices.Get(0));
    m_coreLink = std::make_unique<PointToPointInstalledLink>(
        coreLink,
        [router = coreDevices.Get(1)] { return DeviceRate(router); },
        [] { return std::nan(""); },
        m_spec.coreRateBps);
    m_serverAddress = serverAddress;
    SetDefaultRoute(coreDevices.Get(0), routerCoreAddress);
    // The core port: the FIFO discipline plus the device's one-packet queue; the server's
    // side is an end host's queue.
    m_transportLinks.push_back({m_router.Get(0)->GetId(),
                                m_server.Get(0)->GetId(),
                                m_coreLink.get(),
                                nullptr,
                                m_spec.coreQueue == "fifo" ? m_spec.coreQueuePackets + 1 : 0,
                                0,
                                HostQueuePackets(clients.size())});
    const uint32_t routerFifo = m_spec.routerQueue == "fifo" ? m_spec.routerQueuePackets : 0;

    std::vector<int32_t> clientHub;
    for (const BackhaulSpec::Client& client : clients)
    {
        clientHub.push_back(client.hub);
        m_clientHub.push_back(client.hub < 0 ? "" : hubs[client.hub].name);
    }
    std::vector<int32_t> hubParent;
    for (const BackhaulSpec::Hub& hub : hubs)
    {
        hubParent.push_back(hub.parent);
    }
    const fedran::AddressPlan plan = fedran::PlanAddresses(hubParent, clientHub);
    auto upstream = [this](int32_t hub) {
        return hub < 0 ? m_router.Get(0) : m_hubs.Get(hub);
    };

    // One /30 per backhaul link; the router or hub learns each as a connected route.
    std::vector<TransportLink> clientTransport;
    for (uint32_t i = 0; i < clients.size(); ++i)
    {
        const fedran::LinkConfig& link = clients[i].backhaul;
        m_links.push_back(
            stated[i]
                ? std::move(stated[i])
                : LinkModel(link.type).Install(m_clientNodes[i], upstream(clientHub[i]), link));
        const InstalledLink& installed = *m_links.back();
        // A site's uplink leaves from its host queue; its downlink from a router port (none
        // where the link model routes the client itself, e.g. an LTE cell).
        clientTransport.push_back({GetClientEndpoint(i),
                                   upstream(clientHub[i])->GetId(),
                                   &installed,
                                   link.background ? &*link.background : nullptr,
                                   0,
                                   installed.RoutesClient() ? 0 : routerFifo});
        if (IsStated(i))
        {
            m_clientDevices.push_back(nullptr);
            m_routerDevices.push_back(nullptr);
            continue;
        }
        const NetDeviceContainer& devices = installed.GetDevices();
        m_clientDevices.push_back(devices.Get(0));
        m_routerDevices.push_back(devices.Get(1));
        if (installed.RoutesClient())
        {
            continue;
        }
        const Ipv4Address gateway = AssignLink(devices, plan.clientLink[i]).second;
        SetHostQueue(devices.Get(0), 1);
        InstallRouterQueue(devices.Get(1), m_spec.routerQueue, m_spec.routerQueuePackets);
        SetDefaultRoute(devices.Get(0), gateway);
        if (m_spec.packetBackground)
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
        InstallRouterQueue(devices.Get(0), m_spec.routerQueue, m_spec.routerQueuePackets);
        InstallRouterQueue(devices.Get(1), m_spec.routerQueue, m_spec.routerQueuePackets);
        SetDefaultRoute(devices.Get(0), parentAddress);
        AddBlockRoute(devices.Get(1), plan.hubBlock[h], hubAddress);
        m_transportLinks.push_back({m_hubs.Get(h)->GetId(),
                                    upstream(hubs[h].parent)->GetId(),
                                    &installed,
                                    link.background ? &*link.background : nullptr,
                                    routerFifo,
                                    routerFifo});
        if (m_spec.packetBackground)
        {
            m_background.Install(installed, link);
        }
    }
    m_transportLinks.insert(m_transportLinks.end(), clientTransport.begin(), clientTransport.end());
}

uint32_t
BackhaulHelper::GetClientEndpoint(uint32_t i) const
{
    return IsStated(i) ? kStatedEndpointBase + i : m_clientNodes[i]->GetId();
}

Ipv4Address
BackhaulHelper::GetHubAddress(uint32_t h) const
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
BackhaulHelper::GetTransportTopology() const
{
    return TransportTopology{m_transportLinks};
}

std::vector<NamedLinkDirection>
BackhaulHelper::GetDirections() const
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
BackhaulHelper::GetDirection(const std::string& name) const
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
BackhaulHelper::AssignStreams(int64_t stream)
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
