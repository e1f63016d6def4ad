#include "simulator/scheduled-outages.h"

#include "models/ns3/model/link-outage.h"

namespace ns3
{

void
ScheduleOutages(const fedran::FaultsConfig& faults, const NetworkTopology& topology)
{
    for (const fedran::OutageConfig& outage : faults.linkOutages)
    {
        const Time start = Seconds(outage.startS);
        const Time duration = Seconds(outage.durationS);
        for (uint32_t client : outage.clients)
        {
            ScheduleLinkOutage(topology.GetLink(client), start, duration);
        }
        for (uint32_t hub : outage.hubs)
        {
            ScheduleLinkOutage(topology.GetHubLink(hub), start, duration);
        }
    }
    for (const fedran::OutageConfig& outage : faults.serverOutages)
    {
        ScheduleLinkOutage(topology.GetCoreLink(),
                           Seconds(outage.startS),
                           Seconds(outage.durationS));
    }
}

} // namespace ns3
