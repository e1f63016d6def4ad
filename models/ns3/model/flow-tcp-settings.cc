#include "models/ns3/model/flow-tcp-settings.h"

#include <ns3/abort.h>
#include <ns3/boolean.h>
#include <ns3/double.h>
#include <ns3/nstime.h>
#include <ns3/type-id.h>
#include <ns3/uinteger.h>

#include <algorithm>

namespace ns3
{

namespace
{

/// The initial value of `type`'s `attribute` (the Config default ConfigureBackhaulTcp set).
Ptr<const AttributeValue>
Initial(const char* type, const char* attribute)
{
    TypeId::AttributeInformation info;
    NS_ABORT_MSG_UNLESS(TypeId::LookupByName(type).LookupAttributeByName(attribute, &info),
                        type << " has no attribute " << attribute);
    return info.initialValue;
}

double
InitialSeconds(const char* type, const char* attribute)
{
    return DynamicCast<const TimeValue>(Initial(type, attribute))->Get().GetSeconds();
}

uint64_t
TcpDefault(const char* attribute)
{
    TypeId::AttributeInformation info;
    NS_ABORT_MSG_UNLESS(
        TypeId::LookupByName("ns3::TcpSocket").LookupAttributeByName(attribute, &info),
        "ns3::TcpSocket has no attribute " << attribute);
    return DynamicCast<const UintegerValue>(info.initialValue)->Get();
}

} // namespace

fedran::TcpFlowSettings
FlowTcpFromDefaults()
{
    fedran::TcpFlowSettings tcp;
    tcp.mss = static_cast<uint32_t>(TcpDefault("SegmentSize"));
    tcp.initialCwnd = static_cast<uint32_t>(TcpDefault("InitialCwnd"));
    tcp.segmentsPerAck = static_cast<uint32_t>(std::max<uint64_t>(1, TcpDefault("DelAckCount")));
    tcp.maxWindowBytes =
        static_cast<double>(std::min(TcpDefault("SndBufSize"), TcpDefault("RcvBufSize")));
    return tcp;
}

fedran::MicroTcpSettings
MicroTcpFromDefaults(const fedran::TcpFlowSettings& tcp)
{
    fedran::MicroTcpSettings micro;
    micro.mss = tcp.mss;
    micro.headerBytes = tcp.headerBytes;
    micro.initialCwnd = tcp.initialCwnd;
    micro.maxWindow = static_cast<uint32_t>(tcp.maxWindowBytes / tcp.mss);
    micro.delAckCount = tcp.segmentsPerAck;
    micro.delAckTimeoutS = InitialSeconds("ns3::TcpSocket", "DelAckTimeout");
    micro.reTxThreshold = static_cast<uint32_t>(
        DynamicCast<const UintegerValue>(Initial("ns3::TcpSocketBase", "ReTxThreshold"))->Get());
    micro.limitedTransmit =
        DynamicCast<const BooleanValue>(Initial("ns3::TcpSocketBase", "LimitedTransmit"))->Get();
    micro.sack = DynamicCast<const BooleanValue>(Initial("ns3::TcpSocketBase", "Sack"))->Get();
    micro.timestamps =
        DynamicCast<const BooleanValue>(Initial("ns3::TcpSocketBase", "Timestamp"))->Get();
    micro.minRtoS = InitialSeconds("ns3::TcpSocketBase", "MinRto");
    micro.clockGranularityS = InitialSeconds("ns3::TcpSocketBase", "ClockGranularity");
    // The flow transport admits CUBIC only (scenario-config.cc refuses the others).
    micro.congestion = fedran::MicroTcpSettings::Congestion::Cubic;
    auto real = [](const char* attribute) {
        return DynamicCast<const DoubleValue>(Initial("ns3::TcpCubic", attribute))->Get();
    };
    auto flag = [](const char* attribute) {
        return DynamicCast<const BooleanValue>(Initial("ns3::TcpCubic", attribute))->Get();
    };
    auto count = [](const char* attribute) {
        return static_cast<uint32_t>(
            DynamicCast<const UintegerValue>(Initial("ns3::TcpCubic", attribute))->Get());
    };
    micro.cubicBeta = real("Beta");
    micro.cubicC = real("C");
    micro.fastConvergence = flag("FastConvergence");
    micro.cntClamp = count("CntClamp");
    micro.hystart = flag("HyStart");
    micro.hystartLowWindow = count("HyStartLowWindow");
    micro.hystartMinSamples = count("HyStartMinSamples");
    micro.hystartAckDeltaS = InitialSeconds("ns3::TcpCubic", "HyStartAckDelta");
    micro.hystartDelayMinS = InitialSeconds("ns3::TcpCubic", "HyStartDelayMin");
    micro.hystartDelayMaxS = InitialSeconds("ns3::TcpCubic", "HyStartDelayMax");
    micro.cubicDeltaS = InitialSeconds("ns3::TcpCubic", "CubicDelta");
    return micro;
}

} // namespace ns3
