#ifndef FEDRAN_MODELS_FLOW_PORT_MICRO_SIM_H
#define FEDRAN_MODELS_FLOW_PORT_MICRO_SIM_H

// A packet-level simulation of one drop-tail port and the TCP flows that cross it: what
// decides an FL round where synchronised uploads overflow a shallow FIFO (TCP incast). The
// fluid model (fluid-network.h) has no queue, so no drops and no retransmission timeouts;
// here every segment is a packet through the port's buffer, and each flow runs the
// essentials of the configured TCP (ns-3.37 TcpSocketBase with SACK):
//
// - slow start from the initial window; CUBIC (RFC 8312 as ns-3.37's TcpCubic: byte-counting
//   slow start, HyStart's ACK-train and delay exits, the cubic window in congestion
//   avoidance, beta 0.7, fast convergence) or NewReno (one segment per ACK, then 1/cwnd);
// - loss detection by 3 duplicate ACKs or 3 SACKed segments above a hole (RFC 6675), with
//   limited transmit (RFC 3042); proportional rate reduction during recovery (RFC 6937 with
//   the slow-start reduction bound, ns-3.37's TcpPrrRecovery), which ends when the recovery
//   point is acknowledged; a retransmission that is lost again is found only by the timeout;
//   the details (which ACK is a duplicate, the partial-ACK retransmission, the pipe counting
//   SACKed retransmissions, PRR's bound, NextSeg's rule 3 that sends a segment still in
//   flight again) as ns-3.37 has them (port-micro-sim-ack.cc, port-micro-sim-path.cc);
// - the retransmission timeout RTO = max(SRTT + max(G, 4 RTTVAR), MinRto) (RFC 6298 with
//   ns-3's RttMeanDeviation, alpha 1/8, beta 1/4), doubled per consecutive timeout and reset
//   by a new acknowledgement (in recovery only the first partial one); a timeout sets cwnd to
//   one segment, the threshold from the window it found (a second timeout in a row too), and
//   marks every unSACKed segment lost; RTT samples from the millisecond timestamp echo, none
//   from a retransmitted segment (Karn), CUBIC given the smoothed RTT;
// - delayed ACKs at the receiver (every `delAckCount` in-order segments or `delAckTimeoutS`),
//   an immediate ACK for out-of-order data or data that fills a gap; each ACK carries up to
//   three SACK blocks from TcpRxBuffer's list of four, so what a lost ACK said comes with the
//   next; a connection's data the other way carries the ACK its receiver owes.
//
// Around the port a flow is reduced to what its packets meet elsewhere: a feeder (the first
// hop out of the sending host, whose queue never drops; flows from one host share it, and
// the host's ACKs wait there behind its data), fixed propagation to and from the port, each
// packet's serialisation by its size on the hops that store and forward (a message's short
// last segment, an ACK with SACK blocks), and the first such hop past the port as a FIFO of
// its own for all that the port sends it. ACKs queue behind other traffic, and are lost,
// only at the same link's other direction when it is a drop-tail port too (AddReversePort):
// flows sent that way (MicroFlowSpec::reverse) fill it with their data while this port's
// ACKs cross it. Nothing here draws at random: the order of simultaneous events is the order
// they were scheduled in, and a packet's arrival at a port is scheduled when its transmission
// starts, as ns-3's channel does, so that of two packets arriving in one instant the one sent
// first is taken first.
// Parameters are read from the TCP configuration by the caller, never fitted.

#include "models/flow/micro-tcp.h"

#include <array>
#include <cstdint>
#include <optional>
#include <queue>
#include <unordered_map>
#include <utility>
#include <vector>

namespace fedran
{

class PortMicroSim
{
  public:
    /// A drop-tail FIFO of `bufferPackets` in front of a line of `capacityBps` (the packet on
    /// the line is not counted in the buffer).
    PortMicroSim(double capacityBps, uint32_t bufferPackets, const MicroTcpSettings& tcp);

    /// The drop-tail FIFO of the same link's other direction (`capacityBps`, `bufferPackets`):
    /// the ACKs of the port's flows queue there behind the data of flows sent the other way
    /// (MicroFlowSpec::reverse), and are lost when it is full, as in ns-3.
    void AddReversePort(double capacityBps, uint32_t bufferPackets);
    bool HasReversePort() const
    {
        return m_ports.size() > 1;
    }

    /// A host's first hop of `rateBps`, with an unlimited queue. Returns its id.
    uint32_t AddFeeder(double rateBps);
    /// A flow; its start must not be before Now(). Returns its id (0, 1, ...).
    uint32_t AddFlow(const MicroFlowSpec& spec);

    /// Processes every event at or before `timeS` and moves the clock there.
    void RunUntil(double timeS);
    /// The earliest instant at which some flow not yet reported finishes, simulating ahead on
    /// a copy (flows added later may change it); nullopt if none is left.
    std::optional<double> NextFinish() const;
    /// Flows that finished at or before Now() and were not taken yet, in id order.
    std::vector<uint32_t> TakeFinished();

