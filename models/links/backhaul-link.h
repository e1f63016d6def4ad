#ifndef FEDRAN_MODELS_LINKS_BACKHAUL_LINK_H
#define FEDRAN_MODELS_LINKS_BACKHAUL_LINK_H

// A backhaul link model connects one client (cell site) to the aggregation router. Each model
// lives in its own file in this folder and is registered by one line in backhaul-link.cc.

#include "simulator/scenario/scenario.h"

#include <ns3/net-device-container.h>
#include <ns3/node.h>
#include <ns3/ptr.h>

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

class BackhaulLink
{
  public:
    virtual ~BackhaulLink() = default;

    /**
     * Connects `client` to `router` as `config` describes. Returns the two devices, the
     * client's first: what the client's device transmits is uplink traffic, what the
     * router's transmits is downlink traffic.
     */
    virtual NetDeviceContainer Install(Ptr<Node> client,
                                       Ptr<Node> router,
                                       const fedran::LinkConfig& config) = 0;

    /// Fixes the random streams of every link installed so far; returns streams used.
    virtual int64_t AssignStreams(int64_t stream) = 0;
};

/// The link model for a "backhaul.type"; nullptr for an unknown type.
std::unique_ptr<BackhaulLink> MakeBackhaulLink(const std::string& type);

} // namespace ns3

#endif
