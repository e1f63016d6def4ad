#include "models/flow/port-micro-sim.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

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

PortMicroSim::PortMicroSim(double capacityBps, uint32_t bufferPackets, const MicroTcpSettings& tcp)
    : m_capacityBps(capacityBps)
    , m_buffer(bufferPackets)
    , m_tcp(tcp)
{
    if (!(capacityBps > 0.0))
    {
        throw std::invalid_argument("PortMicroSim: the port needs a capacity above 0");
    }
}

uint32_t
PortMicroSim::AddFeeder(double rateBps)
{
    Feeder feeder;
    feeder.rateBps = rateBps;
    m_feeders.push_back(std::move(feeder));
    return static_cast<uint32_t>(m_feeders.size() - 1);
}

uint32_t
PortMicroSim::AddFlow(const MicroFlowSpec& spec)
{
    if (spec.payloadBytes == 0 || spec.feeder >= m_feeders.size() || spec.startS < m_now)
    {
        throw std::invalid_argument("PortMicroSim: a flow needs bytes, a feeder and a start "
                                    "no earlier than now");
    }
    Flow flow;
    flow.spec = spec;
    flow.segments = static_cast<uint32_t>((spec.payloadBytes + m_tcp.mss - 1) / m_tcp.mss);
    flow.state.assign(flow.segments, Unsent);
    flow.received.assign(flow.segments, 0);
    flow.cwnd = std::max<uint32_t>(1, std::min(spec.cwnd, m_tcp.maxWindow));
    const double base =
        spec.srttS > 0.0 ? spec.srttS : spec.toPortS + spec.fromPortS + spec.ackDelayS;
    // As after the handshake's one RTT sample (RttMeanDeviation: SRTT = R, RTTVAR = R / 2).
    flow.srtt = base;
    flow.rttvar = base / 2.0;
    flow.rto =
        std::max(flow.srtt + std::max(m_tcp.clockGranularityS, 4.0 * flow.rttvar), m_tcp.minRtoS);
    m_flows.push_back(std::move(flow));
    const uint32_t id = static_cast<uint32_t>(m_flows.size() - 1);
    ++m_active;
    Schedule(spec.startS, EventType::Start, id, 0, 0, 0.0);
    return id;
}

void
PortMicroSim::Schedule(double time,
                       EventType type,
                       uint32_t flow,
                       uint32_t seg,
                       int64_t extra,
                       double stamp)
{
    m_events.push(Event{time, m_order++, type, flow, seg, extra, stamp});
}

void
PortMicroSim::RunUntil(double timeS)
{
    while (!m_events.empty() && m_events.top().time <= timeS)
    {
        const Event e = m_events.top();
        m_events.pop();
        m_now = e.time;
        Handle(e);
    }
    m_now = std::max(m_now, timeS);
}

std::optional<double>
PortMicroSim::NextFinish() const
{
    for (const Flow& flow : m_flows)
    {
        if (flow.result.done && !flow.reported)
        {
            return flow.result.finishS;
        }
    }
    if (m_active == 0)
    {
        return std::nullopt;
    }
    PortMicroSim ahead = *this;
    while (!ahead.m_events.empty())
    {
        const Event e = ahead.m_events.top();
        ahead.m_events.pop();
        ahead.m_now = e.time;
        const size_t before = ahead.m_active;
        ahead.Handle(e);
        if (ahead.m_active < before)
        {
            return ahead.m_now;
        }
    }
    return std::nullopt;
}

std::vector<uint32_t>
PortMicroSim::TakeFinished()
{
    std::vector<uint32_t> finished;
    for (uint32_t f = 0; f < m_flows.size(); ++f)
    {
        Flow& flow = m_flows[f];
        if (flow.result.done && !flow.reported && flow.result.finishS <= m_now)
        {
            flow.reported = true;
            finished.push_back(f);
        }
    }
    return finished;
}

