#include "models/ns3/model/backhaul-link.h"

#include "models/ns3/model/lte-link.h"
#include "models/ns3/model/microwave-link.h"
#include "models/ns3/model/point-to-point-link.h"
#include "models/ns3/model/trace-link.h"
#include "models/ns3/model/variable-rate-link.h"

#include <ns3/ipv4-interface.h>
#include <ns3/ipv4-l3-protocol.h>
#include <ns3/point-to-point-net-device.h>
#include <ns3/pointer.h>
#include <ns3/queue-disc.h>
#include <ns3/queue.h>
#include <ns3/traffic-control-layer.h>

#include <map>

namespace ns3
{

namespace
{

template<typename Model>
std::unique_ptr<BackhaulLink>
Make()
{
    return std::make_unique<Model>();
}

} // namespace

std::unique_ptr<BackhaulLink>
MakeBackhaulLink(const std::string& type)
{
    // One line per link model: its "backhaul.type" and its class.
    static const std::map<std::string, std::unique_ptr<BackhaulLink> (*)()> kModels = {
        {"p2p", &Make<PointToPointLink>},
        {"microwave", &Make<MicrowaveLink>},
        {"trace", &Make<TraceLink>},
        {"lte", &Make<LteLink>},
    };
    auto it = kModels.find(type);
    return it == kModels.end() ? nullptr : it->second();
}

void
CheckBackhaulLink(const fedran::LinkConfig& config)
{
    std::unique_ptr<BackhaulLink> model = MakeBackhaulLink(config.type);
    if (!model)
    {
        throw fedran::ScenarioError(config.path + ".type: unknown backhaul type \"" + config.type +
                                    "\"");
    }
    model->Check(config);
}

InstalledLink::InstalledLink(NetDeviceContainer devices)
    : m_devices(std::move(devices))
{
}

bool
InstalledLink::ConnectCapacityChanged(Callback<void>) const
{
    return false;
}

namespace
{

void
CapacityTraced(Callback<void> onChange, uint64_t, uint64_t)
{
    onChange();
}

} // namespace

bool
PointToPointInstalledLink::ConnectCapacityChanged(Callback<void> onChange) const
{
    Ptr<VariableRateLink> variable = GetDevices().Get(0)->GetObject<VariableRateLink>();
    if (!variable)
    {
        return false;
    }
    return variable->TraceConnectWithoutContext("Capacity",
                                                MakeBoundCallback(&CapacityTraced, onChange)) &&
           variable->TraceConnectWithoutContext("CapacityDown",
                                                MakeBoundCallback(&CapacityTraced, onChange));
}

void
InstalledLink::BeginOutage() const
{
    if (m_outages++ == 0)
    {
        SetInterfacesUp(false);
        for (const Callback<void>& listener : m_outageListeners)
        {
            listener();
        }
    }
}

void
InstalledLink::EndOutage() const
{
    if (m_outages > 0 && --m_outages == 0)
    {
        SetInterfacesUp(true);
        for (const Callback<void>& listener : m_outageListeners)
        {
            listener();
        }
    }
}

void
InstalledLink::SetInterfacesUp(bool up) const
{
    // Ipv4Interface itself, not Ipv4::SetDown: that would tell the routing protocol, and
    // static routing forgets the routes through a downed interface for good.
    for (uint32_t d = 0; d < m_devices.GetN(); ++d)
    {
        Ptr<NetDevice> device = m_devices.Get(d);
        Ptr<Ipv4L3Protocol> ipv4 = device->GetNode()->GetObject<Ipv4L3Protocol>();
        const int32_t index = ipv4 ? ipv4->GetInterfaceForDevice(device) : -1;
        if (index < 0)
        {
            continue;
        }
        Ptr<Ipv4Interface> interface = ipv4->GetInterface(static_cast<uint32_t>(index));
        if (up)
        {
            interface->SetUp();
        }
        else
        {
            interface->SetDown();
        }
    }
}

Ptr<NetDevice>
InstalledLink::GetSender(LinkDirection direction) const
{
    return m_devices.Get(direction == LinkDirection::Uplink ? 0 : 1);
}

Ptr<NetDevice>
InstalledLink::GetReceiver(LinkDirection direction) const
{
    return m_devices.Get(direction == LinkDirection::Uplink ? 1 : 0);
}

PointToPointInstalledLink::PointToPointInstalledLink(NetDeviceContainer devices,
                                                     std::function<uint64_t()> capacityBps,
                                                     std::function<double()> snrDb,
                                                     uint64_t nominalRateBps)
    : InstalledLink(std::move(devices))
    , m_capacityBps(std::move(capacityBps))
    , m_snrDb(std::move(snrDb))
    , m_nominalRateBps(nominalRateBps)
{
}

void
PointToPointInstalledLink::ConnectTransmitted(LinkDirection direction, PacketSink sink) const
{
    GetSender(direction)->TraceConnectWithoutContext("PhyTxEnd", sink);
}

void
PointToPointInstalledLink::ConnectDelivered(LinkDirection direction, PacketSink sink) const
{
    GetReceiver(direction)->TraceConnectWithoutContext("PhyRxEnd", sink);
}

bool
PointToPointInstalledLink::ConnectFrames(LinkDirection direction, PacketSink sink) const
{
    return GetSender(direction)->TraceConnectWithoutContext("PhyTxBegin", sink);
}

std::optional<uint64_t>
PointToPointInstalledLink::QueuedBytes(LinkDirection direction) const
{
    Ptr<NetDevice> device = GetSender(direction);
    uint64_t bytes = DynamicCast<PointToPointNetDevice>(device)->GetQueue()->GetNBytes();
    Ptr<TrafficControlLayer> tc = device->GetNode()->GetObject<TrafficControlLayer>();
    Ptr<QueueDisc> qdisc = tc ? tc->GetRootQueueDiscOnDevice(device) : nullptr;
    return bytes + (qdisc ? qdisc->GetNBytes() : 0);
}

void
PointToPointInstalledLink::SetDownlink(std::function<uint64_t()> capacityBps,
                                       uint64_t nominalRateBps)
{
    m_downCapacityBps = std::move(capacityBps);
    m_downNominalRateBps = nominalRateBps;
}

uint64_t
PointToPointInstalledLink::CapacityBpsOf(LinkDirection direction) const
{
    return direction == LinkDirection::Downlink && m_downCapacityBps ? m_downCapacityBps()
                                                                     : m_capacityBps();
}

uint64_t
PointToPointInstalledLink::NominalRateBpsOf(LinkDirection direction) const
{
    return direction == LinkDirection::Downlink && m_downCapacityBps ? m_downNominalRateBps
                                                                     : m_nominalRateBps;
}

uint64_t
PointToPointInstalledLink::CapacityBps() const
{
    return m_capacityBps();
}

double
PointToPointInstalledLink::SnrDb() const
{
    return m_snrDb();
}

uint64_t
PointToPointInstalledLink::NominalRateBps() const
{
    return m_nominalRateBps;
}

std::optional<double>
PointToPointInstalledLink::DelayS(LinkDirection direction) const
{
    if (Ptr<VariableRateLink> variable = GetDevices().Get(0)->GetObject<VariableRateLink>())
    {
        return variable->DelayS(direction == LinkDirection::Uplink ? VariableRateLink::UP
                                                                   : VariableRateLink::DOWN);
    }
    // An asymmetric channel has its own "DelayDown".
    Ptr<Channel> channel = GetDevices().Get(0)->GetChannel();
    TimeValue delay;
    if (direction == LinkDirection::Downlink && channel->GetAttributeFailSafe("DelayDown", delay))
    {
        return delay.Get().GetSeconds();
    }
    channel->GetAttribute("Delay", delay);
    return delay.Get().GetSeconds();
}

std::optional<double>
PointToPointInstalledLink::LossOf(LinkDirection direction, uint32_t wireBytes) const
{
    if (Ptr<VariableRateLink> variable = GetDevices().Get(0)->GetObject<VariableRateLink>())
    {
        return variable->LossOf(direction == LinkDirection::Uplink ? VariableRateLink::UP
                                                                   : VariableRateLink::DOWN,
                                wireBytes);
    }
    // p2p: the receiver's error model, if the scenario asked for loss.
    PointerValue value;
    GetReceiver(direction)->GetAttribute("ReceiveErrorModel", value);
    Ptr<RateErrorModel> errors = value.Get<RateErrorModel>();
    if (!errors || !errors->IsEnabled())
    {
        return 0.0;
    }
    return ErrorModelLoss(errors->GetUnit(), errors->GetRate(), wireBytes);
}

double
PointToPointInstalledLink::ReadyS() const
{
    return 0.0;
}

bool
PointToPointInstalledLink::RoutesClient() const
{
    return false;
}

} // namespace ns3
