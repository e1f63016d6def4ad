#ifndef FEDRAN_MODELS_NS3_HELPER_BACKHAUL_HELPER_H
#define FEDRAN_MODELS_NS3_HELPER_BACKHAUL_HELPER_H

#include "models/link-config/link-config.h"
#include "models/ns3/helper/background-traffic.h"
#include "models/ns3/model/backhaul-link.h"
#include "models/ns3/model/transport-topology.h"

#include <ns3/ipv4-address.h>
#include <ns3/net-device-container.h>
#include <ns3/node-container.h>
#include <ns3/queue-disc.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/// One direction of a link, named as in links.csv and output.pcap ("core-up", "hub-agg-0-up",
/// "client-3-down").
struct NamedLinkDirection
{
    std::string name;
    const InstalledLink* link = nullptr;
    LinkDirection direction = LinkDirection::Uplink;
};

/// What BackhaulHelper builds: the core link, the router and hub ports' queues, the hubs and
/// the clients, each with its backhaul link (plain settings; a scenario's network section
/// fills them in simulator/network-topology.cc).
struct BackhaulSpec
{
    uint64_t coreRateBps = 1'000'000'000;
    double coreDelayS = 0.0;
    std::string coreQueue = "fifo"; ///< the router's port toward the server: fifo, red, fq_codel
    uint32_t coreQueuePackets = 100;
    std::string routerQueue = "fifo"; ///< router and hub ports toward sites and hubs
    uint32_t routerQueuePackets = 100;

    struct Hub
    {
        std::string name;
        int32_t parent = -1;         ///< index of the parent hub; -1: the aggregation router
        fedran::LinkConfig backhaul; ///< the link to the parent; uplink is what the hub sends
    };

    std::vector<Hub> hubs; ///< parents come first (no loops)

    struct Client
    {
        int32_t hub = -1;            ///< index of the hub it hangs off; -1: the router
        fedran::LinkConfig backhaul; ///< the link to it; uplink is what the client sends
    };

    std::vector<Client> clients;
    /// Background traffic (backhaul.background) as packet sources; a transport that carries
    /// no packets makes its own (GetTransportTopology).
    bool packetBackground = true;
    /// Client links as stated numbers wherever the model can state them
    /// (BackhaulLink::InstallStated), for a transport that carries no packets: such a client
    /// has no node, stack, device or address of its own.
    bool statedClientLinks = false;
};

/**
 * Builds and holds an FL backhaul network, a tree: server -- core link -- aggregation
 * router -- the hubs, each a router with its own backhaul link to its parent (the
 * aggregation router or another hub) -- one backhaul link per client, to its hub or to the
 * aggregation router (lte: the UE's radio link to its eNB, then the EPC behind the router).
 * Without hubs it is a star.
 *
 * Routing is static and computed from the tree (models/link-config/address-plan.h): every
 * end host and hub has a default route toward the core, and each router one network route
 * per child hub (its subtree's aligned block) besides its connected links. No global
 * routing: its all-pairs computation would only cost time and memory at scale. Set-up is
 * linear in the number of links (addresses are assigned directly, without
 * Ipv4AddressHelper's allocator). AssignStreams fixes the random streams of every link
 * model and background source.
 */
class BackhaulHelper
{
  public:
    /// Builds nodes, links, addresses, queues and routes as `spec` says.
    explicit BackhaulHelper(const BackhaulSpec& spec);
    virtual ~BackhaulHelper() = default;
    BackhaulHelper(const BackhaulHelper&) = delete;
    BackhaulHelper& operator=(const BackhaulHelper&) = delete;

    Ptr<Node> GetServer() const
    {
        return m_server.Get(0);
    }

    Ipv4Address GetServerAddress() const
    {
        return m_serverAddress;
    }

    uint32_t GetClientCount() const
    {
        return static_cast<uint32_t>(m_clientNodes.size());
    }

    /// Client i's node; for a client on a stated link (BackhaulSpec::statedClientLinks), the
    /// one node without stack or devices that the applications of all such clients share
    /// (an ns-3 application needs a node; the transport finds the client by its endpoint).
    Ptr<Node> GetClient(uint32_t i) const
    {
        return m_clientNodes[i] ? m_clientNodes[i] : m_statedHost;
    }

    /// Whether client i's link is stated numbers only (no node, device or address of its own).
    bool IsStated(uint32_t i) const
    {
        return !m_clientNodes[i];
    }

    /// Client i's end in GetTransportTopology: its node id, or for a stated client an id
    /// above every node's (kStatedEndpointBase + i).
    uint32_t GetClientEndpoint(uint32_t i) const;