void
PortMicroSim::Handle(const Event& e)
{
    switch (e.type)
    {
        case EventType::Start:
            StartFlow(e.flow);
            break;
        case EventType::FeederDone: {
            Feeder& feeder = m_feeders[e.seg];
            const Packet packet = feeder.queue[feeder.head++];
            feeder.busy = false;
            Schedule(m_now + m_flows[packet.flow].spec.toPortS,
                     EventType::PortArrive,
                     packet.flow,
                     packet.seg,
                     0,
                     packet.stamp);
            FeederNext(e.seg);
            break;
        }
        case EventType::PortArrive:
            if (!m_portBusy)
            {
                m_port.push_back(Packet{e.flow, e.seg, e.stamp});
                PortNext();
            }
            else if (m_port.size() - m_portHead - 1 < m_buffer)
            {
                m_port.push_back(Packet{e.flow, e.seg, e.stamp});
            }
            else
            {
                ++m_drops; // drop-tail: the buffer is full
            }
            break;
        case EventType::PortDone: {
            const Packet packet = m_port[m_portHead++];
            m_portBusy = false;
            Schedule(m_now + m_flows[packet.flow].spec.fromPortS,
                     EventType::Receive,
                     packet.flow,
                     packet.seg,
                     0,
                     packet.stamp);
            PortNext();
            break;
        }
        case EventType::Receive:
            Receive(e.flow, e.seg, e.stamp);
            break;
        case EventType::DelAck:
            if (m_flows[e.flow].delAckGen == static_cast<uint32_t>(e.extra) &&
                m_flows[e.flow].delAckPending > 0)
            {
                SendAck(e.flow, -1);
            }
            break;
        case EventType::Ack:
            OnAck(e.flow, e.seg, e.extra, e.stamp);
            break;
        case EventType::Rto:
            OnRto(e.flow, static_cast<uint32_t>(e.extra));
            break;
    }
}

uint64_t
PortMicroSim::WireBytes(const Flow& flow, uint32_t seg) const
{
    const uint64_t offset = static_cast<uint64_t>(seg) * m_tcp.mss;
    return std::min<uint64_t>(m_tcp.mss, flow.spec.payloadBytes - offset) + m_tcp.headerBytes;
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
PortMicroSim::PortNext()
{
    if (m_portBusy || m_portHead >= m_port.size())
    {
        if (m_portHead > 4096 && m_portHead * 2 > m_port.size())
        {
            m_port.erase(m_port.begin(), m_port.begin() + static_cast<std::ptrdiff_t>(m_portHead));
            m_portHead = 0;
        }
        return;
    }
    const Packet& packet = m_port[m_portHead];
    m_portBusy = true;
    Schedule(m_now + WireBytes(m_flows[packet.flow], packet.seg) * 8.0 / m_capacityBps,
             EventType::PortDone,
             0,
             0,
             0,
             0.0);
}

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
    }
    flow.state[seg] = InFlight;
    ++flow.pipe;
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
        }
        Transmit(f, seg);
    }
}

