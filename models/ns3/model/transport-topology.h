#ifndef FEDRAN_MODELS_NS3_MODEL_TRANSPORT_TOPOLOGY_H
#define FEDRAN_MODELS_NS3_MODEL_TRANSPORT_TOPOLOGY_H

// What a transport that does not move packets through ns-3 devices (the flow-level one) needs
// to know about the network, and what it reports back in place of the devices' byte counts.

#include "models/link-config/link-config.h"
#include "models/ns3/model/backhaul-link.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/// One link of a tree whose root is the server: `child` sends its uplink toward `parent`.
struct TransportLink
{
    uint32_t child = 0;  ///< node id (or stated endpoint id) of the end away from the server
    uint32_t parent = 0; ///< node id of the end toward the server
    /// Its delay and loss per direction come from here (InstalledLink::DelayS, LossOf).
    const InstalledLink* link = nullptr;
    /// The link's background traffic (backhaul.background), if any.
    const fedran::BackgroundConfig* background = nullptr;
    /// Packets the drop-tail FIFO at the sending end of each direction holds (0: not a
    /// drop-tail port, e.g. an end host's queue, which never drops, or RED / FQ-CoDel).
    uint32_t upDropTailPackets = 0;
    uint32_t downDropTailPackets = 0;
    /// Packets the server's own queue holds where it sends the downlink (0: not the server's
    /// link). It never overflows (HostQueuePackets), but ns-3's TCP pushes each window into
    /// it, so when the link is the downloads' bottleneck they leave in the FIFO's order.
    uint32_t downHostQueuePackets = 0;
};

/// Endpoint ids of clients without a node of their own (a stated link,
/// models/ns3/model/stated-link.h): kStatedEndpointBase + the client's index, above any
/// node id ns-3 hands out in a run.
constexpr uint32_t kStatedEndpointBase = 0x80000000u;

struct TransportTopology
{
    std::vector<TransportLink> links;
};

/// Bytes a transport put on the links itself (the devices see none of them).
class TransportLinkCounters
{
  public:
    virtual ~TransportLinkCounters() = default;

    /// Every byte `link` delivered in `direction` so far, background included (links.csv).
    virtual uint64_t DeliveredBytes(const InstalledLink* link, LinkDirection direction) const = 0;
    /// FL wire bytes (headers, retransmissions and ACKs included) the clients' own links
    /// carried in `direction` so far: what rounds.csv's *_wire_bytes count in packet mode.
    virtual uint64_t ClientWireBytes(LinkDirection direction) const = 0;
};

} // namespace ns3

#endif