    double Now() const
    {
        return m_now;
    }
    const MicroFlowResult& Result(uint32_t flow) const
    {
        return m_flows.at(flow).result;
    }
    size_t FlowCount() const
    {
        return m_flows.size();
    }
    /// Flows not finished yet.
    size_t Active() const
    {
        return m_active;
    }
    /// Records every sender's state after each event into `rows` (nullptr: off). For
    /// comparing a case with ns-3's traces; the simulation itself does not change.
    void SetTrace(std::vector<MicroTraceRow>* rows)
    {
        m_trace = rows;
    }
    /// Data packets the ports dropped so far.
    uint64_t Drops() const
    {
        return m_drops;
    }
    /// ACKs the ports dropped so far.
    uint64_t AckDrops() const
    {
        return m_ackDrops;
    }

  private:
    enum class EventType : uint8_t
    {
        Start,
        FeederDone,
        PortArrive,
        PortDone,
        Receive,
        DelAck,
        Ack,
        Rto
    };
    /// Up to three SACK blocks [first, end) of segments, as an ACK carries them (with the
    /// timestamp option, TcpSocketBase::AddOptionSack has room for three).
    struct SackBlocks
    {
        uint32_t first[3] = {0, 0, 0};
        uint32_t end[3] = {0, 0, 0};
        uint8_t count = 0;
    };
    struct Event
    {
        double time;
        uint64_t order;
        EventType type;
        uint32_t flow;
        uint32_t seg;         ///< segment, or the cumulative ACK
        int64_t extra;        ///< a timer's generation
        double stamp;         ///< the send time a segment carries / an ACK echoes
        uint8_t port = 0;     ///< PortArrive, PortDone: which port
        bool ack = false;     ///< PortArrive: the packet is an ACK
        uint32_t bytes = 0;   ///< PortArrive of an ACK: its size on the wire
        SackBlocks sack = {}; ///< an ACK's SACK blocks
        bool operator>(const Event& o) const
        {
            return time > o.time || (time == o.time && order > o.order);
        }
    };
    struct Packet
    {
        uint32_t flow;
        uint32_t seg; ///< segment, or an ACK's cumulative ACK
        double stamp;
        SackBlocks sack = {}; ///< an ACK's SACK blocks
        bool ack = false;     ///< an ACK crossing the port its flow's data does not
        uint32_t bytes = 0;   ///< an ACK's size on the wire (a segment's is WireBytes)
    };
    /// A drop-tail FIFO in front of a line.
    struct Port
    {
        double capacityBps;
        uint32_t buffer;
        std::vector<Packet> fifo; ///< from `head`; the first is on the line when busy
        size_t head = 0;
        bool busy = false;
    };
    enum SegState : uint8_t
    {
        Unsent,
        InFlight,
        Sacked,
        Lost,
        Acked
    };
    enum class CaState : uint8_t
    {
        Open,
        Recovery,
        Loss
    };
    struct Feeder
    {
        double rateBps;
        std::vector<Packet> queue; ///< FIFO from `head`
        size_t head = 0;
        bool busy = false;
    };
    struct Flow
    {
        MicroFlowSpec spec;
        uint32_t segments = 0;
        // Sender.
        std::vector<uint8_t> state;
        /// ns-3's TcpTxItem::m_retrans since the last timeout: 1 sent again, 2 sent again
        /// while still in flight (DoRetransmit's head), which counts twice in the pipe.
        std::vector<uint8_t> retx;
        uint32_t cumAck = 0;   ///< first segment not cumulatively acknowledged
        uint32_t nextNew = 0;  ///< first segment never sent
        uint32_t pipe = 0;     ///< segments in flight (RFC 6675)
        uint32_t lostScan = 0; ///< segments below are not candidates for loss marking
        uint32_t lostCount = 0;
        uint32_t top3[3] = {0, 0, 0}; ///< the three highest SACKed segments + 1 (0: none)
        uint32_t dupAcks = 0;
        double cwnd = 10;
        double ssthresh = 1e18;
        CaState ca = CaState::Open;
        uint32_t recoveryPoint = 0;
        uint32_t prrDelivered = 0; ///< PRR: segments delivered since recovery began
        int64_t prrOut = 0;        ///< PRR: segments sent since recovery began
        double recoverFs = 0;      ///< PRR: segments outstanding when recovery began
        double srtt = 0, rttvar = 0, rto = 1.0;
        uint32_t historyStart = 0;   ///< segments below were sent before the last timeout
        std::vector<double> sentAt;  ///< first send time of each segment (RTT history)
        bool firstPartialAck = true; ///< only the first partial ACK of a recovery re-arms
        // Receiver's timestamp echo (TcpSocketBase::ProcessOptionTimestamp).
        double tsEcho = 0;
        double tsRecent = -1;
        uint32_t lastAckSent = 0;
        uint32_t rtoGen = 0;
        bool rtoArmed = false;
        // CUBIC.
        uint32_t cwndCnt = 0; ///< TcpCubic::m_cWndCnt, which no loss or timeout resets
        double lastMaxCwnd = 0;
        double originPoint = 0;
        double bicK = 0;
        double delayMin = -1;
        double epochStart = -1;
        bool found = false;
        double roundStart = -1;
        uint32_t endSeq = 0;
        double lastAckTime = -1;
        double currRtt = -1;
        uint32_t sampleCnt = 0;
        // Receiver.
        std::vector<uint8_t> received;
        uint32_t expected = 0;
        uint32_t outOfOrder = 0;
        /// TcpRxBuffer's SACK list: blocks [first, end) of out-of-order data, the one changed
        /// last first, at most four.
        uint32_t sackFirst[4] = {0, 0, 0, 0};
        uint32_t sackEnd[4] = {0, 0, 0, 0};
        uint8_t sackCount = 0;
        uint32_t delAckPending = 0;
        uint32_t delAckGen = 0;
        MicroFlowResult result;
        bool reported = false;
    };

