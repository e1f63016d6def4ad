#include "models/ns3/model/flow-background.h"

#include <ns3/double.h>
#include <ns3/simulator.h>

#include <algorithm>

namespace ns3
{

FlowBackground::FlowBackground(fedran::FluidNetwork& fluid, std::function<void()> changed)
    : m_fluid(fluid)
    , m_changed(std::move(changed))
{
}

void
FlowBackground::Add(const TransportLink& link,
                    fedran::FluidNetwork::LinkId uplink,
                    fedran::FluidNetwork::LinkId downlink)
{
    if (!link.background || link.background->load <= 0.0)
    {
        return;
    }
    const fedran::BackgroundConfig& bg = *link.background;
    // load counts whole frames on the wire, as the fluid links' capacities do.
    for (LinkDirection direction : {LinkDirection::Uplink, LinkDirection::Downlink})
    {
        const double rate =
            bg.PeakFraction() * static_cast<double>(link.link->NominalRateBpsOf(direction));
        if (direction == LinkDirection::Uplink ? bg.uplink : bg.downlink)
        {
            Source source;
            source.flow =
                m_fluid.AddFixedFlow(direction == LinkDirection::Uplink ? uplink : downlink,
                                     0.0,
                                     0.0);
            source.rateBps = rate;
            source.meanOnS = bg.meanOnS;
            source.meanOffS = bg.onOff ? bg.meanOffS : 0.0;
            source.uniform = CreateObject<UniformRandomVariable>();
            source.on = CreateObject<ExponentialRandomVariable>();
            source.off = CreateObject<ExponentialRandomVariable>();
            source.on->SetAttribute("Mean", DoubleValue(source.meanOnS));
            source.off->SetAttribute("Mean", DoubleValue(std::max(source.meanOffS, 1e-9)));
            m_sources.push_back(source);
        }
    }
}

int64_t
FlowBackground::AssignStreams(int64_t stream)
{
    int64_t used = 0;
    for (Source& source : m_sources)
    {
        source.uniform->SetStream(stream + used);
        source.on->SetStream(stream + used + 1);
        source.off->SetStream(stream + used + 2);
        used += 3;
    }
    return used;
}

void
FlowBackground::Start()
{
    for (size_t b = 0; b < m_sources.size(); ++b)
    {
        Source& source = m_sources[b];
        if (source.meanOffS <= 0.0)
        {
            Switch(b, true);
            continue;
        }
        // Stationary start, as BackgroundSource: on with the duty cycle's probability.
        const double onProbability = source.meanOnS / (source.meanOnS + source.meanOffS);
        Switch(b, source.uniform->GetValue() < onProbability);
    }
}

void
FlowBackground::Switch(size_t b, bool on)
{
    Source& source = m_sources[b];
    m_fluid.SetFixedRate(source.flow, on ? source.rateBps : 0.0, Simulator::Now().GetSeconds());
    m_changed();
    if (source.meanOffS > 0.0)
    {
        const double period = on ? source.on->GetValue() : source.off->GetValue();
        Simulator::Schedule(Seconds(period), &FlowBackground::Switch, this, b, !on);
    }
}

} // namespace ns3
