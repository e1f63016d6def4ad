#include "models/ns3/model/stated-link.h"

#include <cmath>

namespace ns3
{

StatedInstalledLink::StatedInstalledLink(StatedDirection up, StatedDirection down)
    : InstalledLink(NetDeviceContainer())
    , m_up(up)
    , m_down(down)
{
}

void
StatedInstalledLink::ConnectTransmitted(LinkDirection, PacketSink) const
{
    // No packets cross it; the flow transport's link counters have its bytes.
}

void
StatedInstalledLink::ConnectDelivered(LinkDirection, PacketSink) const
{
}

bool
StatedInstalledLink::ConnectFrames(LinkDirection, PacketSink) const
{
    return false;
}

std::optional<uint64_t>
StatedInstalledLink::QueuedBytes(LinkDirection) const
{
    return std::nullopt;
}

uint64_t
StatedInstalledLink::CapacityBps() const
{
    return m_up.rateBps;
}

double
StatedInstalledLink::SnrDb() const
{
    return std::nan("");
}

uint64_t
StatedInstalledLink::NominalRateBps() const
{
    return m_up.rateBps;
}

uint64_t
StatedInstalledLink::CapacityBpsOf(LinkDirection direction) const
{
    return Of(direction).rateBps;
}

uint64_t
StatedInstalledLink::NominalRateBpsOf(LinkDirection direction) const
{
    return Of(direction).rateBps;
}

std::optional<double>
StatedInstalledLink::DelayS(LinkDirection direction) const
{
    return Of(direction).delayS;
}

std::optional<double>
StatedInstalledLink::LossOf(LinkDirection direction, uint32_t) const
{
    return Of(direction).loss;
}

double
StatedInstalledLink::ReadyS() const
{
    return 0.0;
}

bool
StatedInstalledLink::RoutesClient() const
{
    return false;
}

} // namespace ns3
