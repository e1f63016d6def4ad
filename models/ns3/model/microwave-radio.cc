#include "models/ns3/model/microwave-radio.h"

#include "compression/portable-math.h"

#include <ns3/double.h>
#include <ns3/simulator.h>

#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MicrowaveRadio);

TypeId
MicrowaveRadio::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MicrowaveRadio")
                            .SetParent<Object>()
                            .SetGroupName("Fedran")
                            .AddConstructor<MicrowaveRadio>()
                            .AddTraceSource("Snr",
                                            "SNR of the hop now, dB",
                                            MakeTraceSourceAccessor(&MicrowaveRadio::m_snrDb),
                                            "ns3::TracedValueCallback::Double")
                            .AddTraceSource("Modulation",
                                            "Index of the modulation in use (-1: out)",
                                            MakeTraceSourceAccessor(&MicrowaveRadio::m_modulation),
                                            "ns3::TracedValueCallback::Int32");
    return tid;
}

void
MicrowaveRadio::Start(const MicrowaveParams& params, Ptr<VariableRateLink> link)
{
    m_params = params;
    m_table = params.modulations.empty() ? ModulationTable::Default()
                                         : ModulationTable(params.modulations);
    m_link = link;
    m_link->SetDelay(Seconds(params.delayS));
    m_modulation = -2; // forces the first SetFade to apply the rate
    if (params.fade == "rain")
    {
        m_rain->SetAttribute("MedianDb", DoubleValue(params.medianDb));
        m_rain->SetAttribute("Sigma", DoubleValue(params.sigma));
        m_rain->SetAttribute("CorrelationTime", TimeValue(Seconds(params.correlationS)));
        m_rain->SetAttribute("MeanRain", TimeValue(Seconds(params.meanRainS)));
        m_rain->SetAttribute("MeanDry", TimeValue(Seconds(params.meanDryS)));
        // The first draw happens at time 0, after AssignStreams has fixed the streams.
        m_event = Simulator::ScheduleNow(&MicrowaveRadio::RainStep, this);
        SetFade(0.0);
        return;
    }
    SetFade(0.0);
    if (params.fade == "script")
    {
        for (const auto& [time, db] : params.points)
        {
            Simulator::Schedule(Seconds(time), &MicrowaveRadio::SetFade, this, db);
        }
    }
}

void
MicrowaveRadio::RainStep()
{
    // The first call only draws the initial state; later ones advance by one step.
    SetFade(m_rain->Advance(Seconds(m_params.stepS)));
    m_event = Simulator::Schedule(Seconds(m_params.stepS), &MicrowaveRadio::RainStep, this);
}

uint64_t
MicrowaveRadio::RateOf(int index) const
{
    return static_cast<uint64_t>(
        std::llround(m_params.bandwidthHz * m_table.At(index).bits * m_params.efficiency));
}

uint64_t
MicrowaveRadio::GetClearSkyRate() const
{
    const int index = m_table.Select(m_params.clearSkySnrDb);
    return index < 0 ? 0 : RateOf(index);
}

void
MicrowaveRadio::SetFade(double db)
{
    m_snrDb = m_params.clearSkySnrDb - db;
    const int index = m_table.Select(m_snrDb);
    if (index != m_modulation)
    {
        m_modulation = index;
        m_link->SetRate(index < 0 ? 0 : RateOf(index));
    }
    if (index >= 0)
    {
        const double margin = m_snrDb - m_table.At(index).snrDb;
        m_link->SetBitErrorRate(m_params.berAtThreshold *
                                fedran::pmath::Pow(10.0, -margin / m_params.berDecadeDb));
    }
}

int64_t
MicrowaveRadio::AssignStreams(int64_t stream)
{
    return m_rain->AssignStreams(stream);
}

void
MicrowaveRadio::DoDispose()
{
    m_event.Cancel();
    m_link = nullptr;
    m_rain = nullptr;
    Object::DoDispose();
}

} // namespace ns3
