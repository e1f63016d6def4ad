#ifndef FEDRAN_MODELS_NS3_HELPER_BACKHAUL_QUEUES_H
#define FEDRAN_MODELS_NS3_HELPER_BACKHAUL_QUEUES_H

// The queues of a backhaul network's ports (BackhaulHelper): end hosts, the router's port
// toward the server, and router and hub ports toward sites and hubs.

#include <ns3/net-device.h>
#include <ns3/ptr.h>
#include <ns3/queue-disc.h>

#include <cstdint>
#include <string>

namespace ns3
{

/// Packets an end host's queue holds with `connections` TCP connections (backhaul-queues.cc).
uint32_t HostQueuePackets(uint32_t connections);

/// An end host's port: a pfifo_fast that holds the send buffers of its `hostConnections` TCP
/// connections (at least a Linux txqueuelen), because CoDel would drop TCP's window at the
/// sender itself.
void SetHostQueue(Ptr<NetDevice> host, uint32_t hostConnections);

/// The router's port toward the server: `discipline` (fifo, red, fq_codel) of `packets`
/// packets in front of a one-packet device queue; `rateBps` and `delayS` are the core
/// link's, for RED.
Ptr<QueueDisc> InstallCoreQueue(Ptr<NetDevice> routerPort,
                                const std::string& discipline,
                                uint32_t packets,
                                uint64_t rateBps,
                                double delayS);

/// A router or hub port toward a site or hub: `discipline` (fifo: the device's own DropTail
/// queue, resized; red, fq_codel) of `packets` packets.
void InstallRouterQueue(Ptr<NetDevice> port, const std::string& discipline, uint32_t packets);

} // namespace ns3

#endif
