#ifndef FEDRAN_MODELS_NS3_HELPER_BACKGROUND_TRAFFIC_H
#define FEDRAN_MODELS_NS3_HELPER_BACKGROUND_TRAFFIC_H

#include "models/link-config/link-config.h"
#include "models/ns3/model/background-source.h"
#include "models/ns3/model/backhaul-link.h"

#include <set>
#include <vector>

namespace ns3
{

/**
 * Installs the background traffic of backhaul links (backhaul.background): per direction, a
 * BackgroundSource at one end of the link sending UDP to a sink at the other end's address on
 * that link, so the packets share the FL traffic's host and device queues on this link only
 * (never the core).
 */
class BackgroundTraffic
{
  public:
    /// UDP port of the sinks (discard).
    static constexpr uint16_t kPort = 9;

    /// Bytes a background packet adds on a point-to-point link: UDP 8, IPv4 20, PPP 2.
    static constexpr uint32_t kWireOverhead = 30;

    /// Installs `config.background`, if any, on `link` (addresses already assigned).
    void Install(const InstalledLink& link, const fedran::LinkConfig& config);

    /// Fixes the on/off draws of every source installed so far; returns streams used.
    int64_t AssignStreams(int64_t stream);

  private:
    std::vector<Ptr<BackgroundSource>> m_sources;
    std::set<uint32_t> m_sinkNodes; ///< ids of the nodes that have their sink
};

} // namespace ns3

#endif
