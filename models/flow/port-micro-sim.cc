#include "models/flow/port-micro-sim.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fedran
{

PortMicroSim::PortMicroSim(double capacityBps, uint32_t bufferPackets, const MicroTcpSettings& tcp)
    : m_tcp(tcp)
{
    if (!(capacityBps > 0.0))
    {
        throw std::invalid_argument("PortMicroSim: the port needs a capacity above 0");
    }
    m_ports.push_back(Port{capacityBps, bufferPackets, {}, 0, false});
}

void
PortMicroSim::AddReversePort(double capacityBps, uint32_t bufferPackets)
{
    if (!(capacityBps > 0.0) || m_ports.size() > 1 || !m_flows.empty())
    {
        throw std::invalid_argument("PortMicroSim: one reverse port, with a capacity above 0, "
                                    "before any flow");
    }
    m_ports.push_back(Port{capacityBps, bufferPackets, {}, 0, false});
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
    if (spec.payloadBytes == 0 || spec.feeder >= m_feeders.size() || spec.startS < m_now ||
        (spec.reverse && m_ports.size() < 2))
    {
        throw std::invalid_argument("PortMicroSim: a flow needs bytes, a feeder, a start "
                                    "no earlier than now, and a reverse port if it uses one");
    }
    Flow flow;
    flow.spec = spec;
    flow.segments = static_cast<uint32_t>((spec.payloadBytes + m_tcp.mss - 1) / m_tcp.mss);
    flow.state.assign(flow.segments, Unsent);
    flow.retx.assign(flow.segments, 0);
    flow.sentAt.assign(flow.segments, 0.0);
    flow.received.assign(flow.segments, 0);
    flow.cwnd = std::max<uint32_t>(1, std::min(spec.cwnd, m_tcp.maxWindow));
    if (spec.ssthresh > 0)
    {
        flow.ssthresh = spec.ssthresh;
    }
    const double segmentBits = (m_tcp.mss + m_tcp.headerBytes) * 8.0;
    const double base =
        spec.srttS > 0.0
            ? spec.srttS
            : spec.toPortS + spec.fromPortS + spec.ackDelayS +
                  segmentBits * (spec.toPortSecondsPerBit + spec.fromPortSecondsPerBit);
    // As after the handshake's one RTT sample (RttMeanDeviation: SRTT = R, RTTVAR = R / 2).
    flow.srtt = base;
    flow.rttvar = base / 2.0;
    flow.rto =
        std::max(flow.srtt + std::max(m_tcp.clockGranularityS, 4.0 * flow.rttvar), m_tcp.minRtoS);
    if (spec.minRttS > 0.0)
    {
        flow.delayMin = spec.minRttS;
    }
    if (spec.newConnection && m_tcp.delAckCount > 0)
    {
        flow.delAckPending = m_tcp.delAckCount - 1;
    }
    m_flows.push_back(std::move(flow));
    const uint32_t id = static_cast<uint32_t>(m_flows.size() - 1);
    if (spec.connection != 0)
    {
        auto [it, added] = m_connectionFlows.try_emplace(spec.connection);
        if (added)
        {
            it->second = {-1, -1};
        }
        it->second[spec.reverse ? 1 : 0] = id;
    }
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
                       double stamp,
                       uint8_t port)
{
    Event e{time, m_order++, type, flow, seg, extra, stamp};
    e.port = port;
    m_events.push(e);
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
    ahead.m_trace = nullptr;
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
            ++feeder.head; // on its way to the port since its transmission started
            feeder.busy = false;
            FeederNext(e.seg);
            break;
        }
        case EventType::PortArrive:
            PortArrive(e);
            break;
        case EventType::PortDone: {
            Port& port = m_ports[e.port];
            const Packet packet = port.fifo[port.head++];
            port.busy = false;
            const MicroFlowSpec& spec = m_flows[packet.flow].spec;
            if (packet.ack)
            {
                // The rest of the way back, after the port's own serialisation.
                const double afterS = spec.ackDelayS - spec.ackToPortS;
                const double afterSecondsPerBit = std::max(
                    0.0,
                    spec.ackSecondsPerBit - spec.ackToPortSecondsPerBit - 1.0 / port.capacityBps);
                const double bits = packet.bytes * 8.0;
                ScheduleAck(m_now + afterS + bits * afterSecondsPerBit +
                                WaitAtNextHop(spec.ackNextHop, bits),
                            packet.flow,
                            packet.seg,
                            packet.sack,
                            packet.stamp);
            }
            else
            {
                const double bits = WireBytes(m_flows[packet.flow], packet.seg) * 8.0;
                Schedule(m_now + spec.fromPortS + bits * spec.fromPortSecondsPerBit +
                             WaitAtNextHop(spec.dataNextHop, bits),
                         EventType::Receive,
                         packet.flow,
                         packet.seg,
                         0,
                         packet.stamp);
            }
            PortNext(e.port);
            break;
        }
        case EventType::Receive:
            Receive(e.flow, e.seg, e.stamp);
            break;
        case EventType::DelAck:
            if (m_flows[e.flow].delAckGen == static_cast<uint32_t>(e.extra) &&
                m_flows[e.flow].delAckPending > 0)
            {
                SendAck(e.flow);
            }
            break;
        case EventType::Ack:
            OnAck(e.flow, e.seg, e.sack, e.stamp);
            break;
        case EventType::Rto:
            OnRto(e.flow, static_cast<uint32_t>(e.extra));
            break;
    }
}

void
PortMicroSim::Trace(uint32_t f, MicroTraceRow::Event event, uint32_t seg)
{
    if (m_trace == nullptr)
    {
        return;
    }
    const Flow& flow = m_flows[f];
    MicroTraceRow row;
    row.timeS = m_now;
    row.flow = f;
    row.event = event;
    row.seg = seg;
    row.cwnd = flow.cwnd;
    row.ssthresh = flow.ssthresh;
    row.caState = static_cast<uint8_t>(flow.ca);
    row.rtoS = flow.rto;
    row.srttS = flow.srtt;
    row.pipe = flow.pipe;
    const Port& port = m_ports[DataPort(flow)];
    row.queue = static_cast<uint32_t>(port.fifo.size() - port.head - (port.busy ? 1 : 0));
    m_trace->push_back(row);
}

} // namespace fedran
