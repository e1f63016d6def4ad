#include "simulator/edge-tiers.h"

#include "models/ns3/helper/fl-edge-helper.h"

#include <ns3/inet-socket-address.h>
#include <ns3/nstime.h>

#include <algorithm>
#include <limits>

namespace ns3
{

EdgeTiers::EdgeTiers(const fedran::ScenarioConfig& config, const fedran::FederatedTask& task)
    : m_config(config)
{
    const std::vector<int32_t> clientHubs = config.ClientHubs();
    m_clients = static_cast<uint32_t>(clientHubs.size());
    m_subtreeSamples.assign(config.network.hubs.size(), 0);
    for (uint32_t i = 0; i < m_clients; ++i)
    {
        m_clientTier.push_back(config.AggregatorAt(clientHubs[i]));
        // Every hub on the way up holds this site's samples in its subtree.
        for (int32_t h = clientHubs[i]; h != fedran::HubConfig::kCore;
             h = config.network.hubs[h].parent)
        {
            m_subtreeSamples[h] += task.Examples(i);
        }
    }
    for (uint32_t h = 0; h < config.network.hubs.size(); ++h)
    {
        if (config.network.hubs[h].aggregator)
        {
            m_aggregators.push_back(h);
        }
    }
}

std::map<uint32_t, fedran::CodecSpec>
EdgeTiers::AggregatorChildren(int32_t tier) const
{
    std::map<uint32_t, fedran::CodecSpec> children;
    for (uint32_t h : m_aggregators)
    {
        if (ParentTier(h) == tier)
        {
            children[ChildId(h)] = m_config.network.hubs[h].aggregator->uplinkCodec;
        }
    }
    return children;
}

const fedran::CodecSpec&
EdgeTiers::DownlinkCodecOf(int32_t tier) const
{
    return tier == kServer ? m_config.downlinkCodec
                           : m_config.network.hubs[tier].aggregator->downlinkCodec;
}

double
EdgeTiers::DeadlineOf(int32_t tier) const
{
    return tier == kServer ? m_config.server.deadlineS
                           : m_config.network.hubs[tier].aggregator->deadlineS;
}

uint32_t
EdgeTiers::ExpectedChildren(int32_t tier, const std::vector<bool>& initiallyOn) const
{
    uint32_t expected = static_cast<uint32_t>(AggregatorChildren(tier).size());
    for (uint32_t i = 0; i < m_clients; ++i)
    {
        expected += m_clientTier[i] == tier && initiallyOn[i] ? 1 : 0;
    }
    return expected;
}

std::vector<Ptr<FlEdgeApp>>
EdgeTiers::Install(const BackhaulHelper& topology,
                   std::shared_ptr<const fedran::FederatedTask> task,
                   Ptr<MessageTransport> transport,
                   uint16_t port,
                   const std::vector<bool>& initiallyOn) const
{
    std::vector<Ptr<FlEdgeApp>> apps;
    const FlEdgeHelper helper(task, transport, port);
    for (uint32_t h : m_aggregators)
    {
        const fedran::AggregatorConfig& aggregator = *m_config.network.hubs[h].aggregator;
        const int32_t parent = ParentTier(h);
        fedran::EdgeAggregatorConfig config;
        config.hub = h;
        config.id = ChildId(h);
        config.subtreeSamples = static_cast<uint32_t>(
            std::min<uint64_t>(m_subtreeSamples[h], std::numeric_limits<uint32_t>::max()));
        config.edgeRounds = aggregator.edgeRounds;
        config.tier.clientsPerRound = aggregator.clientsPerRound;
        config.tier.expectedClients = std::max(ExpectedChildren(int32_t(h), initiallyOn), 1u);
        config.tier.deadlineTicks = Seconds(aggregator.deadlineS).GetTimeStep();
        config.tier.downlinkCodec = aggregator.downlinkCodec;
        config.tier.aggregatorUplinkCodecs = AggregatorChildren(int32_t(h));
        config.parentDownlinkCodec = DownlinkCodecOf(parent);
        config.uplinkCodec = aggregator.uplinkCodec;

        const Ipv4Address parentAddress =
            parent == kServer ? topology.GetServerAddress() : topology.GetHubAddress(parent);
        // Half its parent's join timeout: a hub whose children do not all join is still in
        // time for its parent's first round.
        uint32_t depth = 1;
        for (int32_t up = parent; up != kServer; up = ParentTier(uint32_t(up)))
        {
            ++depth;
        }
        Ptr<FlEdgeApp> app =
            helper.Install(topology.GetHub(h),
                           InetSocketAddress(parentAddress, port),
                           Seconds(m_config.server.joinTimeoutS / double(1u << depth)),
                           config);
        apps.push_back(app);
    }
    return apps;
}

} // namespace ns3
