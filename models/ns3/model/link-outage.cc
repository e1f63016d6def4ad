#include "models/ns3/model/link-outage.h"

#include <ns3/simulator.h>

namespace ns3
{

namespace
{

void
Begin(const InstalledLink* link)
{
    link->BeginOutage();
}

void
End(const InstalledLink* link)
{
    link->EndOutage();
}

} // namespace

void
ScheduleLinkOutage(const InstalledLink& link, Time start, Time duration)
{
    Simulator::Schedule(start, &Begin, &link);
    Simulator::Schedule(start + duration, &End, &link);
}

} // namespace ns3
