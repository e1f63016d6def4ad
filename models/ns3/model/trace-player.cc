#include "models/ns3/model/trace-player.h"

#include <ns3/simulator.h>

#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TracePlayer);

TypeId
TracePlayer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TracePlayer")
                            .SetParent<Object>()
                            .SetGroupName("Fedran")
                            .AddConstructor<TracePlayer>();
    return tid;
}

void
TracePlayer::Start(const LinkTrace& trace,
                   Ptr<VariableRateLink> link,
                   double defaultDelayS,
                   double defaultLoss)
{
    m_both = true;
    Begin(trace, link, defaultDelayS, defaultLoss);
}

void
TracePlayer::Start(const LinkTrace& trace,
                   Ptr<VariableRateLink> link,
                   double defaultDelayS,
                   double defaultLoss,
                   VariableRateLink::Way way)
{
    m_both = false;
    m_way = way;
    Begin(trace, link, defaultDelayS, defaultLoss);
}

void
TracePlayer::Begin(const LinkTrace& trace,
                   Ptr<VariableRateLink> link,
                   double defaultDelayS,
                   double defaultLoss)
{
    m_trace = trace;
    m_link = link;
    m_defaultDelayS = defaultDelayS;
    m_defaultLoss = defaultLoss;
    m_loopStart = Simulator::Now();
    Apply(0);
}

void
TracePlayer::Apply(size_t index)
{
    const TraceStep& step = m_trace.steps[index];
    const uint64_t rate = static_cast<uint64_t>(std::llround(step.rateBps));
    const Time delay = Seconds(step.delayS < 0 ? m_defaultDelayS : step.delayS);
    const double loss = step.loss < 0 ? m_defaultLoss : step.loss;
    if (m_both)
    {
        m_link->SetRate(rate);
        m_link->SetDelay(delay);
        m_link->SetPacketLoss(loss);
    }
    else
    {
        m_link->SetRate(m_way, rate);
        m_link->SetDelay(m_way, delay);
        m_link->SetPacketLoss(m_way, loss);
    }
    size_t next = index + 1;
    if (next == m_trace.steps.size())
    {
        next = 0;
        m_loopStart += Seconds(m_trace.periodS);
    }
    m_next =
        Simulator::Schedule(m_loopStart + Seconds(m_trace.steps[next].startS) - Simulator::Now(),
                            &TracePlayer::Apply,
                            this,
                            next);
}

void
TracePlayer::DoDispose()
{
    m_next.Cancel();
    m_link = nullptr;
    Object::DoDispose();
}

} // namespace ns3
