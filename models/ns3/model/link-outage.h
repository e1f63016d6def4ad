#ifndef FEDRAN_MODELS_NS3_MODEL_LINK_OUTAGE_H
#define FEDRAN_MODELS_NS3_MODEL_LINK_OUTAGE_H

#include "models/ns3/model/backhaul-link.h"

#include <ns3/nstime.h>

namespace ns3
{

/// Takes `link` down at `start` for `duration` (InstalledLink::BeginOutage / EndOutage), on
/// any link model. `link` must outlive the simulation.
void ScheduleLinkOutage(const InstalledLink& link, Time start, Time duration);

} // namespace ns3

#endif
