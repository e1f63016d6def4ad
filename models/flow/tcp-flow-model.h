#ifndef FEDRAN_MODELS_FLOW_TCP_FLOW_MODEL_H
#define FEDRAN_MODELS_FLOW_TCP_FLOW_MODEL_H

// What turns a fluid flow into a TCP transfer's duration and wire bytes. Each correction says
// where it comes from; docs/flow-validation.md measures the whole against ns-3 TCP.
//
//   duration = handshake (new connection) + slow start + wire bits / fair rate + latency
//
// - Handshake: one path RTT before the client can send (SYN, SYN-ACK; RFC 793), 1.5 RTT before
//   the server has accepted (the third segment).
// - Slow start (Kurose and Ross, "Computer Networking", 3.7 TCP latency model; Cardwell,
//   Savage and Anderson, INFOCOM 2000): the window starts at `initialCwnd` segments (ns-3.37
//   InitialCwnd 10, RFC 6928) and doubles per RTT; while a window serialises in less than an
//   RTT the sender idles until the ACKs return. SlowStart gives that idle time: k RTTs minus
//   the time the segments of those k rounds would take at the fair rate.
// - Wire bytes: each segment carries `mss` payload bytes (1448, fedran's setting) plus TCP with
//   timestamps (32), IPv4 (20) and PPP (2) headers; the receiver ACKs every second segment
//   (ns-3 DelAckCount 2) with a 54-byte segment on the reverse direction. The fluid rate is a
//   share of the link's wire capacity, so the wire bytes cross it.
// - Loss: a path that loses a fraction p of packets caps the rate at the Mathis et al. bound
//   (CCR 1997) MSS/RTT * sqrt(3/2) / sqrt(p).
// - Window: the rate is at most the socket buffer (4 MiB) per RTT (SimGrid LV08's
//   window/RTT cap; Velho and Legrand, SIMUTools 2009).
// - Latency: the last segment's propagation along the path plus its serialisation on every
//   hop but the bottleneck (store and forward; the bottleneck's is in wire bits / rate).

#include <cstdint>
#include <vector>

namespace fedran
{

struct TcpFlowSettings
{
    uint32_t mss = 1448;             ///< payload bytes per segment (ns3::TcpSocket::SegmentSize)
    uint32_t headerBytes = 54;       ///< TCP 32 (timestamps) + IPv4 20 + PPP 2 per segment
    uint32_t ackBytes = 54;          ///< a pure ACK on the wire
    uint32_t segmentsPerAck = 2;     ///< delayed ACKs
    uint32_t initialCwnd = 10;       ///< segments
    double maxWindowBytes = 4 << 20; ///< the socket buffers
};

/// One hop of a path as the TCP model needs it.
struct PathHop
{
    double capacityBps = 0.0;
    double delayS = 0.0;
    double loss = 0.0; ///< packet loss probability in the data direction
};

/// Number of segments of a `payloadBytes` message (at least one).
uint64_t Segments(uint64_t payloadBytes, const TcpFlowSettings& tcp);

/// Bytes the data direction puts on each link for `payloadBytes`: payload plus headers.
uint64_t DataWireBytes(uint64_t payloadBytes, const TcpFlowSettings& tcp);

/// Bytes of the ACKs the reverse direction sends for `payloadBytes`.
uint64_t AckWireBytes(uint64_t payloadBytes, const TcpFlowSettings& tcp);

/// Round-trip time of a path: twice its propagation delay plus one full segment's
/// serialisation on every hop (as a data segment's RTT sample measures it).
double PathRttS(const std::vector<PathHop>& path, const TcpFlowSettings& tcp);

/// A SYN or SYN-ACK on the wire, with ns-3's options (window scale, timestamps, SACK
/// permitted).
constexpr uint32_t kSynWireBytes = 58;

/// The handshake's round trip: twice the propagation delay plus a SYN's and a SYN-ACK's
/// serialisation on every hop. A client sends its first data this long after it connects.
double HandshakeRttS(const std::vector<PathHop>& path);

/// From the last bit leaving the bottleneck to its arrival: propagation along the path and
/// the last segment's serialisation on every hop but the slowest (a message shorter than a
/// segment is one segment of its own size: a 28-byte message is 82 bytes on the wire).
double PathLatencyS(const std::vector<PathHop>& path,
                    const TcpFlowSettings& tcp,
                    uint64_t payloadBytes = UINT64_MAX);

/// The loss a path's packets meet: 1 - prod(1 - loss_i).
double PathLoss(const std::vector<PathHop>& path);

/// Mathis et al.'s bound in wire bits/s for loss `p` (unlimited for p = 0).
double MathisRateBps(double rttS, double p, const TcpFlowSettings& tcp);

/// The most a flow may send: min(window / RTT, Mathis bound), in wire bits/s.
double RateCapBps(double rttS, double p, const TcpFlowSettings& tcp);

struct SlowStartResult
{
    double idleS = 0.0;     ///< time the sender waits for ACKs beyond wire bits / rate
    uint64_t cwndAfter = 0; ///< the window, in segments, once the message is sent
};

/**
 * Slow start for a message of `payloadBytes` sent at `rateBps` (wire) on a connection whose
 * window is `cwnd` segments, over a path of round trip `rttS`: the idle time of the rounds in
 * which a window serialises faster than an RTT, and the window afterwards (slow start adds a
 * segment per segment acknowledged, up to the socket buffer).
 */
SlowStartResult SlowStart(uint64_t payloadBytes,
                          double rateBps,
                          double rttS,
                          uint64_t cwnd,
                          const TcpFlowSettings& tcp);

/// The whole model for one flow alone on its path, from the moment it is handed over on an
/// open connection: slow start idle + wire bits / rate + latency (the unit tests' formula).
double AloneTransferS(uint64_t payloadBytes,
                      const std::vector<PathHop>& path,
                      uint64_t cwnd,
                      const TcpFlowSettings& tcp);

} // namespace fedran

#endif
