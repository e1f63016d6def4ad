#ifndef FEDRAN_MODELS_NS3_HELPER_PATH_CAPACITY_H
#define FEDRAN_MODELS_NS3_HELPER_PATH_CAPACITY_H

// What each client's path to the server can carry now, for server.selection "network": the
// bottleneck, in each direction, of its access link, the links of the hubs above it and the
// core link, as their models state it (a microwave hop's current modulation rate, a trace
// link's current rate, a p2p link's rate; 0 during an outage). A path with a link that cannot
// state it (lte: a shared cell) has none, and the policy falls back to measured round times.

#include "models/fl/selection-policy.h"
#include "models/ns3/helper/backhaul-helper.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace ns3
{

class PathCapacity
{
  public:
    /// Set-up is linear in the clients and hubs; `topology` must outlive this.
    explicit PathCapacity(const BackhaulHelper& topology);

    /// Client `client`'s path bottleneck now, or nullopt where a link cannot state it.
    /// Costs O(1) per client after the first query at a simulation instant, which computes
    /// each hub's path to the core once (memoised for that instant): a round's queries cost
    /// O(hubs + clients asked), not O(clients x hops).
    std::optional<fedran::PathRate> Of(uint32_t client) const;

  private:
    /// Hub h's path from its own link up to the server, at the memo's instant.
    const std::optional<fedran::PathRate>& HubPath(int32_t hub) const;

    const BackhaulHelper& m_topology;
    mutable int64_t m_memoAt = -1; ///< the simulation time step m_hubPaths hold
    mutable std::vector<std::optional<fedran::PathRate>> m_hubPaths;
    mutable std::vector<bool> m_hubKnown;
};

} // namespace ns3

#endif
