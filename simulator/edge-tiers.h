#ifndef FEDRAN_SIMULATOR_EDGE_TIERS_H
#define FEDRAN_SIMULATOR_EDGE_TIERS_H

// The tiers of hierarchical FL (network.hubs[].aggregator, docs/hierarchical.md): which
// aggregator (or the server) each site and each aggregating hub reports to, what each tier
// sends and expects, and the FlEdgeApps on the aggregating hubs' nodes.

#include "models/fl/federated-task.h"
#include "models/ns3/helper/backhaul-helper.h"
#include "models/ns3/model/fl-edge-app.h"
#include "models/ns3/model/message-transport.h"
#include "simulator/scenario/scenario.h"

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <vector>

namespace ns3
{

class EdgeTiers
{
  public:
    /// The server's tier.
    static constexpr int32_t kServer = fedran::HubConfig::kCore;

    EdgeTiers(const fedran::ScenarioConfig& config, const fedran::FederatedTask& task);

    /// Whether any hub aggregates.
    bool Any() const
    {
        return !m_aggregators.empty();
    }

    /// The tier client i reports to: kServer or an aggregating hub's index.
    int32_t TierOfClient(uint32_t i) const
    {
        return m_clientTier[i];
    }

    /// The id aggregating hub h joins its parent with: after every site's.
    uint32_t ChildId(uint32_t h) const
    {
        return m_clients + h;
    }

    /// The aggregating hubs that report to `tier`, with their uplink codecs, by ChildId.
    std::map<uint32_t, fedran::CodecSpec> AggregatorChildren(int32_t tier) const;

    /// The codec of the model frames `tier` sends.
    const fedran::CodecSpec& DownlinkCodecOf(int32_t tier) const;

    /// `tier`'s round deadline (the server's, or the aggregator's).
    double DeadlineOf(int32_t tier) const;

    /// The children of `tier` that are there at time 0: its sites that are on then
    /// (`initiallyOn`, per client) and its aggregating hubs.
    uint32_t ExpectedChildren(int32_t tier, const std::vector<bool>& initiallyOn) const;

    /// One FlEdgeApp on each aggregating hub's node, listening on `port`, its parent at its
    /// parent tier's address; `initiallyOn` per client, for the join. Started at time 0.
    std::vector<Ptr<FlEdgeApp>> Install(const BackhaulHelper& topology,
                                        std::shared_ptr<const fedran::FederatedTask> task,
                                        Ptr<MessageTransport> transport,
                                        uint16_t port,
                                        const std::vector<bool>& initiallyOn) const;

    /// Aggregating hubs, by index.
    const std::vector<uint32_t>& Aggregators() const
    {
        return m_aggregators;
    }

    /// The tier hub h's aggregator reports to.
    int32_t ParentTier(uint32_t h) const
    {
        return m_config.AggregatorAt(m_config.network.hubs[h].parent);
    }

  private:
    const fedran::ScenarioConfig& m_config;
    uint32_t m_clients = 0;
    std::vector<int32_t> m_clientTier;
    std::vector<uint32_t> m_aggregators;
    std::vector<uint64_t> m_subtreeSamples; ///< per hub: the samples of the sites below it
};

} // namespace ns3

#endif
