#ifndef FEDRAN_MODELS_LINKS_BACKHAUL_LINK_H
#define FEDRAN_MODELS_LINKS_BACKHAUL_LINK_H

// A backhaul link model connects one client (cell site) to the aggregation router. Each model
// lives in its own file in this folder and is registered by one line in backhaul-link.cc; its
// scenario keys are one branch of clients.groups[].backhaul in scenarios/scenario.schema.json.

#include "models/link-config/link-config.h"

#include <ns3/net-device-container.h>
#include <ns3/node.h>
#include <ns3/ptr.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/// One installed link: its devices, and what traces and background traffic read from it.
struct InstalledLink
{
    NetDeviceContainer devices; ///< the client's device first
    /// Capacity now, in bits/s; 0 while the link is out.
    std::function<uint64_t()> capacityBps;
    /// SNR now, in dB; NaN for models without one.
    std::function<double()> snrDb;
    /// The capacity background load is a fraction of (p2p: rate; microwave: clear sky;
    /// trace: time-weighted mean; lte: the whole uplink band at the path-loss SNR).
    uint64_t nominalRateBps = 0;

    /// Set by models that address and route their client themselves (lte: the EPC gives the
    /// UE its address and default route); the topology then leaves the devices alone.
    bool routed = false;
    /// When the link first carries traffic (lte: after the UE has attached); the client's
    /// application starts then.
    double readyS = 0.0;

    /// Counts one direction's bytes, once per packet or transport block.
    using ByteSink = std::function<void(uint64_t bytes)>;
    /// For devices without PhyTxEnd/PhyRxEnd traces (lte), empty otherwise: connects a sink
    /// to the bytes the uplink (true) or downlink (false) transmits (wire bytes) ...
    std::function<void(bool uplink, ByteSink sink)> connectTransmitted;
    /// ... and to the bytes it delivers.
    std::function<void(bool uplink, ByteSink sink)> connectDelivered;
};

class BackhaulLink
{
  public:
    virtual ~BackhaulLink() = default;

    /**
     * Checks the model's own keys in config.spec (and any file they name) before anything is
     * simulated or written. Throws fedran::ScenarioError naming the JSON path, or the file
     * and line.
     */
    virtual void Check(const fedran::LinkConfig& config) const = 0;

    /**
     * Connects `client` to `router` as `config` describes. What the client's device transmits
     * is uplink traffic, what the router's transmits is downlink traffic.
     */
    virtual InstalledLink Install(Ptr<Node> client,
                                  Ptr<Node> router,
                                  const fedran::LinkConfig& config) = 0;

    /// Fixes the random streams of every link installed so far; returns streams used.
    virtual int64_t AssignStreams(int64_t stream) = 0;
};

/// The link model for a "backhaul.type"; nullptr for an unknown type.
std::unique_ptr<BackhaulLink> MakeBackhaulLink(const std::string& type);

/// MakeBackhaulLink(config.type)->Check(config); an unknown type is a ScenarioError too.
void CheckBackhaulLink(const fedran::LinkConfig& config);

} // namespace ns3

#endif
