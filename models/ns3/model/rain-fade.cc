#include "models/ns3/model/rain-fade.h"

#include "compression/portable-math.h"

#include <ns3/double.h>

#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RainFade);

TypeId
RainFade::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RainFade")
            .SetParent<Object>()
            .SetGroupName("Fedran")
            .AddConstructor<RainFade>()
            .AddAttribute("MedianDb",
                          "Median attenuation during rain, dB",
                          DoubleValue(5.0),
                          MakeDoubleAccessor(&RainFade::m_medianDb),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("Sigma",
                          "Standard deviation of the natural log of the attenuation",
                          DoubleValue(0.7),
                          MakeDoubleAccessor(&RainFade::m_sigma),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("CorrelationTime",
                          "Correlation time 1/beta of the log-attenuation",
                          TimeValue(Seconds(60)),
                          MakeTimeAccessor(&RainFade::m_correlation),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("MeanRain",
                          "Mean duration of a rain event",
                          TimeValue(Seconds(600)),
                          MakeTimeAccessor(&RainFade::m_meanRain),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("MeanDry",
                          "Mean time between rain events; 0: it always rains",
                          TimeValue(Seconds(1800)),
                          MakeTimeAccessor(&RainFade::m_meanDry),
                          MakeTimeChecker(Seconds(0)));
    return tid;
}

void
RainFade::StartSpell(bool raining)
{
    m_raining = raining;
    const double mean = (raining ? m_meanRain : m_meanDry).GetSeconds();
    m_spellLeftS += m_spell->GetValue(mean, 0.0);
    if (raining)
    {
        m_x = m_normal->GetValue(0.0, 1.0);
    }
}

double
RainFade::Advance(Time dt)
{
    const bool alwaysRaining = m_meanDry.IsZero();
    if (!m_started)
    {
        m_started = true;
        // Start in the chain's stationary distribution.
        const double rain = m_meanRain.GetSeconds();
        const double pRain = alwaysRaining ? 1.0 : rain / (rain + m_meanDry.GetSeconds());
        StartSpell(m_uniform->GetValue() < pRain);
    }
    else if (!alwaysRaining)
    {
        m_spellLeftS -= dt.GetSeconds();
        while (m_spellLeftS <= 0.0)
        {
            StartSpell(!m_raining);
        }
    }
    if (!m_raining)
    {
        return 0.0;
    }
    const double rho = fedran::pmath::Exp(-dt.GetSeconds() / m_correlation.GetSeconds());
    if (rho < 1.0)
    {
        m_x = rho * m_x + std::sqrt(1.0 - rho * rho) * m_normal->GetValue(0.0, 1.0);
    }
    return m_medianDb * fedran::pmath::Exp(m_sigma * m_x);
}

int64_t
RainFade::AssignStreams(int64_t stream)
{
    m_normal->SetStream(stream);
    m_spell->SetStream(stream + 1);
    m_uniform->SetStream(stream + 2);
    return 3;
}

void
RainFade::DoDispose()
{
    m_normal = nullptr;
    m_spell = nullptr;
    m_uniform = nullptr;
    Object::DoDispose();
}

} // namespace ns3
