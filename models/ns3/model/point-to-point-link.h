#ifndef FEDRAN_MODELS_NS3_MODEL_POINT_TO_POINT_LINK_H
#define FEDRAN_MODELS_NS3_MODEL_POINT_TO_POINT_LINK_H

#include "models/ns3/model/backhaul-link.h"

#include <ns3/error-model.h>

namespace ns3
{

/**
 * "p2p": a fixed-rate point-to-point link (ns-3 PointToPointNetDevice, DropTail queue) with a
 * propagation delay and independent packet loss in both directions (RateErrorModel on each
 * receiving device); rate_down and delay_down give the downlink its own rate and delay.
 */
class PointToPointLink : public BackhaulLink
{
  public:
    void Check(const fedran::LinkConfig& config) const override;
    std::unique_ptr<InstalledLink> Install(Ptr<Node> client,
                                           Ptr<Node> router,
                                           const fedran::LinkConfig& config) override;
    std::unique_ptr<InstalledLink> InstallStated(const fedran::LinkConfig& config) override;
    int64_t AssignStreams(int64_t stream) override;

  private:
    /// In installation order; a stated link with loss holds two null places, so that its
    /// stream numbers are the ones its devices' error models would have had.
    std::vector<Ptr<RateErrorModel>> m_errorModels;
};

} // namespace ns3

#endif