    void Schedule(double time,
                  EventType type,
                  uint32_t flow,
                  uint32_t seg,
                  int64_t extra,
                  double stamp,
                  uint8_t port = 0);
    void ScheduleAck(double time,
                     uint32_t flow,
                     uint32_t cum,
                     const SackBlocks& sack,
                     double stamp);
    void ScheduleArrival(double time, uint8_t port, const Packet& packet);
    /// The port a flow's data crosses (0, or 1 when it is sent the reverse way), and the one
    /// its ACKs cross.
    static uint8_t DataPort(const Flow& flow);
    void PortArrive(const Event& e);
    void Handle(const Event& e);
    void StartFlow(uint32_t f);
    void PiggybackPendingAck(uint32_t f);
    void SendWhatTheWindowAllows(uint32_t f);
    /// The segment NextSeg's rule 3 sends again, or `flow.segments` if none.
    uint32_t RuleThreeSegment(const Flow& flow) const;
    void Transmit(uint32_t f, uint32_t seg);
    void FeederNext(uint32_t feeder);
    void PortNext(uint8_t port);
    void Receive(uint32_t f, uint32_t seg, double stamp);
    void SendAck(uint32_t f);
    /// TcpRxBuffer::UpdateSackList for out-of-order segment `seg`, and ClearSackList.
    static void UpdateSackList(Flow& flow, uint32_t seg);
    static void ClearSackList(Flow& flow);
    /// The blocks an ACK carries now: the list's first three (none without SACK).
    SackBlocks SackOf(const Flow& flow) const;
    void OnAck(uint32_t f, uint32_t cum, const SackBlocks& sack, double stamp);
    /// Marks what an ACK's block SACKs for the first time; returns how many segments.
    uint32_t TakeSack(Flow& flow, uint32_t cum, uint32_t first, uint32_t end);
    void OnRto(uint32_t f, uint32_t gen);
    void ArmRto(uint32_t f);
    void MarkLost(Flow& flow);
    void EnterRecovery(uint32_t f);
    void PrrUpdate(Flow& flow, uint32_t delivered, bool retransAcked);
    void DoRetransmit(uint32_t f);
    void LeavePipe(Flow& flow, uint32_t seg);
    void RttSample(Flow& flow, uint32_t oldCum, uint32_t cum, double echo);
    void ResetRto(Flow& flow);
    double SsThresh(Flow& flow);
    void IncreaseWindow(Flow& flow, uint32_t acked);
    uint32_t CubicCount(Flow& flow);
    void HystartReset(Flow& flow);
    void PktsAcked(Flow& flow, double rtt);
    uint64_t WireBytes(const Flow& flow, uint32_t seg) const;
    /// How long a packet of `bits` that the port finished sending now waits at `hop` behind
    /// what the port sent there before it; books its serialisation there.
    double WaitAtNextHop(const MicroNextHop& hop, double bits);
    static double TimestampMs(double timeS);
    void Trace(uint32_t f, MicroTraceRow::Event event, uint32_t seg);

    MicroTcpSettings m_tcp;
    double m_now = 0.0;
    uint64_t m_order = 0;
    std::priority_queue<Event, std::vector<Event>, std::greater<Event>> m_events;
    std::vector<Feeder> m_feeders;
    std::vector<Flow> m_flows;
    std::vector<Port> m_ports; ///< the port, and the reverse port if there is one
    /// When each next hop (by id) is free again; hashed: every packet past a port looks it up.
    std::unordered_map<uint32_t, double> m_hopFree;
    /// Each connection's latest flow each way ([0] the port's way, [1] the reverse; -1 none).
    std::unordered_map<uint64_t, std::array<int64_t, 2>> m_connectionFlows;
    uint64_t m_drops = 0;
    uint64_t m_ackDrops = 0;
    size_t m_active = 0;
    std::vector<MicroTraceRow>* m_trace = nullptr;
};

} // namespace fedran

#endif
