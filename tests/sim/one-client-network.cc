#include "one-client-network.h"

#include "simulator/network-topology.h"

namespace fedran::test
{

void
SetFedranTcpDefaults()
{
    ns3::ConfigureBackhaulTcp();
}

ScenarioConfig
OneClientConfig(const std::string& rate,
                double delayS,
                const std::string& coreRate,
                double coreDelayS)
{
    ScenarioConfig config;
    config.network.coreRateBps = ParseDataRate(coreRate);
    config.network.coreDelayS = coreDelayS;
    ClientGroupConfig group;
    group.name = "one";
    group.count = 1;
    group.backhaul.type = "p2p";
    group.backhaul.rateBps = ParseDataRate(rate);
    group.backhaul.delayS = delayS;
    config.groups.push_back(group);
    return config;
}

} // namespace fedran::test