    /// Backhaul device at the client end (null for a stated client): its transmissions are
    /// uplink traffic.
    Ptr<NetDevice> GetClientDevice(uint32_t i) const
    {
        return m_clientDevices[i];
    }

    /// Backhaul device at the network end (the router's or the hub's; lte: the eNB's, shared
    /// by its cell; null for a stated client): its transmissions are downlink traffic.
    Ptr<NetDevice> GetRouterDevice(uint32_t i) const
    {
        return m_routerDevices[i];
    }

    /// The router's queue discipline toward the server (network.core.queue).
    Ptr<QueueDisc> GetCoreQueue() const
    {
        return m_coreQueue;
    }

    /// The router's device on the core link.
    Ptr<NetDevice> GetCoreRouterDevice() const
    {
        return m_coreRouterDevice;
    }

    /// Backhaul link of client i: devices, byte, capacity and SNR probes.
    const InstalledLink& GetLink(uint32_t i) const
    {
        return *m_links[i];
    }

    /// The name of the hub client i hangs off ("" for the aggregation router).
    const std::string& GetClientHub(uint32_t i) const
    {
        return m_clientHub[i];
    }

    uint32_t GetHubCount() const
    {
        return m_hubs.GetN();
    }

    /// Hub h (network.hubs expanded, in the scenario's order).
    Ptr<Node> GetHub(uint32_t h) const
    {
        return m_hubs.Get(h);
    }

    /// An address of hub h (of its first addressed interface: a packet to any of a node's
    /// addresses is delivered to it), where an edge aggregator on it listens.
    Ipv4Address GetHubAddress(uint32_t h) const;

    /// Hub h's name (network.hubs expanded).
    const std::string& GetHubName(uint32_t h) const
    {
        return m_hubNames[h];
    }

    /// Hub h's link to its parent: uplink is what the hub sends toward the core.
    const InstalledLink& GetHubLink(uint32_t h) const
    {
        return *m_hubLinks[h];
    }

    /// The core link as an InstalledLink: uplink is what the router sends to the server.
    const InstalledLink& GetCoreLink() const
    {
        return *m_coreLink;
    }

    /// What the tree was built from (each hub's parent, each client's hub).
    const BackhaulSpec& GetSpec() const
    {
        return m_spec;
    }

    /// Every link direction, in links.csv's order: core-up, core-down, then each hub's
    /// (hub-<name>-up, hub-<name>-down, in network.hubs order), then client-0-up,
    /// client-0-down, client-1-up, ...
    std::vector<NamedLinkDirection> GetDirections() const;

    /// The direction called `name` (as in GetDirections); throws std::invalid_argument for
    /// an unknown name.
    NamedLinkDirection GetDirection(const std::string& name) const;

    /// The tree as a transport that does not carry packets needs it: every link with the
    /// node ids of its two ends, its probes and its background settings; core link first,
    /// then the hubs', then the clients'. The helper must outlive the result.
    TransportTopology GetTransportTopology() const;

    /// Fixes the random streams of every link and its background; returns the number used.
    int64_t AssignStreams(int64_t stream);

  private:
    /// The link model for `type`, made on first use (one per type, for AssignStreams).
    BackhaulLink& LinkModel(const std::string& type);

    BackhaulSpec m_spec; ///< its link settings, which the transport topology points into
    NodeContainer m_server;
    NodeContainer m_router;
    std::vector<Ptr<Node>> m_clientNodes; ///< null for a client on a stated link
    Ptr<Node> m_statedHost;               ///< where stated clients' applications run
    NodeContainer m_hubs;
    Ipv4Address m_serverAddress;
    Ptr<QueueDisc> m_coreQueue;
    Ptr<NetDevice> m_coreRouterDevice;
    std::vector<Ptr<NetDevice>> m_clientDevices;
    std::vector<Ptr<NetDevice>> m_routerDevices;
    std::unique_ptr<InstalledLink> m_coreLink;
    std::vector<std::unique_ptr<InstalledLink>> m_links;
    std::vector<std::unique_ptr<InstalledLink>> m_hubLinks;
    std::vector<std::string> m_hubNames;
    std::vector<std::string> m_clientHub;
    std::vector<TransportLink> m_transportLinks; ///< GetTransportTopology's, in its order
    std::map<std::string, std::unique_ptr<BackhaulLink>> m_linkModels; ///< one per link type
    BackgroundTraffic m_background;
};

} // namespace ns3

#endif
