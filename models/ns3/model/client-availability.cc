#include "models/ns3/model/client-availability.h"

#include <ns3/double.h>
#include <ns3/simulator.h>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(ClientAvailability);

TypeId
ClientAvailability::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ClientAvailability")
            .SetParent<Object>()
            .SetGroupName("Fedran")
            .AddConstructor<ClientAvailability>()
            .AddAttribute("DropoutProbability",
                          "Probability that a client leaves a round it was selected for.",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&ClientAvailability::m_dropout),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("MeanOnTime",
                          "Mean length of an on period; zero disables the on/off process.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&ClientAvailability::m_meanOn),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("MeanOffTime",
                          "Mean length of an off period.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&ClientAvailability::m_meanOff),
                          MakeTimeChecker(Seconds(0)));
    return tid;
}

ClientAvailability::ClientAvailability()
    : m_dropout(0.0)
    , m_uniform(CreateObject<UniformRandomVariable>())
    , m_sojourn(CreateObject<ExponentialRandomVariable>())
    , m_on(true)
    , m_initialDrawn(false)
{
}

int64_t
ClientAvailability::AssignStreams(int64_t stream)
{
    m_uniform->SetStream(stream);
    m_sojourn->SetStream(stream + 1);
    return 2;
}

bool
ClientAvailability::InitiallyOn()
{
    if (!m_initialDrawn)
    {
        m_initialDrawn = true;
        if (HasOnOffProcess())
        {
            const double on = m_meanOn.GetSeconds();
            m_on = m_uniform->GetValue() < on / (on + m_meanOff.GetSeconds());
        }
    }
    return m_on;
}

void
ClientAvailability::Start(Callback<void> turnedOff, Callback<void> turnedOn)
{
    m_turnedOff = turnedOff;
    m_turnedOn = turnedOn;
    if (!HasOnOffProcess())
    {
        return;
    }
    InitiallyOn();
    // Exponential periods are memoryless: the residual of the period the process starts
    // in has the same distribution as a whole one.
    const Time mean = m_on ? m_meanOn : m_meanOff;
    m_switchEvent = Simulator::Schedule(Seconds(m_sojourn->GetValue(mean.GetSeconds(), 0.0)),
                                        &ClientAvailability::Switch,
                                        this);
}

void
ClientAvailability::Stop()
{
    m_switchEvent.Cancel();
}

void
ClientAvailability::Switch()
{
    m_on = !m_on;
    const Time mean = m_on ? m_meanOn : m_meanOff;
    m_switchEvent = Simulator::Schedule(Seconds(m_sojourn->GetValue(mean.GetSeconds(), 0.0)),
                                        &ClientAvailability::Switch,
                                        this);
    if (m_on)
    {
        m_turnedOn();
    }
    else
    {
        m_turnedOff();
    }
}

double
ClientAvailability::DrawDropout()
{
    if (m_dropout <= 0.0)
    {
        return -1.0;
    }
    // Both numbers are drawn every time, so that whether a client drops in one round does
    // not shift the draws of its later rounds.
    const bool drops = m_uniform->GetValue() < m_dropout;
    const double when = m_uniform->GetValue();
    return drops ? when : -1.0;
}

void
ClientAvailability::DoDispose()
{
    m_switchEvent.Cancel();
    m_turnedOff = Callback<void>();
    m_turnedOn = Callback<void>();
    Object::DoDispose();
}

} // namespace ns3
