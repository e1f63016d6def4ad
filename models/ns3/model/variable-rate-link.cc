#include "models/ns3/model/variable-rate-link.h"

#include "compression/portable-math.h"
#include "models/ns3/model/asymmetric-link.h"

#include <ns3/abort.h>
#include <ns3/data-rate.h>
#include <ns3/point-to-point-channel.h>
#include <ns3/point-to-point-net-device.h>
#include <ns3/pointer.h>

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(VariableRateLink);

TypeId
VariableRateLink::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::VariableRateLink")
            .SetParent<Object>()
            .SetGroupName("Fedran")
            .AddConstructor<VariableRateLink>()
            .AddTraceSource("Capacity",
                            "Capacity of the link in bits/s (0 while it is out)",
                            MakeTraceSourceAccessor(&VariableRateLink::m_capacity),
                            "ns3::TracedValueCallback::Uint64")
            .AddTraceSource("CapacityDown",
                            "Capacity of the downlink in bits/s (0 while it is out)",
                            MakeTraceSourceAccessor(&VariableRateLink::m_capacityDown),
                            "ns3::TracedValueCallback::Uint64");
    return tid;
}

void
VariableRateLink::Attach(const NetDeviceContainer& devices)
{
    m_devices = devices;
    // Aggregated to the link's device, so that InstalledLink::ConnectCapacityChanged finds it.
    m_devices.Get(0)->AggregateObject(this);
    // Created in the order of the receiving devices (0 then 1), so that AssignStreams numbers
    // them as before directions existed: device 0 receives the downlink.
    m_errors[DOWN] = CreateObject<RateErrorModel>();
    m_devices.Get(0)->SetAttribute("ReceiveErrorModel", PointerValue(m_errors[DOWN]));
    m_errors[UP] = CreateObject<RateErrorModel>();
    m_devices.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(m_errors[UP]));
    DataRateValue rate;
    m_devices.Get(0)->GetAttribute("DataRate", rate);
    m_capacity = rate.Get().GetBitRate();
    m_devices.Get(1)->GetAttribute("DataRate", rate);
    m_capacityDown = rate.Get().GetBitRate();
    ApplyErrors(UP);
    ApplyErrors(DOWN);
    Ptr<Channel> channel = m_devices.Get(0)->GetChannel();
    TimeValue delay;
    channel->GetAttribute("Delay", delay);
    m_delay[UP] = m_delay[DOWN] = delay.Get();
    if (channel->GetAttributeFailSafe("DelayDown", delay))
    {
        m_delay[DOWN] = delay.Get();
    }
}

void
VariableRateLink::SetRate(uint64_t bps)
{
    SetRate(UP, bps);
    SetRate(DOWN, bps);
}

void
VariableRateLink::SetRate(Way way, uint64_t bps)
{
    const uint64_t now = GetCapacity(way);
    if (bps == now)
    {
        return;
    }
    if (way == UP)
    {
        m_capacity = bps;
    }
    else
    {
        m_capacityDown = bps;
    }
    if (bps > 0)
    {
        DynamicCast<PointToPointNetDevice>(m_devices.Get(way))->SetDataRate(DataRate(bps));
    }
    if ((now == 0) != (bps == 0))
    {
        ApplyErrors(way);
    }
}

void
VariableRateLink::SetBitErrorRate(double ber)
{
    for (Way way : {UP, DOWN})
    {
        m_unit[way] = RateErrorModel::ERROR_UNIT_BIT;
        m_errorRate[way] = ber;
        ApplyErrors(way);
    }
}

void
VariableRateLink::SetPacketLoss(double loss)
{
    SetPacketLoss(UP, loss);
    SetPacketLoss(DOWN, loss);
}

void
VariableRateLink::SetPacketLoss(Way way, double loss)
{
    m_unit[way] = RateErrorModel::ERROR_UNIT_PACKET;
    m_errorRate[way] = loss;
    ApplyErrors(way);
}

void
VariableRateLink::SetDelay(Time delay)
{
    // The channel reads its delay at every transmission.
    Ptr<Channel> channel = m_devices.Get(0)->GetChannel();
    channel->SetAttribute("Delay", TimeValue(delay));
    m_delay[UP] = m_delay[DOWN] = delay;
    if (DynamicCast<AsymmetricPointToPointChannel>(channel))
    {
        channel->SetAttribute("DelayDown", TimeValue(delay));
    }
}

void
VariableRateLink::SetDelay(Way way, Time delay)
{
    Ptr<Channel> channel = m_devices.Get(0)->GetChannel();
    if (!DynamicCast<AsymmetricPointToPointChannel>(channel))
    {
        NS_ABORT_MSG_IF(way == DOWN, "a downlink delay of its own needs an asymmetric channel");
        SetDelay(delay);
        return;
    }
    channel->SetAttribute(way == UP ? "Delay" : "DelayDown", TimeValue(delay));
    m_delay[way] = delay;
}

double
VariableRateLink::LossOf(Way way, uint32_t wireBytes) const
{
    // As ApplyErrors sets the receiver's error model.
    const bool out = GetCapacity(way) == 0;
    return ErrorModelLoss(out ? RateErrorModel::ERROR_UNIT_PACKET : m_unit[way],
                          out ? 1.0 : m_errorRate[way],
                          wireBytes);
}

double
ErrorModelLoss(RateErrorModel::ErrorUnit unit, double rate, uint32_t wireBytes)
{
    rate = std::clamp(rate, 0.0, 1.0);
    switch (unit)
    {
        case RateErrorModel::ERROR_UNIT_BIT:
            return 1.0 - fedran::pmath::Pow(1.0 - rate, wireBytes * 8.0);
        case RateErrorModel::ERROR_UNIT_BYTE:
            return 1.0 - fedran::pmath::Pow(1.0 - rate, wireBytes);
        default:
            return rate;
    }
}

void
VariableRateLink::ApplyErrors(Way way)
{
    const bool out = GetCapacity(way) == 0;
    m_errors[way]->SetUnit(out ? RateErrorModel::ERROR_UNIT_PACKET : m_unit[way]);
    m_errors[way]->SetRate(out ? 1.0 : m_errorRate[way]);
}

int64_t
VariableRateLink::AssignStreams(int64_t stream)
{
    return m_errors[DOWN]->AssignStreams(stream) + m_errors[UP]->AssignStreams(stream + 1);
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
