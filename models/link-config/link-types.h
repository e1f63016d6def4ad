#ifndef FEDRAN_MODELS_LINK_CONFIG_LINK_TYPES_H
#define FEDRAN_MODELS_LINK_CONFIG_LINK_TYPES_H

// What each backhaul link model and each transport can do, declared beside their names with no
// ns-3, so that the scenario reader asks here instead of comparing type names. A transport is
// this table's row alone (its class is found by TypeId); a link model's class also registers in
// models/ns3/model/backhaul-link.cc, and a test checks that both lists name the same types.

#include <string_view>
#include <vector>

namespace fedran
{

/// A backhaul.type.
struct LinkTypeTraits
{
    std::string_view name;
    /// Why it cannot be a hub's uplink (network.hubs[].backhaul), or empty when it can: a hub
    /// routes the sites behind it over this link.
    std::string_view notAHubLinkBecause;
    /// Its sites reach the aggregation router through the link's own core network (an LTE
    /// EPC), so they cannot hang off a hub.
    bool routesOwnClients = false;
    /// Why it cannot state its one-way delay and loss per direction (InstalledLink::DelayS
    /// and LossOf, in models/ns3), or empty when it can (every shipped model can): a transport
    /// that moves no packets through the devices needs them, and refuses such a link rather
    /// than take it as lossless.
    std::string_view noDelayAndLossBecause;
    /// It can exist as stated numbers alone, with no node or device at either end
    /// (BackhaulLink::InstallStated), so a site on it costs no ns-3 objects under a transport
    /// that carries no packets.
    bool statedWithoutDevices = false;
};

/// A network.transport: the registry row of a MessageTransport (models/ns3/model/).
struct TransportTraits
{
    std::string_view name;
    /// The TypeId of its MessageTransport subclass, which CreateMessageTransport instantiates.
    std::string_view typeId;
    /// It moves packets, so packet captures (output.pcap) and FlowMonitor can see them.
    bool carriesPackets = false;
    /// Why it refuses TCP settings other than the defaults (congestion control, delayed ACKs,
    /// SACK), or empty when it runs ns-3's TCP with them.
    std::string_view fixedTcpBecause;
    /// It models each link from the link model's stated delay and loss per direction rather
    /// than sending packets through the devices, so it refuses links that cannot state them.
    bool needsLinkDelayAndLoss = false;
};

/// The registered link type named `type`, or nullptr.
const LinkTypeTraits* FindLinkType(std::string_view type);

/// The registered transport named `name`, or nullptr.
const TransportTraits* FindTransport(std::string_view name);

/// Every registered name, in registration order.
std::vector<std::string_view> LinkTypeNames();
std::vector<std::string_view> TransportNames();

} // namespace fedran

#endif
