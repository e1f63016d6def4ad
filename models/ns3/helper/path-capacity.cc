#include "models/ns3/helper/path-capacity.h"

#include <ns3/simulator.h>

#include <algorithm>

namespace ns3
{

namespace
{

/// `link`'s current rates, or nullopt where it cannot state them.
std::optional<fedran::PathRate>
RatesOf(const InstalledLink& link)
{
    if (!link.StatesPathCapacity())
    {
        return std::nullopt;
    }
    return fedran::PathRate{double(link.AvailableBpsOf(LinkDirection::Downlink)),
                            double(link.AvailableBpsOf(LinkDirection::Uplink))};
}

/// The bottleneck of two stretches of a path (none if either has none).
std::optional<fedran::PathRate>
Bottleneck(const std::optional<fedran::PathRate>& a, const std::optional<fedran::PathRate>& b)
{
    if (!a || !b)
    {
        return std::nullopt;
    }
    return fedran::PathRate{std::min(a->downBps, b->downBps), std::min(a->upBps, b->upBps)};
}

} // namespace

PathCapacity::PathCapacity(const BackhaulHelper& topology)
    : m_topology(topology)
    , m_hubPaths(topology.GetHubCount())
    , m_hubKnown(topology.GetHubCount(), false)
{
}

const std::optional<fedran::PathRate>&
PathCapacity::HubPath(int32_t hub) const
{
    const auto h = size_t(hub);
    if (!m_hubKnown[h])
    {
        // Parents come first in the spec, and the chain is loop-free, so this recursion ends
        // at the router; each hub is computed once per instant.
        const int32_t parent = m_topology.GetSpec().hubs[h].parent;
        const std::optional<fedran::PathRate> above =
            parent < 0 ? RatesOf(m_topology.GetCoreLink()) : HubPath(parent);
        m_hubPaths[h] = Bottleneck(RatesOf(m_topology.GetHubLink(uint32_t(h))), above);
        m_hubKnown[h] = true;
    }
    return m_hubPaths[h];
}

std::optional<fedran::PathRate>
PathCapacity::Of(uint32_t client) const
{
    const int64_t now = Simulator::Now().GetTimeStep();
    if (now != m_memoAt)
    {
        m_memoAt = now;
        std::fill(m_hubKnown.begin(), m_hubKnown.end(), false);
    }
    const int32_t hub = m_topology.GetSpec().clients.at(client).hub;
    return Bottleneck(RatesOf(m_topology.GetLink(client)),
                      hub < 0 ? RatesOf(m_topology.GetCoreLink()) : HubPath(hub));
}

} // namespace ns3
