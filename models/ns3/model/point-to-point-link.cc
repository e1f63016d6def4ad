#include "models/ns3/model/point-to-point-link.h"

#include "models/ns3/model/asymmetric-link.h"
#include "models/ns3/model/stated-link.h"

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
PointToPointLink::Check(const fedran::LinkConfig& config) const
{
    // rate, delay and loss are fully checked by the schema; a downlink needs a rate.
    if (config.spec.contains("rate_down") && config.rateDownBps == 0)
    {
        throw fedran::ScenarioError(config.path + ".rate_down: must be above 0 bit/s");
    }
}

std::unique_ptr<InstalledLink>
PointToPointLink::Install(Ptr<Node> client, Ptr<Node> router, const fedran::LinkConfig& config)
{
    // rate_down and delay_down make the link asymmetric; without them both directions have
    // rate and delay, and the link is PointToPointHelper's as before.
    NetDeviceContainer devices = InstallPointToPoint(client,
                                                     router,
                                                     {config.rateBps,
                                                      config.DownRateBps(),
                                                      Seconds(config.delayS),
                                                      Seconds(config.DownDelayS())});
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
    auto link = std::make_unique<PointToPointInstalledLink>(
        devices,
        [rate] { return rate; },
        [] { return std::nan(""); },
        rate);
    const uint64_t down = config.DownRateBps();
    if (down != rate)
    {
        link->SetDownlink([down] { return down; }, down);
    }
    return link;
}

std::unique_ptr<InstalledLink>
PointToPointLink::InstallStated(const fedran::LinkConfig& config)
{
    if (config.loss > 0.0)
    {
        m_errorModels.insert(m_errorModels.end(), 2, nullptr); // one per receiving end
    }
    // A packet-unit RateErrorModel drops each packet with probability `loss`, whatever its size.
    return std::make_unique<StatedInstalledLink>(
        StatedDirection{config.rateBps, config.delayS, config.loss},
        StatedDirection{config.DownRateBps(), config.DownDelayS(), config.loss});
}

int64_t
PointToPointLink::AssignStreams(int64_t stream)
{
    int64_t used = 0;
    for (auto& em : m_errorModels)
    {
        used += em ? em->AssignStreams(stream + used) : 1; // RateErrorModel uses one
    }
    return used;
}

} // namespace ns3
