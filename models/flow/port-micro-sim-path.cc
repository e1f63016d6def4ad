// The port micro-simulation's packets on their way (see port-micro-sim.h): the sender puts
// on the wire what its window allows (segments marked lost first, then new data, then
// NextSeg's rule 3); the sending host's first hop and the port's drop-tail FIFO serialise
// them one at a time, and the hop past the port takes what the port sends in order; the
// receiver takes each segment in, keeps out-of-order data, and acknowledges as ns-3.37's
// TcpSocketBase does (delayed ACKs, at once for data out of order or filling a gap, the SACK
// list's blocks, the ACK a connection's data carries the other way).

#include "models/flow/port-micro-sim.h"

#include <algorithm>
#include <cmath>

namespace fedran
{

void
PortMicroSim::StartFlow(uint32_t f)
{
    HystartReset(m_flows[f]);
    m_flows[f].roundStart = -1; // ns-3 starts HyStart's first round at the first ACK
    m_flows[f].endSeq = 0;
    PiggybackPendingAck(f);
    SendWhatTheWindowAllows(f);
}

void
PortMicroSim::PiggybackPendingAck(uint32_t f)
{
    const MicroFlowSpec& spec = m_flows[f].spec;
    const auto it =
        spec.connection != 0 ? m_connectionFlows.find(spec.connection) : m_connectionFlows.end();
    if (it == m_connectionFlows.end() || it->second[spec.reverse ? 0 : 1] < 0)
    {
        return;
    }
    const auto other = static_cast<uint32_t>(it->second[spec.reverse ? 0 : 1]);
    Flow& back = m_flows[other];
    if (back.delAckPending == 0 && back.cumAck >= back.expected)
    {
        return; // nothing owed, and the sender knows all the receiver holds
    }
    // Every segment carries the receiver's cumulative ACK: the first one this way tells the
    // other way's sender what the receiver has, even if the ACKs that said so were lost at a
    // port; and TcpSocketBase::SendDataPacket cancels the delayed ACK, so no ACK of its own
    // crosses a port. The news reaches that sender after a segment's time on the path,
    // without the port's queue in front of the segment: where the other way's message has
    // fully arrived (a client answering the model it received), only that sender's
    // retransmission timer, a second away, could tell the difference.
    back.delAckPending = 0;
    ++back.delAckGen;
    back.lastAckSent = std::max(back.lastAckSent, back.expected);
    const double bits = (m_tcp.mss + m_tcp.headerBytes) * 8.0;
    ScheduleAck(m_now + back.spec.ackDelayS + bits * back.spec.ackSecondsPerBit,
                other,
                back.expected,
                SackOf(back),
                back.tsEcho);
}

void
PortMicroSim::Transmit(uint32_t f, uint32_t seg)
{
    Flow& flow = m_flows[f];
    if (flow.state[seg] == Lost)
    {
        --flow.lostCount;
        ++flow.result.retransmissions;
        flow.retx[seg] = 1;
        ++flow.pipe;
    }
    else if (flow.state[seg] == InFlight)
    {
        // Sent again while the first copy is in flight (ns-3's DoRetransmit of the head):
        // TcpTxBuffer::BytesInFlight counts it twice until it leaves.
        ++flow.result.retransmissions;
        if (flow.retx[seg] == 0)
        {
            flow.retx[seg] = 2;
            ++flow.pipe;
        }
    }
    else
    {
        ++flow.pipe;
    }
    flow.state[seg] = InFlight;
    if (flow.ca == CaState::Recovery)
    {
        ++flow.prrOut;
    }
    flow.result.wireBytes += WireBytes(flow, seg);
    Feeder& feeder = m_feeders[flow.spec.feeder];
    feeder.queue.push_back(Packet{f, seg, m_now});
    FeederNext(flow.spec.feeder);
    if (!flow.rtoArmed)
    {
        ArmRto(f);
    }
}

void
PortMicroSim::SendWhatTheWindowAllows(uint32_t f)
{
    Flow& flow = m_flows[f];
    double window = flow.cwnd;
    if (!m_tcp.sack && m_tcp.limitedTransmit && flow.ca == CaState::Open)
    {
        window += std::min<uint32_t>(flow.dupAcks, 2); // RFC 3042 without SACK's pipe
    }
    const uint32_t allowed = static_cast<uint32_t>(std::floor(window));
    while (flow.pipe < allowed)
    {
        uint32_t seg = flow.segments;
        if (flow.lostCount > 0)
        {
            for (uint32_t s = flow.cumAck; s < flow.nextNew; ++s)
            {
                if (flow.state[s] == Lost)
                {
                    seg = s;
                    break;
                }
            }
        }
        if (seg == flow.segments)
        {
            if (flow.nextNew >= flow.segments || flow.nextNew - flow.cumAck >= m_tcp.maxWindow)
            {
                seg = RuleThreeSegment(flow);
                if (seg == flow.segments)
                {
                    break;
                }
            }
            else
            {
                seg = flow.nextNew++;
                flow.sentAt[seg] = m_now;
            }
        }
        Transmit(f, seg);
    }
}

uint32_t
PortMicroSim::RuleThreeSegment(const Flow& flow) const
{
    // NextSeg's rule 3 as ns-3.37's TcpTxBuffer has it: in SACK recovery, with nothing lost to
    // repair and no new data to send, the first segment neither SACKed nor sent again goes
    // again, though nothing says it is lost (the RFC's "below the highest SACK" is not
    // checked): the tail of a message still in flight is sent twice.
    if (!m_tcp.sack || flow.ca != CaState::Recovery)
    {
        return flow.segments;
    }
    for (uint32_t s = flow.cumAck; s < flow.nextNew; ++s)
    {
        if (flow.state[s] == InFlight && flow.retx[s] == 0)
        {
            return s;
        }
    }
    return flow.segments;
}

void
PortMicroSim::FeederNext(uint32_t id)
{
    Feeder& feeder = m_feeders[id];
    if (feeder.busy || feeder.head >= feeder.queue.size())
    {
        if (feeder.head == feeder.queue.size())
        {
            feeder.queue.clear();
            feeder.head = 0;
        }
        return;
    }
    const Packet& packet = feeder.queue[feeder.head];
    const Flow& flow = m_flows[packet.flow];
    const double bits = (packet.ack ? packet.bytes : WireBytes(flow, packet.seg)) * 8.0;
    // A rate of 0 stands for a feeder faster than anything that matters (no serialisation).
    const double feederSecondsPerBit = feeder.rateBps > 0.0 ? 1.0 / feeder.rateBps : 0.0;
    const double serialise = bits * feederSecondsPerBit;
    feeder.busy = true;
    Schedule(m_now + serialise, EventType::FeederDone, 0, id, 0, 0.0);
    // Its arrival at the port is scheduled now, as ns-3's channel schedules a packet's
    // reception when its transmission starts: of two packets reaching the port in the same
    // nanosecond, the one whose transmission started first is taken first.
    if (packet.ack)
    {
        const double otherHops =
            std::max(0.0, flow.spec.ackToPortSecondsPerBit - feederSecondsPerBit);
        ScheduleArrival(m_now + serialise + flow.spec.ackToPortS + bits * otherHops,
                        DataPort(flow) == 0 ? 1 : 0,
                        packet);
        return;
    }
    ScheduleArrival(m_now + serialise + flow.spec.toPortS + bits * flow.spec.toPortSecondsPerBit,
                    DataPort(flow),
                    packet);
}

void
PortMicroSim::ScheduleArrival(double time, uint8_t port, const Packet& packet)
{
    Event e{time, m_order++, EventType::PortArrive, packet.flow, packet.seg, -1, packet.stamp};
    e.port = port;
    e.ack = packet.ack;
    e.bytes = packet.bytes;
    e.sack = packet.sack;
    m_events.push(e);
}

uint8_t
PortMicroSim::DataPort(const Flow& flow)
{
    return flow.spec.reverse ? 1 : 0;
}

void
PortMicroSim::PortArrive(const Event& e)
{
    Port& port = m_ports[e.port];
    const Packet packet{e.flow, e.seg, e.stamp, e.sack, e.ack, e.bytes};
    if (!port.busy)
    {
        port.fifo.push_back(packet);
        PortNext(e.port);
    }
    else if (port.fifo.size() - port.head - 1 < port.buffer)
    {
        port.fifo.push_back(packet);
    }
    else if (e.ack)
    {
        ++m_ackDrops; // drop-tail: an ACK is a packet like any other
        Trace(e.flow, MicroTraceRow::Event::AckDrop, e.seg);
    }
    else
    {
        ++m_drops; // drop-tail: the buffer is full
        Trace(e.flow, MicroTraceRow::Event::Drop, e.seg);
    }
}

void
PortMicroSim::PortNext(uint8_t id)
{
    Port& port = m_ports[id];
    if (port.busy || port.head >= port.fifo.size())
    {
        if (port.head > 4096 && port.head * 2 > port.fifo.size())
        {
            port.fifo.erase(port.fifo.begin(),
                            port.fifo.begin() + static_cast<std::ptrdiff_t>(port.head));
            port.head = 0;
        }
        return;
    }
    const Packet& packet = port.fifo[port.head];
    port.busy = true;
    const uint64_t bytes = packet.ack ? packet.bytes : WireBytes(m_flows[packet.flow], packet.seg);
    Schedule(m_now + bytes * 8.0 / port.capacityBps,
             EventType::PortDone,
             packet.flow,
             0,
             0,
             0.0,
             id);
}

void
PortMicroSim::Receive(uint32_t f, uint32_t seg, double stamp)
{
    Flow& flow = m_flows[f];
    // TcpSocketBase::ProcessOptionTimestamp: a timestamp older than the last one seen is
    // ignored; the echo is taken from the segment at the left edge of the window that no
    // ACK has covered yet (the first of a delayed-ACK pair, or the one filling a hole).
    const double ts = m_tcp.timestamps ? TimestampMs(stamp) : stamp;
    if (ts >= flow.tsRecent)
    {
        flow.tsRecent = ts;
        if (seg == flow.expected && seg <= flow.lastAckSent)
        {
            flow.tsEcho = ts;
        }
    }
    if (seg < flow.expected || flow.received[seg])
    {
        SendAck(f); // a duplicate: ACK at once
        return;
    }
    flow.received[seg] = 1;
    if (seg != flow.expected)
    {
        UpdateSackList(flow, seg);
        ++flow.outOfOrder;
        SendAck(f); // out of order: a duplicate ACK, its block SACKed first
        return;
    }
    uint32_t advanced = 0;
    while (flow.expected < flow.segments && flow.received[flow.expected])
    {
        ++flow.expected;
        ++advanced;
    }
    flow.outOfOrder -= advanced - 1;
    ClearSackList(flow);
    if (flow.expected == flow.segments && !flow.result.done)
    {
        flow.result.done = true;
        flow.result.finishS = m_now;
        flow.result.cwndAtFinish = static_cast<uint32_t>(flow.cwnd);
        flow.result.ssthreshAtFinish =
            flow.ssthresh < 1e9 ? static_cast<uint32_t>(std::max(1.0, flow.ssthresh)) : 0u;
        flow.result.srttAtFinish = flow.srtt;
        flow.result.minRttAtFinish = std::max(0.0, flow.delayMin);
        --m_active;
    }
    if (flow.outOfOrder > 0 || advanced > 1)
    {
        SendAck(f); // a gap remains or was just filled: ACK at once
        return;
    }
    if (++flow.delAckPending >= m_tcp.delAckCount)
    {
        SendAck(f);
    }
    else if (flow.delAckPending == 1)
    {
        Schedule(m_now + m_tcp.delAckTimeoutS, EventType::DelAck, f, 0, flow.delAckGen, 0.0);
    }
}

void
PortMicroSim::UpdateSackList(Flow& flow, uint32_t seg)
{
    // The new block goes first; a block it touches is merged into it (and the merged block
    // may touch another); at most four are kept, the oldest dropped.
    uint32_t first[5] = {seg};
    uint32_t end[5] = {seg + 1};
    uint8_t count = 1;
    for (uint8_t i = 0; i < flow.sackCount; ++i)
    {
        first[count] = flow.sackFirst[i];
        end[count] = flow.sackEnd[i];
        ++count;
    }
    for (uint8_t i = 1; i < count;)
    {
        if (first[0] == end[i] || end[0] == first[i])
        {
            first[0] = std::min(first[0], first[i]);
            end[0] = std::max(end[0], end[i]);
            std::copy(first + i + 1, first + count, first + i);
            std::copy(end + i + 1, end + count, end + i);
            --count;
            i = 1;
            continue;
        }
        ++i;
    }
    flow.sackCount = std::min<uint8_t>(count, 4);
    std::copy(first, first + flow.sackCount, flow.sackFirst);
    std::copy(end, end + flow.sackCount, flow.sackEnd);
}

void
PortMicroSim::ClearSackList(Flow& flow)
{
    uint8_t kept = 0;
    for (uint8_t i = 0; i < flow.sackCount; ++i)
    {
        if (flow.sackEnd[i] > flow.expected)
        {
            flow.sackFirst[kept] = flow.sackFirst[i];
            flow.sackEnd[kept] = flow.sackEnd[i];
            ++kept;
        }
    }
    flow.sackCount = kept;
}

PortMicroSim::SackBlocks
PortMicroSim::SackOf(const Flow& flow) const
{
    SackBlocks sack;
    if (!m_tcp.sack)
    {
        return sack;
    }
    sack.count = std::min<uint8_t>(flow.sackCount, 3);
    std::copy(flow.sackFirst, flow.sackFirst + sack.count, sack.first);
    std::copy(flow.sackEnd, flow.sackEnd + sack.count, sack.end);
    return sack;
}

void
PortMicroSim::SendAck(uint32_t f)
{
    Flow& flow = m_flows[f];
    flow.delAckPending = 0;
    ++flow.delAckGen;
    flow.lastAckSent = std::max(flow.lastAckSent, flow.expected);
    // The ACK's serialisation on the hops back: 20 IP + 20 TCP bytes, the timestamp option
    // and up to 3 SACK blocks (TcpSocketBase::AddOptionSack: 40 option bytes at most), padded
    // to 4 bytes, and the link header; an ACK naming holes is longer than a pure one.
    const uint32_t tsBytes = m_tcp.timestamps ? 10 : 0;
    const SackBlocks sack = SackOf(flow);
    const uint32_t blocks = sack.count;
    const uint32_t sackBytes = blocks > 0 ? 2 + 8 * blocks : 0;
    auto pad = [](uint32_t n) {
        return (n + 3) / 4 * 4;
    };
    const uint32_t ackBytes = m_tcp.headerBytes - pad(tsBytes) + pad(tsBytes + sackBytes);
    const uint8_t ackPort = DataPort(flow) == 0 ? 1 : 0;
    if (ackPort < m_ports.size() && flow.spec.ackFeeder < m_feeders.size())
    {
        // Out of the receiving host behind what it sends, then through the port.
        m_feeders[flow.spec.ackFeeder].queue.push_back(
            Packet{f, flow.expected, flow.tsEcho, sack, true, ackBytes});
        FeederNext(flow.spec.ackFeeder);
        return;
    }
    if (ackPort < m_ports.size())
    {
        // Through the other direction's FIFO, behind the data sent that way.
        ScheduleArrival(m_now + flow.spec.ackToPortS +
                            ackBytes * 8.0 * flow.spec.ackToPortSecondsPerBit,
                        ackPort,
                        Packet{f, flow.expected, flow.tsEcho, sack, true, ackBytes});
        return;
    }
    ScheduleAck(m_now + flow.spec.ackDelayS + ackBytes * 8.0 * flow.spec.ackSecondsPerBit,
                f,
                flow.expected,
                sack,
                flow.tsEcho);
}

void
PortMicroSim::ScheduleAck(double time,
                          uint32_t flow,
                          uint32_t cum,
                          const SackBlocks& sack,
                          double stamp)
{
    Event e{time, m_order++, EventType::Ack, flow, cum, -1, stamp};
    e.sack = sack;
    m_events.push(e);
}

double
PortMicroSim::WaitAtNextHop(const MicroNextHop& hop, double bits)
{
    if (hop.id == MicroNextHop::kNone)
    {
        return 0.0;
    }
    double& free = m_hopFree[hop.id]; // 0 the first time: the hop is idle
    const double arrive = m_now + hop.delayS;
    const double start = std::max(arrive, free);
    free = start + bits * hop.secondsPerBit;
    return start - arrive;
}

uint64_t
PortMicroSim::WireBytes(const Flow& flow, uint32_t seg) const
{
    const uint64_t offset = static_cast<uint64_t>(seg) * m_tcp.mss;
    return std::min<uint64_t>(m_tcp.mss, flow.spec.payloadBytes - offset) + m_tcp.headerBytes;
}

double
PortMicroSim::TimestampMs(double timeS)
{
    // TcpOptionTS::NowToTsValue: Simulator::Now().GetMilliSeconds(), truncated.
    return std::floor(timeS * 1000.0);
}

} // namespace fedran
