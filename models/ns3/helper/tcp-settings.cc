#include "models/ns3/helper/tcp-settings.h"

#include <ns3/boolean.h>
#include <ns3/config.h>
#include <ns3/enum.h>
#include <ns3/tcp-westwood.h>
#include <ns3/type-id.h>
#include <ns3/uinteger.h>

#include <map>
#include <stdexcept>

namespace ns3
{

namespace
{

/// A congestion-control name (network.tcp.congestion_control) -> its ns-3.37 TypeId.
const std::map<std::string, std::string> kCongestionControls = {
    {"cubic", "ns3::TcpCubic"},
    {"newreno", "ns3::TcpNewReno"},
    {"linux_reno", "ns3::TcpLinuxReno"},
    {"bbr", "ns3::TcpBbr"},
    {"bic", "ns3::TcpBic"},
    {"highspeed", "ns3::TcpHighSpeed"},
    {"htcp", "ns3::TcpHtcp"},
    {"hybla", "ns3::TcpHybla"},
    {"illinois", "ns3::TcpIllinois"},
    {"ledbat", "ns3::TcpLedbat"},
    {"lp", "ns3::TcpLp"},
    {"scalable", "ns3::TcpScalable"},
    {"vegas", "ns3::TcpVegas"},
    {"veno", "ns3::TcpVeno"},
    {"westwood", "ns3::TcpWestwood"},
    {"yeah", "ns3::TcpYeah"},
    {"dctcp", "ns3::TcpDctcp"},
};

} // namespace

std::string
TcpCongestionTypeId(const std::string& name)
{
    auto it = kCongestionControls.find(name);
    if (it == kCongestionControls.end())
    {
        throw std::invalid_argument("unknown network.tcp.congestion_control \"" + name + "\"");
    }
    return it->second;
}

void
ConfigureBackhaulTcp(const BackhaulTcpConfig& tcp)
{
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4u << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(4u << 20));
    // Every value is set, defaults included: Config defaults outlive a run in one process.
    Config::SetDefault(
        "ns3::TcpL4Protocol::SocketType",
        TypeIdValue(TypeId::LookupByName(TcpCongestionTypeId(tcp.congestionControl))));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(tcp.initialWindow));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(tcp.delayedAck ? 2 : 1));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(tcp.sack));
    // BBR paces its sending (its model needs it; ns-3's TcpBbr expects pacing on); the others
    // send as ns-3 and Linux do by default, without pacing.
    Config::SetDefault("ns3::TcpSocketState::EnablePacing",
                       BooleanValue(tcp.congestionControl == "bbr"));
    // Westwood+ (the variant Linux ships), not the original Westwood.
    Config::SetDefault("ns3::TcpWestwood::ProtocolType", EnumValue(TcpWestwood::WESTWOODPLUS));
}

nlohmann::json
BackhaulTcpSettings()
{
    auto initial = [](const char* type, const char* attribute) {
        TypeId::AttributeInformation info;
        TypeId::LookupByName(type).LookupAttributeByName(attribute, &info);
        return info.initialValue->SerializeToString(info.checker);
    };
    return {{"socket_type", initial("ns3::TcpL4Protocol", "SocketType")},
            {"initial_cwnd_segments", std::stoul(initial("ns3::TcpSocket", "InitialCwnd"))},
            {"delayed_ack_count", std::stoul(initial("ns3::TcpSocket", "DelAckCount"))},
            {"sack", initial("ns3::TcpSocketBase", "Sack") == "true"},
            {"pacing", initial("ns3::TcpSocketState", "EnablePacing") == "true"},
            {"segment_size", std::stoul(initial("ns3::TcpSocket", "SegmentSize"))}};
}

} // namespace ns3
