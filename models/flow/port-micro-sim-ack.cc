// The port micro-simulation's sender side on an acknowledgement, as ns-3.37's TcpSocketBase
// (ReceivedAck, ProcessAck, DupAck, EnterRecovery, DoRetransmit), TcpTxBuffer (the SACK
// scoreboard, lost marking, the pipe) and TcpPrrRecovery. See port-micro-sim.h.

#include "models/flow/port-micro-sim.h"
#include "models/flow/prr-send-count.h"

#include <algorithm>
#include <cmath>

namespace fedran
{

void
PortMicroSim::MarkLost(Flow& flow)
{
    // RFC 6675 IsLost: a segment with reTxThreshold SACKed segments above it. The highest
    // SACKed segments are kept, so the threshold is the reTxThreshold-th highest of them
    // (TcpTxBuffer::UpdateLostCount). A segment sent again stays in flight and is not sent a
    // third time (NextSeg skips m_retrans; only the timeout finds it lost twice); one sent
    // again while in flight now counts once in the pipe.
    const uint32_t k = std::min<uint32_t>(3, std::max<uint32_t>(1, m_tcp.reTxThreshold));
    if (flow.top3[k - 1] == 0)
    {
        return;
    }
    const uint32_t below = flow.top3[k - 1] - 1;
    for (uint32_t s = std::max(flow.lostScan, flow.cumAck); s < below; ++s)
    {
        if (flow.state[s] == InFlight && flow.retx[s] == 0)
        {
            flow.state[s] = Lost;
            --flow.pipe;
            ++flow.lostCount;
        }
        else if (flow.state[s] == InFlight && flow.retx[s] == 2)
        {
            --flow.pipe;
            flow.retx[s] = 1;
        }
    }
    flow.lostScan = std::max(flow.lostScan, below);
}

void
PortMicroSim::LeavePipe(Flow& flow, uint32_t seg)
{
    // An in-flight segment acknowledged, SACKed or marked lost.
    flow.pipe -= flow.retx[seg] == 2 ? 2 : 1;
    if (flow.retx[seg] == 2)
    {
        flow.retx[seg] = 1;
    }
}

void
PortMicroSim::EnterRecovery(uint32_t f)
{
    // TcpSocketBase::EnterRecovery (ns-3.37): the head is lost if not marked yet, the
    // recovery point is HighData, ssthresh from the congestion control, then PRR's
    // EnterRecovery (prrOut = prrDelivered = 0, RecoverFS = the unacknowledged data); the
    // fast retransmit (DoRetransmit) follows PRR's first DoRecovery (in OnAck).
    Flow& flow = m_flows[f];
    flow.ca = CaState::Recovery;
    flow.recoveryPoint = flow.nextNew;
    ++flow.result.fastRecoveries;
    if (flow.state[flow.cumAck] == InFlight)
    {
        LeavePipe(flow, flow.cumAck);
        flow.retx[flow.cumAck] = 0; // MarkHeadAsLost clears the retransmitted flag
        flow.state[flow.cumAck] = Lost;
        ++flow.lostCount;
    }
    flow.ssthresh = SsThresh(flow);
    flow.cwnd = flow.ssthresh;
    flow.prrDelivered = 0;
    flow.prrOut = 0;
    flow.recoverFs = flow.nextNew - flow.cumAck;
}

void
PortMicroSim::PrrUpdate(Flow& flow, uint32_t delivered, bool retransAcked)
{
    // TcpPrrRecovery::DoRecovery (ns-3.37, ReductionBound SSRB): while the pipe is above
    // ssthresh send ssthresh/RecoverFS of what is delivered; below it, what this ACK delivered
    // (one segment more, and at least what PRR is behind, only when the ACK covers
    // retransmitted data: m_isRetransDataAcked), never past ssthresh; at least one segment
    // before anything was sent in recovery (the fast retransmit). prr-send-count.h has
    // ns-3's byte and uint32_t arithmetic.
    flow.prrDelivered += delivered;
    PrrInput in;
    in.prrDelivered = flow.prrDelivered;
    in.prrOut = flow.prrOut;
    in.recoverFs = flow.recoverFs;
    in.ssthresh = flow.ssthresh;
    in.pipe = flow.pipe;
    in.delivered = delivered;
    in.retransAcked = retransAcked;
    in.mss = m_tcp.mss;
    flow.cwnd = in.pipe + PrrSendCount(in);
}

void
PortMicroSim::DoRetransmit(uint32_t f)
{
    // TcpSocketBase::DoRetransmit, whatever the window: TcpTxBuffer::NextSeg's first segment
    // marked lost and not sent again (rule 1), else new data (rule 2: a partial ACK with no
    // hole known lost sends the next new segment), else the head again.
    Flow& flow = m_flows[f];
    for (uint32_t s = flow.cumAck; s < flow.nextNew; ++s)
    {
        if (flow.state[s] == Lost)
        {
            Transmit(f, s);
            return;
        }
    }
    if (flow.nextNew < flow.segments && flow.nextNew - flow.cumAck < m_tcp.maxWindow)
    {
        const uint32_t seg = flow.nextNew++;
        flow.sentAt[seg] = m_now;
        Transmit(f, seg);
        return;
    }
    Transmit(f, flow.cumAck);
}

uint32_t
PortMicroSim::TakeSack(Flow& flow, uint32_t cum, uint32_t first, uint32_t end)
{
    uint32_t taken = 0;
    for (uint32_t s = std::max(first, cum); s < std::min(end, flow.segments); ++s)
    {
        if (flow.state[s] != InFlight && flow.state[s] != Lost)
        {
            continue;
        }
        ++taken;
        if (flow.state[s] == InFlight)
        {
            // TcpTxBuffer::BytesInFlight = sent - SACKed - lost + retransmitted: a segment
            // sent again keeps counting once after its SACK (m_retrans stays set until it is
            // cumulatively acknowledged or a timeout clears the flags).
            if (flow.retx[s] == 0)
            {
                --flow.pipe;
            }
            else if (flow.retx[s] == 2)
            {
                --flow.pipe;
                flow.retx[s] = 1;
            }
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
    return taken;
}

void
PortMicroSim::OnAck(uint32_t f, uint32_t cum, const SackBlocks& sack, double stamp)
{
    // TcpSocketBase::ReceivedAck and ProcessAck (ns-3.37) for one ACK.
    Flow& flow = m_flows[f];
    if (flow.cumAck >= flow.segments)
    {
        return; // everything acknowledged: the sender is done
    }
    // Segments this ACK reports delivered for the first time (PRR), first by its SACK blocks:
    // each names all it covers, so what an ACK lost on the way would have said arrives with
    // the next one that covers it (TcpTxBuffer::Update).
    uint32_t delivered = 0;
    for (uint8_t b = 0; b < sack.count; ++b)
    {
        delivered += TakeSack(flow, cum, sack.first[b], sack.end[b]);
    }
    const bool sackNew = delivered > 0; // ns-3's isDupack with SACK: the scoreboard changed
    if (m_tcp.sack)
    {
        MarkLost(flow);
    }
    const uint32_t oldCum = flow.cumAck;
    const bool partial = cum > oldCum && cum < flow.recoveryPoint && flow.ca == CaState::Recovery;
    bool retransAcked = false; // m_isRetransDataAcked: a partial ACK covers data sent again
    for (uint32_t s = oldCum; s < cum; ++s)
    {
        delivered += flow.state[s] != Sacked ? 1 : 0;
        retransAcked = retransAcked || (partial && flow.retx[s] != 0 && flow.state[s] != Sacked);
        if (flow.state[s] == InFlight)
        {
            LeavePipe(flow, s);
        }
        else if (flow.state[s] == Lost)
        {
            --flow.lostCount;
        }
        else if (flow.state[s] == Sacked && flow.retx[s] != 0)
        {
            --flow.pipe; // a SACKed retransmission leaves the pipe only now
        }
        flow.state[s] = Acked;
    }
    flow.cumAck = std::max(oldCum, cum);
    if (cum > oldCum)
    {
        RttSample(flow, oldCum, cum, stamp);
    }
    // ProcessAck. A duplicate ACK is, with SACK, one that SACKs new data, whether or not it
    // also moves the cumulative ACK (an out-of-order arrival ACKs the delayed segment too).
    const bool isDupack = m_tcp.sack ? sackNew : (cum == oldCum && oldCum < flow.nextNew);
    if (isDupack && flow.ca != CaState::Loss)
    {
        // DupAck: counted outside recovery (Open -> Disorder); in recovery PRR's DoRecovery;
        // in Disorder the third one (or the second unacknowledged segment found lost)
        // enters recovery, not before the previous recovery point is acknowledged.
        if (flow.ca == CaState::Recovery)
        {
            PrrUpdate(flow, delivered, retransAcked);
        }
        else
        {
            ++flow.dupAcks;
            const uint32_t k = std::min<uint32_t>(3, std::max<uint32_t>(1, m_tcp.reTxThreshold));
            const uint32_t next = flow.cumAck + 1;
            const bool nextLost = m_tcp.sack && flow.top3[k - 1] > 0 &&
                                  next + 1 < flow.top3[k - 1] && next < flow.segments &&
                                  flow.state[next] != Sacked;
            if ((flow.dupAcks == m_tcp.reTxThreshold && flow.cumAck >= flow.recoveryPoint) ||
                nextLost)
            {
                EnterRecovery(f);
                PrrUpdate(flow, delivered, retransAcked);
                DoRetransmit(f); // the fast retransmit
            }
        }
    }
    if (cum <= oldCum)
    {
        if (oldCum < flow.nextNew)
        {
            PktsAcked(flow, flow.srtt); // ProcessAck calls it for a duplicate ACK too
        }
    }
    else
    {
        if (!isDupack)
        {
            flow.dupAcks = 0;
        }
        if (flow.cumAck >= flow.segments)
        {
            PktsAcked(flow, flow.srtt);
            flow.rtoArmed = false;
            ++flow.rtoGen;
            return; // everything acknowledged: the sender is done
        }
        const uint32_t acked = cum - oldCum;
        if (flow.ca == CaState::Recovery && flow.cumAck < flow.recoveryPoint)
        {
            // A partial ACK, also right after DupAck entered recovery on this ACK.
            if (!m_tcp.sack && flow.state[flow.cumAck] == InFlight)
            {
                // MarkHeadAsLost: without SACK a partial ACK names the next hole.
                LeavePipe(flow, flow.cumAck);
                flow.state[flow.cumAck] = Lost;
                ++flow.lostCount;
            }
            PrrUpdate(flow, delivered, retransAcked);
            // Unless the new head was sent again already, send a lost segment (or the head)
            // now, whatever the window.
            if (flow.retx[flow.cumAck] == 0 || flow.state[flow.cumAck] == Sacked)
            {
                DoRetransmit(f);
            }
            PktsAcked(flow, flow.srtt);
            if (flow.firstPartialAck)
            {
                flow.firstPartialAck = false; // NewAck(ack, m_isFirstPartialAck)
                ResetRto(flow);
                ArmRto(f);
            }
        }
        else if (flow.ca == CaState::Loss && flow.cumAck < flow.recoveryPoint)
        {
            PktsAcked(flow, flow.srtt);
            IncreaseWindow(flow, acked);
            ResetRto(flow); // NewAck: the timer restarts at the estimator's RTO (no backoff)
            ArmRto(f);
        }
        else
        {
            uint32_t growth = acked;
            bool exitedRecovery = false;
            PktsAcked(flow, flow.srtt);
            if (flow.ca == CaState::Open && flow.dupAcks > 0 && !isDupack)
            {
                flow.dupAcks = 0; // Disorder -> Open
            }
            else if (flow.ca == CaState::Recovery)
            {
                flow.ca = CaState::Open;
                flow.firstPartialAck = true;
                flow.dupAcks = 0;
                exitedRecovery = true;
            }
            else if (flow.ca == CaState::Loss)
            {
                // Leaving CA_LOSS, only the segments above the recovery point count.
                growth = flow.cumAck - std::max(oldCum, flow.recoveryPoint);
                flow.ca = CaState::Open;
                flow.firstPartialAck = true;
            }
            if (exitedRecovery)
            {
                ResetRto(flow);
                ArmRto(f);
                flow.cwnd = flow.ssthresh;
            }
            if (flow.ca == CaState::Open && flow.dupAcks == 0)
            {
                // Open (not Disorder): the window grows and the timer restarts.
                IncreaseWindow(flow, growth);
                ResetRto(flow);
                ArmRto(f);
            }
        }
    }
    SendWhatTheWindowAllows(f);
    Trace(f, MicroTraceRow::Event::Ack, flow.cumAck);
}

} // namespace fedran
