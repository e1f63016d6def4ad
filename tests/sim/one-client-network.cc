#include "one-client-network.h"

#include <ns3/config.h>
#include <ns3/uinteger.h>

namespace fedran::test
{

void
SetFedranTcpDefaults()
{
    ns3::Config::SetDefault("ns3::TcpSocket::SegmentSize", ns3::UintegerValue(1448));
    ns3::Config::SetDefault("ns3::TcpSocket::SndBufSize", ns3::UintegerValue(4u << 20));
    ns3::Config::SetDefault("ns3::TcpSocket::RcvBufSize", ns3::UintegerValue(4u << 20));
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
