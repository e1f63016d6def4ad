#ifndef FEDRAN_MODELS_FLOW_MICRO_TCP_H
#define FEDRAN_MODELS_FLOW_MICRO_TCP_H

// What the port micro-simulation (port-micro-sim.h) is told and tells: the TCP it runs (read
// from the TCP configuration by the caller, never fitted), each flow through the port, what
// became of it, and the per-event trace to set beside ns-3's TcpSocketBase traces.

#include <cstdint>

namespace fedran
{

struct MicroTcpSettings
{
    enum class Congestion
    {
        Cubic,
        NewReno
    };

    uint32_t mss = 1448;       ///< payload bytes per segment
    uint32_t headerBytes = 54; ///< per segment on the wire
    uint32_t initialCwnd = 10; ///< segments
    uint32_t maxWindow = 2896; ///< segments: the socket buffers
    uint32_t delAckCount = 2;  ///< in-order segments per ACK
    double delAckTimeoutS = 0.2;
    uint32_t reTxThreshold = 3; ///< duplicate ACKs (or SACKed segments above) for a loss
    bool limitedTransmit = true;
    bool sack = true;
    /// TcpSocketBase::Timestamp: RTT samples from the echoed timestamp, in whole milliseconds
    /// (TcpOptionTS); without it, from the send time of the segment acknowledged.
    bool timestamps = true;
    double minRtoS = 1.0;
    double clockGranularityS = 0.001;
    double maxRtoS = 60.0;
    Congestion congestion = Congestion::Cubic;
    // TcpCubic's attributes.
    double cubicBeta = 0.7;
    double cubicC = 0.4;
    bool fastConvergence = true;
    uint32_t cntClamp = 20;
    bool hystart = true;
    uint32_t hystartLowWindow = 16;
    uint32_t hystartMinSamples = 8;
    double hystartAckDeltaS = 0.002;
    double hystartDelayMinS = 0.004;
    double hystartDelayMaxS = 1.0;
    double cubicDeltaS = 0.010;
};

/// What a connection's TCP remembers of the path's RTT between its messages, which only a port
/// micro-simulation reads and sets (the fluid model takes no RTT samples).
struct MicroRttMemory
{
    float srttS = 0.0F;   ///< TcpSocketBase's smoothed estimate (0: only the handshake's yet)
    float minRttS = 0.0F; ///< TcpCubic's m_delayMin (0: none, as after a timeout)
};

/// The first hop past a port's link that stores and forwards what the port sends (the next
/// device, in ns-3). What leaves the port toward one such hop is serialised there in order: a
/// short packet right behind a full segment (an ACK behind another flow's segment, a message's
/// short last segment behind its full one) waits for that segment's serialisation there.
struct MicroNextHop
{
    static constexpr uint32_t kNone = UINT32_MAX;
    uint32_t id = kNone;        ///< names the link direction; flows that share it, share it
    double delayS = 0.0;        ///< propagation from the port to it
    double secondsPerBit = 0.0; ///< 1 / its rate
};

/// One flow through the port.
struct MicroFlowSpec
{
    double startS = 0.0;       ///< the sender has the whole message from here
    uint64_t payloadBytes = 0; ///< > 0
    uint32_t feeder = 0;       ///< AddFeeder's id: the sending host's first hop
    double toPortS = 0.0;      ///< feeder to the port: propagation
    double fromPortS = 0.0;    ///< port to the receiver: propagation
    /// Σ 1 / rate over the hops that store and forward a segment between the feeder and the
    /// port, and between the port and the receiver (s/bit): its serialisation there, by its
    /// size, so that a message's short last segment takes less time than a full one.
    double toPortSecondsPerBit = 0.0;
    double fromPortSecondsPerBit = 0.0;
    /// The first hop past the port's link that stores and forwards, for the flow's data and,
    /// when its ACKs cross a port too, for its ACKs.
    MicroNextHop dataNextHop;
    MicroNextHop ackNextHop;
    double ackDelayS = 0.0; ///< receiver to sender for an ACK: propagation
    /// Σ 1 / rate over the hops an ACK crosses (s/bit): its serialisation, by its size.
    double ackSecondsPerBit = 0.0;
    /// Its data crosses the reverse port (PortMicroSim::AddReversePort) and its ACKs the port.
    bool reverse = false;
    /// Where there is a port for its ACKs: the propagation and Σ 1 / rate of the hops an ACK
    /// crosses before that port (the rest of ackDelayS and ackSecondsPerBit is after it, less
    /// the port's own serialisation).
    double ackToPortS = 0.0;
    double ackToPortSecondsPerBit = 0.0;
    /// Where ACKs cross a port: the feeder (AddFeeder) of the host that sends them, whose
    /// first hop they share with the data it sends (the server's ACKs of uploads wait behind
    /// its downloads); UINT32_MAX: none, they go straight to the port.
    uint32_t ackFeeder = UINT32_MAX;
    uint32_t cwnd = 10; ///< window at the start, segments (an open connection's)
    /// Slow-start threshold at the start, segments (an open connection's, as its last loss or
    /// HyStart exit left it; 0: none yet, slow start until a loss).
    uint32_t ssthresh = 0;
    double srttS = 0.0; ///< RTT estimate at the start (0: the path's base RTT)
    /// CUBIC's minimum delay so far (TcpCubic's m_delayMin; 0: none, the first ACK sets it).
    double minRttS = 0.0;
    /// Names the connection (0: none). The flow's first segment carries the ACK that the
    /// connection still owes a flow the other way in the same simulation (TCP sends its ACKs
    /// with its data): that ACK does not wait for the delayed-ACK timer.
    uint64_t connection = 0;
    /// The connection carries its first data: ns-3's receiver ACKs the first segment at once
    /// (m_delAckCount = m_delAckMaxCount after the handshake, "to speed up the connection").
    bool newConnection = false;
};

/// What became of a flow.
struct MicroFlowResult
{
    bool done = false;
    double finishS = 0.0;          ///< the receiver has every byte
    uint64_t wireBytes = 0;        ///< data segments the sender put on the wire, headers included
    uint32_t timeouts = 0;         ///< retransmission timeouts
    uint32_t fastRecoveries = 0;   ///< entries into fast recovery
    uint32_t retransmissions = 0;  ///< segments sent again
    uint32_t cwndAtFinish = 0;     ///< segments
    uint32_t ssthreshAtFinish = 0; ///< segments (0: none, the flow never left slow start)
    double srttAtFinish = 0.0;     ///< the sender's RTT estimate
    double minRttAtFinish = 0.0;   ///< CUBIC's minimum delay (0: none since a timeout)
};

/// One line of a micro-simulation's trace (PortMicroSim::SetTrace): a sender's state after an
/// event, to set beside ns-3's TcpSocketBase traces (CongestionWindow, SlowStartThreshold,
/// CongState, RTO, RTT, BytesInFlight) and the queue disc's PacketsInQueue and Drop.
struct MicroTraceRow
{
    enum class Event : uint8_t
    {
        Ack,     ///< an ACK was processed
        Timeout, ///< the retransmission timer fired
        Drop,    ///< the port dropped one of the flow's segments
        AckDrop, ///< a port dropped one of the flow's ACKs (seg: its cumulative ACK)
        SsExit   ///< HyStart ended slow start
    };
    double timeS = 0.0;
    uint32_t flow = 0;
    Event event = Event::Ack;
    uint32_t seg = 0;      ///< the cumulative ACK, or the dropped segment
    double cwnd = 0.0;     ///< segments
    double ssthresh = 0.0; ///< segments
    uint8_t caState = 0;   ///< 0 open, 1 recovery, 2 loss
    double rtoS = 0.0;
    double srttS = 0.0;
    uint32_t pipe = 0;  ///< segments in flight
    uint32_t queue = 0; ///< packets in the port's buffer (the one on the line not counted)
};

} // namespace fedran

#endif