void
PortMicroSim::Receive(uint32_t f, uint32_t seg, double stamp)
{
    Flow& flow = m_flows[f];
    if (seg < flow.expected || flow.received[seg])
    {
        SendAck(f, -1); // a duplicate: ACK at once
        return;
    }
    flow.received[seg] = 1;
    flow.lastStamp = stamp;
    if (seg != flow.expected)
    {
        ++flow.outOfOrder;
        SendAck(f, seg); // out of order: a duplicate ACK with the segment SACKed
        return;
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
    Schedule(m_now + flow.spec.ackDelayS,
             EventType::Ack,
             f,
             flow.expected,
             m_tcp.sack ? sackSeg : -1,
             flow.lastStamp);
}

void
PortMicroSim::MarkLost(Flow& flow)
{
    // RFC 6675 IsLost: a segment with reTxThreshold SACKed segments above it. The highest
    // SACKed segments are kept, so the threshold is the reTxThreshold-th highest of them; a
    // segment sent again is not judged again (only the timeout finds it lost twice).
    const uint32_t k = std::min<uint32_t>(3, std::max<uint32_t>(1, m_tcp.reTxThreshold));
    if (flow.top3[k - 1] == 0)
    {
        return;
    }
    const uint32_t below = flow.top3[k - 1] - 1;
    for (uint32_t s = std::max(flow.lostScan, flow.cumAck); s < below; ++s)
    {
        if (flow.state[s] == InFlight)
        {
            flow.state[s] = Lost;
            --flow.pipe;
            ++flow.lostCount;
        }
    }
    flow.lostScan = std::max(flow.lostScan, below);
}

void
PortMicroSim::EnterRecovery(uint32_t f)
{
    Flow& flow = m_flows[f];
    flow.ca = CaState::Recovery;
    flow.recoveryPoint = flow.nextNew;
    ++flow.result.fastRecoveries;
    if (flow.lostCount == 0 && flow.state[flow.cumAck] == InFlight)
    {
        flow.state[flow.cumAck] = Lost; // three duplicate ACKs name the first hole
        --flow.pipe;
        ++flow.lostCount;
    }
    flow.ssthresh = SsThresh(flow);
    flow.cwnd = flow.ssthresh;
    flow.cwndCnt = 0;
    flow.prrDelivered = 0;
    flow.prrOut = 0;
    flow.recoverFs = flow.nextNew - flow.cumAck;
    // Fast retransmit: the first lost segment goes at once, whatever the pipe.
    for (uint32_t s = flow.cumAck; s < flow.nextNew; ++s)
    {
        if (flow.state[s] == Lost)
        {
            Transmit(f, s);
            break;
        }
    }
}

void
PortMicroSim::OnAck(uint32_t f, uint32_t cum, int64_t sackSeg, double stamp)
{
    Flow& flow = m_flows[f];
    if (flow.cumAck >= flow.segments)
    {
        return; // everything acknowledged: the sender is done
    }
    uint32_t delivered = 0; // segments this ACK reports delivered for the first time (PRR)
    if (sackSeg >= static_cast<int64_t>(cum) && sackSeg < static_cast<int64_t>(flow.segments))
    {
        const uint32_t s = static_cast<uint32_t>(sackSeg);
        if (flow.state[s] == InFlight || flow.state[s] == Lost)
        {
            ++delivered;
            if (flow.state[s] == InFlight)
            {
                --flow.pipe;
            }
            else
            {
                --flow.lostCount;
            }
            flow.state[s] = Sacked;
            // Keep the three highest SACKed segments (stored + 1).
            uint32_t v = s + 1;
            for (uint32_t& top : flow.top3)
            {
                if (v > top)
                {
                    std::swap(v, top);
                }
            }
        }
    }
    if (cum > flow.cumAck)
    {
        const uint32_t acked = cum - flow.cumAck;
        for (uint32_t s = flow.cumAck; s < cum; ++s)
        {
            delivered += flow.state[s] != Sacked ? 1 : 0;
            if (flow.state[s] == InFlight)
            {
                --flow.pipe;
            }
            else if (flow.state[s] == Lost)
            {
                --flow.lostCount;
            }
            flow.state[s] = Acked;
        }
        flow.cumAck = cum;
        flow.dupAcks = 0;
        // Timestamps give a sample per ACK; a new ACK also resets the backoff.
        const double rtt = m_now - stamp;
        RttSample(flow, rtt);
        PktsAcked(flow, rtt);
        if (flow.cumAck >= flow.segments)
        {
            flow.rtoArmed = false;
            ++flow.rtoGen;
            return;
        }
        ArmRto(f);
        if (flow.ca != CaState::Open && flow.cumAck >= flow.recoveryPoint)
        {
            if (flow.ca == CaState::Recovery)
            {
                flow.cwnd = flow.ssthresh;
            }
            flow.ca = CaState::Open;
        }
        else if (flow.ca == CaState::Recovery)
        {
            // A partial ACK: the next hole is lost too (NewReno, RFC 6582).
            if (flow.state[flow.cumAck] == InFlight && flow.lostCount == 0 && !m_tcp.sack)
            {
                flow.state[flow.cumAck] = Lost;
                --flow.pipe;
                ++flow.lostCount;
            }
        }
        if (flow.ca != CaState::Recovery)
        {
            IncreaseWindow(flow, acked);
        }
    }
    else if (flow.cumAck < flow.nextNew)
    {
        ++flow.dupAcks;
    }
    if (m_tcp.sack)
    {
        MarkLost(flow);
    }
    if (flow.ca == CaState::Open && (flow.dupAcks >= m_tcp.reTxThreshold || flow.lostCount > 0))
    {
        EnterRecovery(f);
    }
    if (flow.ca == CaState::Recovery)
    {
        // Proportional rate reduction (RFC 6937 with slow-start reduction bound, ns-3.37's
        // TcpPrrRecovery default): while the pipe is above ssthresh send ssthresh/RecoverFS
        // of what is delivered; below it, catch up by at most one segment more per ACK.
        flow.prrDelivered += delivered;
        int64_t sndcnt = 0;
        if (flow.pipe > flow.ssthresh)
        {
            sndcnt = static_cast<int64_t>(std::ceil(flow.prrDelivered * flow.ssthresh /
                                                    std::max(1.0, flow.recoverFs))) -
                     flow.prrOut;
        }
        else
        {
            const int64_t limit =
                std::max<int64_t>(static_cast<int64_t>(flow.prrDelivered) - flow.prrOut,
                                  delivered) +
                1;
            sndcnt = std::min<int64_t>(static_cast<int64_t>(flow.ssthresh) - flow.pipe, limit);
        }
        flow.cwnd = flow.pipe + static_cast<double>(std::max<int64_t>(0, sndcnt));
    }
    SendWhatTheWindowAllows(f);
}

} // namespace fedran
