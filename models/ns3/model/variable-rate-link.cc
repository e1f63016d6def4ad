#include "models/ns3/model/variable-rate-link.h"

#include <ns3/data-rate.h>
#include <ns3/point-to-point-channel.h>
#include <ns3/point-to-point-net-device.h>
#include <ns3/pointer.h>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(VariableRateLink);

TypeId
VariableRateLink::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::fedran::VariableRateLink")
            .SetParent<Object>()
            .SetGroupName("Fedran")
            .AddConstructor<VariableRateLink>()
            .AddTraceSource("Capacity",
                            "Capacity of the link in bits/s (0 while it is out)",
                            MakeTraceSourceAccessor(&VariableRateLink::m_capacity),
                            "ns3::TracedValueCallback::Uint64");
    return tid;
}

void
VariableRateLink::Attach(const NetDeviceContainer& devices)
{
    m_devices = devices;
    // Aggregated to the link's device, so that InstalledLink::ConnectCapacityChanged finds it.
    m_devices.Get(0)->AggregateObject(this);
    for (uint32_t i = 0; i < 2; ++i)
    {
        m_errors[i] = CreateObject<RateErrorModel>();
        m_devices.Get(i)->SetAttribute("ReceiveErrorModel", PointerValue(m_errors[i]));
    }
    DataRateValue rate;
    m_devices.Get(0)->GetAttribute("DataRate", rate);
    m_capacity = rate.Get().GetBitRate();
    ApplyErrors();
}

void
VariableRateLink::SetRate(uint64_t bps)
{
    if (bps == m_capacity)
    {
        return;
    }
    const bool wasOut = m_capacity == 0;
    m_capacity = bps;
    if (bps > 0)
    {
        for (uint32_t i = 0; i < 2; ++i)
        {
            DynamicCast<PointToPointNetDevice>(m_devices.Get(i))->SetDataRate(DataRate(bps));
        }
    }
    if (wasOut != (bps == 0))
    {
        ApplyErrors();
    }
}

void
VariableRateLink::SetBitErrorRate(double ber)
{
    m_unit = RateErrorModel::ERROR_UNIT_BIT;
    m_errorRate = ber;
    ApplyErrors();
}

void
VariableRateLink::SetPacketLoss(double loss)
{
    m_unit = RateErrorModel::ERROR_UNIT_PACKET;
    m_errorRate = loss;
    ApplyErrors();
}

void
VariableRateLink::SetDelay(Time delay)
{
    // The channel reads its delay at every transmission.
    m_devices.Get(0)->GetChannel()->SetAttribute("Delay", TimeValue(delay));
}

void
VariableRateLink::ApplyErrors()
{
    const bool out = m_capacity == 0;
    for (auto& em : m_errors)
    {
        em->SetUnit(out ? RateErrorModel::ERROR_UNIT_PACKET : m_unit);
        em->SetRate(out ? 1.0 : m_errorRate);
    }
}

int64_t
VariableRateLink::AssignStreams(int64_t stream)
{
    return m_errors[0]->AssignStreams(stream) + m_errors[1]->AssignStreams(stream + 1);
}

void
VariableRateLink::DoDispose()
{
    m_errors[0] = nullptr;
    m_errors[1] = nullptr;
    m_devices = NetDeviceContainer();
    Object::DoDispose();
}

} // namespace ns3
