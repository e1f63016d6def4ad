#include "models/flow/port-trigger.h"

namespace fedran
{

bool
PortCanOverflow(double capacityBps,
                uint32_t bufferPackets,
                double rttS,
                double feederBps,
                uint64_t windowSegments,
                const MicroTcpSettings& tcp)
{
    if (!(capacityBps > 0.0) || !(feederBps > capacityBps))
    {
        return false;
    }
    const double packetBits = (tcp.mss + tcp.headerBytes) * 8.0;
    const double bdp = capacityBps * rttS / packetBits;
    return static_cast<double>(windowSegments) > bufferPackets + bdp;
}

bool
PortQueuesAsBottleneck(double capacityBps,
                       double rttS,
                       double drainBps,
                       uint64_t windowSegments,
                       const MicroTcpSettings& tcp)
{
    if (!(capacityBps > 0.0) || !(drainBps > capacityBps))
    {
        return false;
    }
    const double packetBits = (tcp.mss + tcp.headerBytes) * 8.0;
    return static_cast<double>(windowSegments) > capacityBps * rttS / packetBits;
}

} // namespace fedran
