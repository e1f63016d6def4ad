#ifndef FEDRAN_MODELS_FLOW_PORT_TRIGGER_H
#define FEDRAN_MODELS_FLOW_PORT_TRIGGER_H

// When the flow transport takes a port's transfers out of the fluid model and into the
// packet-level micro-simulation (port-micro-sim.h): a drop-tail port they can overflow, and a
// sender's own FIFO that orders them. Both derived from the configuration, none fitted.

#include "models/flow/micro-tcp.h"

#include <cstdint>

namespace fedran
{

/**
 * Whether flows can overflow a drop-tail port of `bufferPackets` on a line of `capacityBps`
 * (section 7 of the reference note on fluid TCP under contention: N * IW * 2^k > B + BDP):
 * the hosts feeding it can send faster than the line (`feederBps`, the sum over distinct
 * feeders: below the line's rate no queue builds whatever the windows), and the windows the
 * flows can reach (`windowSegments`, each flow's min(message, socket buffer) in segments: a
 * loss-based TCP grows until a loss or the message's end) exceed what the buffer and the
 * path (bandwidth-delay product at `rttS`) hold.
 */
bool PortCanOverflow(double capacityBps,
                     uint32_t bufferPackets,
                     double rttS,
                     double feederBps,
                     uint64_t windowSegments,
                     const MicroTcpSettings& tcp);

/**
 * Whether flows queue at a sender's own FIFO that never overflows (the server's host queue,
 * into which ns-3's TCP pushes each window) in a way that decides their finish times: two
 * flows at least (the caller's test), windows that exceed the path's bandwidth-delay product
 * at `rttS` (else no queue builds), and a line slower than what the links after it can carry
 * away of the flows' data (`drainBps`), so that the FIFO, not a later hop, orders them. The
 * flows then leave in the order their windows entered it: in ns-3 a round's downloads end
 * spread out one after another rather than together.
 */
bool PortQueuesAsBottleneck(double capacityBps,
                            double rttS,
                            double drainBps,
                            uint64_t windowSegments,
                            const MicroTcpSettings& tcp);

} // namespace fedran

#endif
