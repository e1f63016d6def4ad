#ifndef FEDRAN_SIMULATOR_NETWORK_TOPOLOGY_H
#define FEDRAN_SIMULATOR_NETWORK_TOPOLOGY_H

// A scenario's network: what its network section and client groups say, built by the ns-3
// helpers (models/ns3/helper/backhaul-helper.h, tcp-settings.h).

#include "models/ns3/helper/backhaul-helper.h"
#include "models/ns3/helper/tcp-settings.h"
#include "simulator/scenario/scenario.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/// The ns-3 TCP settings of a scenario's network.tcp.
BackhaulTcpConfig TcpConfigOf(const fedran::ScenarioConfig::Network::Tcp& tcp);

/// ConfigureBackhaulTcp with a scenario's network.tcp.
void ConfigureBackhaulTcp(const fedran::ScenarioConfig::Network::Tcp& tcp);

/// What BackhaulHelper builds for `config`, client i belonging to group clientGroup[i]: a
/// group's clients take its hubs in turn (client j of the group: hubs[j % size]). For a
/// transport that does not carry packets, background traffic is the transport's own and
/// client links are stated numbers where their model can state them.
BackhaulSpec BackhaulSpecOf(const fedran::ScenarioConfig& config,
                            const std::vector<uint32_t>& clientGroup,
                            bool carriesPackets);

/// The FL network of a scenario (BackhaulHelper has its layout, routes and accessors).
class NetworkTopology : public BackhaulHelper
{
  public:
    /// Builds nodes, links, addresses and routes; client i belongs to group clientGroup[i].
    /// For a transport that `carriesPackets`, everything is ns-3 devices and packet sources;
    /// otherwise see BackhaulSpecOf.
    NetworkTopology(const fedran::ScenarioConfig& config,
                    const std::vector<uint32_t>& clientGroup,
                    bool carriesPackets = true)
        : BackhaulHelper(BackhaulSpecOf(config, clientGroup, carriesPackets))
    {
    }
};

} // namespace ns3

#endif
