#include "models/ns3/model/point-to-point-link.h"

#include <ns3/data-rate.h>
#include <ns3/double.h>
#include <ns3/enum.h>
#include <ns3/nstime.h>
#include <ns3/point-to-point-helper.h>
#include <ns3/pointer.h>

#include <cmath>

namespace ns3
{

void
PointToPointLink::Check(const fedran::LinkConfig&) const
{
    // rate, delay and loss are fully checked by the schema.
}

std::unique_ptr<InstalledLink>
PointToPointLink::Install(Ptr<Node> client, Ptr<Node> router, const fedran::LinkConfig& config)
{
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(config.rateBps)));
    p2p.SetChannelAttribute("Delay", TimeValue(Seconds(config.delayS)));
    NetDeviceContainer devices = p2p.Install(client, router);
    if (config.loss > 0.0)
    {
        for (uint32_t i = 0; i < devices.GetN(); ++i)
        {
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
            em->SetRate(config.loss);
            devices.Get(i)->SetAttribute("ReceiveErrorModel", PointerValue(em));
            m_errorModels.push_back(em);
        }
    }
    const uint64_t rate = config.rateBps;
    return std::make_unique<PointToPointInstalledLink>(
        devices,
        [rate] { return rate; },
        [] { return std::nan(""); },
        rate);
}

int64_t
PointToPointLink::AssignStreams(int64_t stream)
{
    int64_t used = 0;
    for (auto& em : m_errorModels)
    {
        used += em->AssignStreams(stream + used);
    }
    return used;
}

} // namespace ns3
