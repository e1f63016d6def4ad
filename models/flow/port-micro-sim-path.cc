// The port micro-simulation's packets on their way (see port-micro-sim.h): the sender puts
// on the wire what its window allows (new data, or segments marked lost, first); the sending
// host's first hop and the port's drop-tail FIFO serialise them one at a time; the receiver
// takes each segment in, keeps out-of-order data, and acknowledges as ns-3.37's
// TcpSocketBase does (delayed ACKs, at once for data out of order or filling a gap, SACK
// blocks for what it holds beyond a hole).

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
    SendWhatTheWindowAllows(f);
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
                break;
            }
            seg = flow.nextNew++;
            flow.sentAt[seg] = m_now;
        }
        Transmit(f, seg);
    }
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
    const double bits = WireBytes(m_flows[packet.flow], packet.seg) * 8.0;
    // A rate of 0 stands for a feeder faster than anything that matters (no serialisation).
    const double serialise = feeder.rateBps > 0.0 ? bits / feeder.rateBps : 0.0;
    feeder.busy = true;
    Schedule(m_now + serialise, EventType::FeederDone, 0, id, 0, 0.0);
}

void
PortMicroSim::ScheduleArrival(double time, uint8_t port, const Packet& packet)
{
    Event e{time,
            m_order++,
            EventType::PortArrive,
            packet.flow,
            packet.seg,
            packet.sack,
            packet.stamp};
    e.port = port;
    e.ack = packet.ack;
    e.bytes = packet.bytes;
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
    const Packet packet{e.flow, e.seg, e.stamp, e.extra, e.ack, e.bytes};
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
        SendAck(f, -1); // a duplicate: ACK at once
        return;
    }
    flow.received[seg] = 1;
    if (seg != flow.expected)
    {
        // One more out-of-order block unless the segment extends or joins neighbours.
        const bool left = seg > flow.expected && flow.received[seg - 1] != 0;
        const bool right = seg + 1 < flow.segments && flow.received[seg + 1] != 0;
        flow.sackBlocks += 1;
        flow.sackBlocks -= (left ? 1 : 0) + (right ? 1 : 0);
        ++flow.outOfOrder;
        SendAck(f, seg); // out of order: a duplicate ACK with the segment SACKed
        return;
    }
    if (seg + 1 < flow.segments && flow.received[seg + 1] != 0)
    {
        --flow.sackBlocks; // the first block above joins the in-order data
    }
    uint32_t advanced = 0;
    while (flow.expected < flow.segments && flow.received[flow.expected])
    {
        ++flow.expected;
        ++advanced;
    }
    flow.outOfOrder -= advanced - 1;
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
        SendAck(f, -1); // a gap remains or was just filled: ACK at once
        return;
    }
    if (++flow.delAckPending >= m_tcp.delAckCount)
    {
        SendAck(f, -1);
    }
    else if (flow.delAckPending == 1)
    {
        Schedule(m_now + m_tcp.delAckTimeoutS, EventType::DelAck, f, 0, flow.delAckGen, 0.0);
    }
}

void
PortMicroSim::SendAck(uint32_t f, int64_t sackSeg)
{
    Flow& flow = m_flows[f];
    flow.delAckPending = 0;
    ++flow.delAckGen;
    flow.lastAckSent = std::max(flow.lastAckSent, flow.expected);
    // The ACK's serialisation on the hops back: 20 IP + 20 TCP bytes, the timestamp option
    // and up to 3 SACK blocks (TcpSocketBase::AddOptionSack: 40 option bytes at most), padded
    // to 4 bytes, and the link header; an ACK naming holes is longer than a pure one.
    const uint32_t tsBytes = m_tcp.timestamps ? 10 : 0;
    const uint32_t blocks = m_tcp.sack ? std::min<uint32_t>(flow.sackBlocks, 3) : 0;
    const uint32_t sackBytes = blocks > 0 ? 2 + 8 * blocks : 0;
    auto pad = [](uint32_t n) {
        return (n + 3) / 4 * 4;
    };
    const uint32_t ackBytes = m_tcp.headerBytes - pad(tsBytes) + pad(tsBytes + sackBytes);
    const uint8_t ackPort = DataPort(flow) == 0 ? 1 : 0;
    if (ackPort < m_ports.size())
    {
        // Through the other direction's FIFO, behind the data sent that way.
        ScheduleArrival(
            m_now + flow.spec.ackToPortS + ackBytes * 8.0 * flow.spec.ackToPortSecondsPerBit,
            ackPort,
            Packet{f, flow.expected, flow.tsEcho, m_tcp.sack ? sackSeg : -1, true, ackBytes});
        return;
    }
    Schedule(m_now + flow.spec.ackDelayS + ackBytes * 8.0 * flow.spec.ackSecondsPerBit,
             EventType::Ack,
             f,
             flow.expected,
             m_tcp.sack ? sackSeg : -1,
             flow.tsEcho);
}

} // namespace fedran
