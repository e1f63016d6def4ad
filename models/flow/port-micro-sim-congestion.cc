// The congestion control of the port micro-simulation's senders: the RTT estimator, the RTO
// timer and its expiry, and CUBIC (ns-3.37 TcpCubic) or NewReno window updates. See
// port-micro-sim.h.

#include "models/flow/port-micro-sim.h"

#include <algorithm>
#include <cmath>

namespace fedran
{

namespace
{

/// x^(1/3) for x >= 0 by Newton's method in IEEE +, *, / only (this file is compiled with
/// -ffp-contract=off), so that every host computes the same bits (libm's pow and cbrt may
/// differ between builds; docs/architecture.md, "Determinism across instruction sets").
double
CubeRoot(double x)
{
    if (!(x > 0.0))
    {
        return 0.0;
    }
    double y = x < 1.0 ? 1.0 : x / 3.0;
    for (int i = 0; i < 200; ++i)
    {
        const double next = (2.0 * y + x / (y * y)) / 3.0;
        if (next == y)
        {
            break;
        }
        y = next;
    }
    return y;
}

} // namespace

void
PortMicroSim::RttSample(Flow& flow, uint32_t oldCum, uint32_t cum, double echo)
{
    // TcpSocketBase::EstimateRtt (ns-3.37): a sample only if the ACK covers the oldest entry
    // of the RTT history and that segment was never sent again (Karn); the history is
    // emptied by a timeout. With timestamps the sample is the echoed millisecond timestamp's
    // age (0 counts as 1 us), else the time since that segment was sent.
    const uint32_t front = std::max(oldCum, flow.historyStart);
    if (front >= cum || flow.retx[front] != 0)
    {
        return;
    }
    double m = 0.0;
    if (m_tcp.timestamps)
    {
        const double ms = TimestampMs(m_now) - echo;
        m = ms > 0.0 ? ms / 1000.0 : 1e-6;
    }
    else
    {
        m = m_now - flow.sentAt[front];
    }
    // RttMeanDeviation, alpha 1/8, beta 1/4.
    const double diff = m - flow.srtt;
    flow.srtt += 0.125 * diff;
    flow.rttvar += 0.25 * (std::abs(diff) - flow.rttvar);
    ResetRto(flow);
}

void
PortMicroSim::ResetRto(Flow& flow)
{
    // RFC 6298 2.4 as TcpSocketBase: RTO = max(SRTT + max(G, 4 RTTVAR), MinRto).
    flow.rto = std::min(
        m_tcp.maxRtoS,
        std::max(flow.srtt + std::max(m_tcp.clockGranularityS, 4.0 * flow.rttvar), m_tcp.minRtoS));
}

double
PortMicroSim::SsThresh(Flow& flow)
{
    const uint32_t segCwnd = static_cast<uint32_t>(flow.cwnd);
    if (m_tcp.congestion == MicroTcpSettings::Congestion::NewReno)
    {
        return std::max<uint32_t>(2, flow.pipe / 2);
    }
    if (segCwnd < flow.lastMaxCwnd && m_tcp.fastConvergence)
    {
        flow.lastMaxCwnd = static_cast<uint32_t>(segCwnd * (1.0 + m_tcp.cubicBeta) / 2.0);
    }
    else
    {
        flow.lastMaxCwnd = segCwnd;
    }
    flow.epochStart = -1;
    return std::max<uint32_t>(static_cast<uint32_t>(segCwnd * m_tcp.cubicBeta), 2);
}

void
PortMicroSim::HystartReset(Flow& flow)
{
    flow.roundStart = m_now;
    flow.lastAckTime = m_now;
    flow.endSeq = flow.nextNew;
    flow.currRtt = -1;
    flow.sampleCnt = 0;
}

uint32_t
PortMicroSim::CubicCount(Flow& flow)
{
    const uint32_t segCwnd = static_cast<uint32_t>(flow.cwnd);
    if (flow.epochStart < 0)
    {
        flow.epochStart = m_now;
        if (flow.lastMaxCwnd <= segCwnd)
        {
            flow.bicK = 0.0;
            flow.originPoint = segCwnd;
        }
        else
        {
            flow.bicK = CubeRoot((flow.lastMaxCwnd - segCwnd) / m_tcp.cubicC);
            flow.originPoint = flow.lastMaxCwnd;
        }
    }
    const double t = m_now + std::max(0.0, flow.delayMin) - flow.epochStart;
    const double offs = t < flow.bicK ? flow.bicK - t : t - flow.bicK;
    const double delta = std::min(1e9, m_tcp.cubicC * offs * offs * offs);
    const uint32_t d = static_cast<uint32_t>(delta);
    const uint32_t origin = static_cast<uint32_t>(flow.originPoint);
    const uint32_t target = t < flow.bicK ? (d < origin ? origin - d : 0) : origin + d;
    uint32_t cnt = target > segCwnd ? segCwnd / (target - segCwnd) : 100 * segCwnd;
    if (flow.lastMaxCwnd == 0 && cnt > m_tcp.cntClamp)
    {
        cnt = m_tcp.cntClamp;
    }
    return std::max<uint32_t>(cnt, 2);
}

void
PortMicroSim::IncreaseWindow(Flow& flow, uint32_t acked)
{
    if (m_tcp.congestion == MicroTcpSettings::Congestion::NewReno)
    {
        if (flow.cwnd < flow.ssthresh && acked >= 1)
        {
            flow.cwnd += 1.0;
            --acked;
        }
        if (flow.cwnd >= flow.ssthresh && acked > 0)
        {
            flow.cwnd += std::max(1.0 / m_tcp.mss, 1.0 / flow.cwnd);
        }
        flow.cwnd = std::min<double>(flow.cwnd, m_tcp.maxWindow);
        return;
    }
    if (flow.cwnd < flow.ssthresh)
    {
        if (m_tcp.hystart && flow.cumAck > flow.endSeq)
        {
            HystartReset(flow);
        }
        flow.cwnd += acked; // byte counting in slow start, as ns-3.37's TcpCubic
        acked = 0;
    }
    if (flow.cwnd >= flow.ssthresh && acked > 0)
    {
        flow.cwndCnt += acked;
        const uint32_t cnt = CubicCount(flow);
        if (flow.cwndCnt >= cnt)
        {
            flow.cwnd += 1.0;
            flow.cwndCnt -= cnt;
        }
    }
    flow.cwnd = std::min<double>(flow.cwnd, m_tcp.maxWindow);
}

void
PortMicroSim::PktsAcked(Flow& flow, double rtt)
{
    // TcpCubic::PktsAcked: the minimum delay (not right after a reduction) and HyStart.
    if (m_tcp.congestion != MicroTcpSettings::Congestion::Cubic ||
        (flow.epochStart >= 0 && m_now - flow.epochStart < m_tcp.cubicDeltaS))
    {
        return;
    }
    if (flow.delayMin < 0 || flow.delayMin > rtt)
    {
        flow.delayMin = rtt;
    }
    if (m_tcp.hystart && !flow.found && flow.cwnd <= flow.ssthresh &&
        flow.cwnd >= m_tcp.hystartLowWindow)
    {
        if (m_now - flow.lastAckTime <= m_tcp.hystartAckDeltaS)
        {
            flow.lastAckTime = m_now;
            if (m_now - flow.roundStart > flow.delayMin)
            {
                flow.found = true; // an ACK train as long as the minimum RTT
            }
        }
        if (flow.sampleCnt < m_tcp.hystartMinSamples)
        {
            if (flow.currRtt < 0 || flow.currRtt > rtt)
            {
                flow.currRtt = rtt;
            }
            ++flow.sampleCnt;
        }
        else if (flow.currRtt >
                 flow.delayMin +
                     std::clamp(flow.delayMin, m_tcp.hystartDelayMinS, m_tcp.hystartDelayMaxS))
        {
            flow.found = true; // the queue doubled the RTT
        }
        if (flow.found)
        {
            flow.ssthresh = flow.cwnd;
            Trace(static_cast<uint32_t>(&flow - m_flows.data()), MicroTraceRow::Event::SsExit, 0);
        }
    }
}

void
PortMicroSim::ArmRto(uint32_t f)
{
    Flow& flow = m_flows[f];
    ++flow.rtoGen;
    flow.rtoArmed = true;
    Schedule(m_now + flow.rto, EventType::Rto, f, 0, flow.rtoGen, 0.0);
}

void
PortMicroSim::OnRto(uint32_t f, uint32_t gen)
{
    Flow& flow = m_flows[f];
    if (!flow.rtoArmed || gen != flow.rtoGen || flow.cumAck >= flow.segments)
    {
        return;
    }
    ++flow.result.timeouts;
    // Every timeout sets the threshold again, a second one in a row from the window of one
    // segment the first left: ns-3.37's ReTxTimeout skips it only if the head was sent again,
    // and SetSentListLost has just cleared that flag.
    flow.ssthresh = SsThresh(flow);
    flow.ca = CaState::Loss;
    flow.recoveryPoint = flow.nextNew;
    flow.cwnd = 1.0;
    flow.dupAcks = 0;
    // Everything not SACKed is lost, retransmissions included (RFC 6675 section 5.1).
    for (uint32_t s = flow.cumAck; s < flow.nextNew; ++s)
    {
        if (flow.state[s] == InFlight)
        {
            flow.state[s] = Lost;
            ++flow.lostCount;
        }
    }
    flow.pipe = 0;
    flow.lostScan = flow.nextNew;
    // TcpTxBuffer::SetSentListLost clears every retransmitted flag; the RTT history is
    // emptied (no sample until a segment sent after now is acknowledged).
    std::fill(flow.retx.begin(), flow.retx.end(), 0);
    flow.historyStart = flow.nextNew;
    if (m_tcp.congestion == MicroTcpSettings::Congestion::Cubic)
    {
        flow.lastMaxCwnd = 0;
        flow.originPoint = 0;
        flow.bicK = 0;
        flow.delayMin = -1;
        flow.found = false;
        HystartReset(flow);
    }
    flow.rto = std::min(m_tcp.maxRtoS, flow.rto * 2.0);
    flow.rtoArmed = false;
    SendWhatTheWindowAllows(f);
    Trace(f, MicroTraceRow::Event::Timeout, flow.cumAck);
}

} // namespace fedran
