#include "simulator/network-topology.h"

namespace ns3
{

BackhaulTcpConfig
TcpConfigOf(const fedran::ScenarioConfig::Network::Tcp& tcp)
{
    BackhaulTcpConfig settings;
    settings.congestionControl = tcp.congestionControl;
    settings.initialWindow = tcp.initialWindow;
    settings.delayedAck = tcp.delayedAck;
    settings.sack = tcp.sack;
    return settings;
}

void
ConfigureBackhaulTcp(const fedran::ScenarioConfig::Network::Tcp& tcp)
{
    ConfigureBackhaulTcp(TcpConfigOf(tcp));
}

BackhaulSpec
BackhaulSpecOf(const fedran::ScenarioConfig& config,
               const std::vector<uint32_t>& clientGroup,
               bool carriesPackets)
{
    BackhaulSpec spec;
    spec.coreRateBps = config.network.coreRateBps;
    spec.coreDelayS = config.network.coreDelayS;
    spec.coreQueue = config.network.coreQueue;
    spec.coreQueuePackets = config.network.coreQueuePackets;
    spec.routerQueue = config.network.routerQueue;
    spec.routerQueuePackets = config.network.routerQueuePackets;
    spec.packetBackground = carriesPackets;
    spec.statedClientLinks = !carriesPackets;
    for (const fedran::HubConfig& hub : config.network.hubs)
    {
        spec.hubs.push_back({hub.name, hub.parent, hub.backhaul});
    }
    // Which hub each client hangs off: a group's clients take its hubs in turn.
    std::vector<uint32_t> inGroup(config.groups.size(), 0);
    for (uint32_t group : clientGroup)
    {
        const fedran::ClientGroupConfig& groupConfig = config.groups.at(group);
        const std::vector<uint32_t>& groupHubs = groupConfig.hubs;
        const uint32_t j = inGroup[group]++;
        BackhaulSpec::Client client;
        if (!groupHubs.empty())
        {
            client.hub = static_cast<int32_t>(groupHubs[j % groupHubs.size()]);
        }
        client.backhaul = groupConfig.backhaul;
        spec.clients.push_back(std::move(client));
    }
    return spec;
}

} // namespace ns3
