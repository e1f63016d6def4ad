#ifndef FEDRAN_SIMULATOR_SCHEDULED_OUTAGES_H
#define FEDRAN_SIMULATOR_SCHEDULED_OUTAGES_H

// faults.link_outages and faults.server_outages, scheduled on the links the topology built:
// a client's access link, a hub's uplink, or the core link in front of the server.

#include "simulator/network-topology.h"
#include "simulator/scenario/scenario.h"

namespace ns3
{

void ScheduleOutages(const fedran::FaultsConfig& faults, const NetworkTopology& topology);

} // namespace ns3

#endif
