#include "models/links/point-to-point-link.h"

#include <ns3/data-rate.h>
#include <ns3/double.h>
#include <ns3/enum.h>
#include <ns3/nstime.h>
#include <ns3/point-to-point-helper.h>
#include <ns3/pointer.h>

namespace ns3
{

NetDeviceContainer
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
    return devices;
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
