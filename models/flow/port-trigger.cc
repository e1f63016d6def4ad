#include "models/flow/port-trigger.h"

namespace fedran
{

namespace
{

/// Whether windows of `windowSegments` exceed what `bufferPackets` and the path hold on a
/// line of `capacityBps` (0 without one), with traffic arriving at `arrivalBps` (the hosts
/// feeding it, or what the links after it drain): a queue builds only if the arrival is faster
/// than the line.
bool
WindowsExceed(double capacityBps,
              double arrivalBps,
              double rttS,
              double bufferPackets,
              uint64_t windowSegments,
              const MicroTcpSettings& tcp)
{
    if (!(capacityBps > 0.0) || !(arrivalBps > capacityBps))
    {
        return false;
    }
    const double packetBits = (tcp.mss + tcp.headerBytes) * 8.0;
    const double bdp = capacityBps * rttS / packetBits;
    return static_cast<double>(windowSegments) > bufferPackets + bdp;
}

} // namespace

bool
PortCanOverflow(double capacityBps,
                uint32_t bufferPackets,
                double rttS,
                double feederBps,
                uint64_t windowSegments,
                const MicroTcpSettings& tcp)
{
    return WindowsExceed(capacityBps, feederBps, rttS, bufferPackets, windowSegments, tcp);
}

bool
PortQueuesAsBottleneck(double capacityBps,
                       double rttS,
                       double drainBps,
                       uint64_t windowSegments,
                       const MicroTcpSettings& tcp)
{
    return WindowsExceed(capacityBps, drainBps, rttS, 0.0, windowSegments, tcp);
}

} // namespace fedran
