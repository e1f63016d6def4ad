#include "models/ns3/model/lte-link.h"

#include "compression/portable-math.h"
#include "models/ns3/model/lte-params.h"

#include <ns3/boolean.h>
#include <ns3/config.h>
#include <ns3/data-rate.h>
#include <ns3/double.h>
#include <ns3/enum.h>
#include <ns3/epc-gtpu-header.h>
#include <ns3/epc-pgw-application.h>
#include <ns3/internet-stack-helper.h>
#include <ns3/ipv4-address-helper.h>
#include <ns3/ipv4-header.h>
#include <ns3/ipv4-static-routing-helper.h>
#include <ns3/ipv4.h>
#include <ns3/lte-amc.h>
#include <ns3/lte-enb-net-device.h>
#include <ns3/lte-enb-phy.h>
#include <ns3/lte-enb-rrc.h>
#include <ns3/lte-spectrum-phy.h>
#include <ns3/lte-spectrum-value-helper.h>
#include <ns3/lte-ue-net-device.h>
#include <ns3/lte-ue-phy.h>
#include <ns3/lte-ue-rrc.h>
#include <ns3/mobility-helper.h>
#include <ns3/nstime.h>
#include <ns3/point-to-point-helper.h>
#include <ns3/propagation-loss-model.h>
#include <ns3/spectrum-channel.h>
#include <ns3/uinteger.h>
#include <ns3/vector.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <unordered_map>
#include <vector>

namespace ns3
{

namespace
{

/// Cells stand this far apart on a line, so that one cell's transmissions reach another's
/// receivers > 150 dB down: groups do not interfere (see docs/links.md).
constexpr double kCellSpacingM = 1000e3;
constexpr double kSpeedOfLight = 299792458.0;
/// The SGi link from the PGW to the router: the operator's core site, not a bottleneck.
constexpr uint64_t kSgiRateBps = 10'000'000'000ULL;
/// LteEnbRrc::SrsPeriodicity values that ns-3 accepts, one SRS slot per UE of the cell.
constexpr uint32_t kSrsPeriodicities[] = {40, 80, 160, 320};
constexpr uint32_t kRlcBufferBytes = 1u << 20;
/// Clients start this late: a UE's first packets are dropped until it has attached (random
/// access, RRC connection and default bearer: 31 ms for 12 UEs of one cell), and a dropped
/// SYN would cost TCP's 3 s connection timeout.
constexpr double kAttachS = 0.2;
constexpr double kThermalNoiseDbmPerHz = -174.0;

/// The path loss of one cell in one direction: Friis, or log-distance whose reference loss
/// is Friis at the reference distance (free space up to it, `exponent` beyond).
Ptr<PropagationLossModel>
MakeCellLoss(const LteParams& p, double frequencyHz)
{
    if (p.pathloss == "friis")
    {
        Ptr<FriisPropagationLossModel> friis = CreateObject<FriisPropagationLossModel>();
        friis->SetFrequency(frequencyHz);
        return friis;
    }
    const double wavelength = kSpeedOfLight / frequencyHz;
    const double referenceLossDb =
        20.0 * fedran::pmath::Log10(4.0 * M_PI * p.referenceDistanceM / wavelength);
    Ptr<LogDistancePropagationLossModel> loss = CreateObject<LogDistancePropagationLossModel>();
    loss->SetPathLossExponent(p.exponent);
    loss->SetReference(p.referenceDistanceM, referenceLossDb);
    return loss;
}

/// What the UL scheduler would grant a UE alone in the cell at this SINR: every RB at the MCS
/// ns-3's schedulers derive from it (the same mapping as PfFfMacScheduler's uplink).
uint64_t
UplinkCapacityBps(double sinrDb, uint32_t rbs)
{
    static Ptr<LteAmc> amc = CreateObject<LteAmc>();
    const double ber = 0.00005;
    const double s = fedran::pmath::Log2(1.0 + fedran::pmath::Pow(10.0, sinrDb / 10.0) /
                                                   (-fedran::pmath::Log(5.0 * ber) / 1.5));
    const int cqi = amc->GetCqiFromSpectralEfficiency(s);
    if (cqi == 0)
    {
        return 0; // out of range: the schedulers grant nothing
    }
    const int mcs = amc->GetMcsFromCqi(cqi);
    return static_cast<uint64_t>(amc->GetUlTbSizeFromMcs(mcs, rbs)) * 1000; // one TB per ms
}

template<typename T>
void
Connect(Ptr<Object> object, const std::string& source, T callback)
{
    if (!object->TraceConnectWithoutContext(source, callback))
    {
        throw std::logic_error("lte: no trace source " + source);
    }
}

/// The EPC's PGW application (on the PGW node).
Ptr<EpcPgwApplication>
PgwApplication(Ptr<Node> pgw)
{
    for (uint32_t i = 0; i < pgw->GetNApplications(); ++i)
    {
        if (Ptr<EpcPgwApplication> app = DynamicCast<EpcPgwApplication>(pgw->GetApplication(i)))
        {
            return app;
        }
    }
    throw std::logic_error("lte: the PGW node has no EpcPgwApplication");
}

/// Hands `sink` the IP packets an Ipv4 "Tx" or "Rx" trace reports on one interface.
void
ConnectInterface(Ptr<Ipv4> ip,
                 const std::string& source,
                 uint32_t interface,
                 InstalledLink::PacketSink sink)
{
    Connect(ip,
            source,
            Callback<void, Ptr<const Packet>, Ptr<Ipv4>, uint32_t>(
                [sink, interface](Ptr<const Packet> packet, Ptr<Ipv4>, uint32_t i) {
                    if (i == interface)
                    {
                        sink(packet);
                    }
                }));
}

} // namespace

/**
 * The PGW's two traces, each connected once (at its first sink) whatever the number of UEs:
 * every packet is parsed once and handed to the sinks of the UE it is for (downlink, from the
 * TUN device) or from (uplink, from the SGW, still in its GTP-U tunnel), found by address.
 */
class LteLink::PgwTaps
{
  public:
    explicit PgwTaps(Ptr<EpcPgwApplication> pgw)
        : m_pgw(pgw)
    {
    }

    /// Hands `sink` the packets of `direction` the PGW receives from or for `ue`.
    void Add(Ipv4Address ue, LinkDirection direction, InstalledLink::PacketSink sink)
    {
        const bool uplink = direction == LinkDirection::Uplink;
        std::shared_ptr<Sinks>& sinks = uplink ? m_uplink : m_downlink;
        if (!sinks)
        {
            // The trace's closure shares the table, which holds nothing of the PGW's.
            sinks = std::make_shared<Sinks>();
            Connect(m_pgw,
                    uplink ? "RxFromS1u" : "RxFromTun",
                    Callback<void, Ptr<Packet>>(
                        [sinks, uplink](Ptr<Packet> traced) { Dispatch(*sinks, uplink, traced); }));
        }
        (*sinks)[ue.Get()].push_back(sink);
    }

  private:
    /// By UE address.
    using Sinks = std::unordered_map<uint32_t, std::vector<InstalledLink::PacketSink>>;

    static void Dispatch(const Sinks& sinks, bool uplink, Ptr<Packet> traced)
    {
        // Other sinks of the trace see the same packet: strip the tunnel from a copy.
        Ptr<Packet> packet = traced->Copy();
        if (uplink)
        {
            GtpuHeader tunnel;
            packet->RemoveHeader(tunnel);
        }
        Ipv4Header header;
        packet->PeekHeader(header);
        auto it = sinks.find((uplink ? header.GetSource() : header.GetDestination()).Get());
        if (it == sinks.end())
        {
            return;
        }
        for (const InstalledLink::PacketSink& sink : it->second)
        {
            sink(packet);
        }
    }

    Ptr<EpcPgwApplication> m_pgw;
    std::shared_ptr<Sinks> m_uplink;   ///< RxFromS1u, connected at the first uplink sink
    std::shared_ptr<Sinks> m_downlink; ///< RxFromTun, connected at the first downlink sink
};

namespace
{

/**
 * A UE's radio link. Wire bytes are IP packets (IP and TCP headers, TCP retransmissions and
 * ACKs included) entering the radio path for this UE: what it sends into its LTE interface,
 * what the PGW forwards toward it; delivered bytes are what reaches the PGW from this UE and
 * what the UE's LTE interface receives. LTE's own overhead is left out: ns-3's schedulers
 * grant uplink resources by channel, not by buffer, so transport blocks would count mostly
 * padding.
 */
class LteInstalledLink : public InstalledLink
{
  public:
    LteInstalledLink(NetDeviceContainer devices,
                     Ptr<Ipv4> ueIp,
                     uint32_t lteInterface,
                     Ipv4Address address,
                     std::shared_ptr<LteLink::PgwTaps> pgw,
                     std::shared_ptr<const double> sinrDb,
                     uint32_t rbs,
                     double s1uDelayS)
        : InstalledLink(std::move(devices))
        , m_ueIp(ueIp)
        , m_lteInterface(lteInterface)
        , m_address(address)
        , m_pgw(std::move(pgw))
        , m_sinrDb(std::move(sinrDb))
        , m_rbs(rbs)
        , m_nominalRateBps(UplinkCapacityBps(*m_sinrDb, rbs))
        , m_s1uDelayS(s1uDelayS)
    {
    }

    void ConnectTransmitted(LinkDirection direction, PacketSink sink) const override
    {
        if (direction == LinkDirection::Uplink)
        {
            ConnectInterface(m_ueIp, "Tx", m_lteInterface, sink);
        }
        else
        {
            m_pgw->Add(m_address, direction, sink);
        }
    }

    void ConnectDelivered(LinkDirection direction, PacketSink sink) const override
    {
        if (direction == LinkDirection::Uplink)
        {
            m_pgw->Add(m_address, direction, sink);
        }
        else
        {
            ConnectInterface(m_ueIp, "Rx", m_lteInterface, sink);
        }
    }

    bool ConnectFrames(LinkDirection, PacketSink) const override
    {
        return false; // a radio link carries transport blocks, not PPP frames
    }

    std::optional<uint64_t> QueuedBytes(LinkDirection) const override
    {
        return std::nullopt; // in RLC buffers, which ns-3 does not expose
    }

    /// The S1-U link's (backhaul.delay): the radio's scheduling and HARQ add a delay that
    /// varies with load and is not stated here (docs/flow-validation.md, LTE).
    std::optional<double> DelayS(LinkDirection) const override
    {
        return m_s1uDelayS;
    }

    /// None: RLC acknowledged mode (set in LteLink::Install) and HARQ retransmit what the
    /// radio loses, so IP packets are delayed, not lost.
    std::optional<double> LossOf(LinkDirection, uint32_t) const override
    {
        return 0.0;
    }

    uint64_t CapacityBps() const override
    {
        return UplinkCapacityBps(*m_sinrDb, m_rbs);
    }

    /// The whole band at the UE's SINR is not what the UE gets: the eNB's scheduler shares
    /// the cell among its UEs, which a path's capacity cannot say.
    bool StatesPathCapacity() const override
    {
        return false;
    }

    double SnrDb() const override
    {
        return *m_sinrDb;
    }

    uint64_t NominalRateBps() const override
    {
        return m_nominalRateBps;
    }

    double ReadyS() const override
    {
        return kAttachS;
    }

    bool RoutesClient() const override
    {
        return true;
    }

  private:
    Ptr<Ipv4> m_ueIp;
    uint32_t m_lteInterface;
    Ipv4Address m_address;
    std::shared_ptr<LteLink::PgwTaps> m_pgw;
    std::shared_ptr<const double> m_sinrDb;
    uint32_t m_rbs;
    uint64_t m_nominalRateBps;
    double m_s1uDelayS;
};

void
SetDefaultRoute(Ptr<Node> node, Ipv4Address gateway, Ptr<NetDevice> device)
{
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    Ipv4StaticRoutingHelper().GetStaticRouting(ipv4)->SetDefaultRoute(
        gateway,
        ipv4->GetInterfaceForDevice(device));
}

void
Place(Ptr<Node> node, const Vector& position)
{
    MobilityHelper mobility;
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.Install(node);
    node->GetObject<MobilityModel>()->SetPosition(position);
}

} // namespace

void
LteLink::Check(const fedran::LinkConfig& config) const
{
    const LteParams p(config.spec);
    if (LteSpectrumValueHelper::GetCarrierFrequency(p.earfcn) <= 0.0 ||
        LteSpectrumValueHelper::GetCarrierFrequency(p.UlEarfcn()) <= 0.0)
    {
        throw fedran::ScenarioError(config.path + ".earfcn: " + std::to_string(p.earfcn) +
                                    " is not a downlink EARFCN of an FDD band ns-3 knows");
    }
}

void
LteLink::BuildNetwork(Ptr<Node> router)
{
    m_lte = CreateObject<LteHelper>();
    m_epc = CreateObject<PointToPointEpcHelper>();
    m_lte->SetEpcHelper(m_epc);
    m_lte->SetPathlossModelType(CellPathlossModel::GetTypeId());
    // RLC AM entities are created during the run, at bearer setup, so only a default reaches
    // them: 1 MiB transmit buffers (as later ns-3 releases default to). The 10 kB of ns-3.37
    // drop most of TCP's initial window.
    Config::SetDefault("ns3::LteRlcAm::MaxTxBufferSize", UintegerValue(kRlcBufferBytes));

    Ptr<Node> pgw = m_epc->GetPgwNode();
    PointToPointHelper sgi;
    sgi.SetDeviceAttribute("DataRate", DataRateValue(DataRate(kSgiRateBps)));
    sgi.SetChannelAttribute("Delay", TimeValue(Seconds(0)));
    NetDeviceContainer devices = sgi.Install(pgw, router);
    Ipv4AddressHelper addresses("10.64.0.0", "255.255.255.252");
    Ipv4InterfaceContainer ifs = addresses.Assign(devices);
    // Uplink: the PGW sends everything not for a UE to the router; downlink: the router sends
    // the UEs' network to the PGW.
    SetDefaultRoute(pgw, ifs.GetAddress(1), devices.Get(0));
    Ptr<Ipv4> routerIp = router->GetObject<Ipv4>();
    Ipv4StaticRoutingHelper().GetStaticRouting(routerIp)->AddNetworkRouteTo(
        Ipv4Address("7.0.0.0"),
        Ipv4Mask("255.0.0.0"),
        ifs.GetAddress(0),
        routerIp->GetInterfaceForDevice(devices.Get(1)));
}

Ptr<NetDevice>
LteLink::AddCell(const fedran::LinkConfig& config)
{
    const LteParams p(config.spec);
    Ptr<Node> enb = CreateObject<Node>();
    Place(enb, Vector(kCellSpacingM * m_cells++, 0.0, 0.0));

    m_epc->SetAttribute("S1uLinkDataRate", DataRateValue(DataRate(config.rateBps)));
    m_epc->SetAttribute("S1uLinkDelay", TimeValue(Seconds(config.delayS)));
    m_lte->SetSchedulerType(p.scheduler == "rr" ? "ns3::RrFfMacScheduler"
                                                : "ns3::PfFfMacScheduler");
    m_lte->SetEnbDeviceAttribute("DlEarfcn", UintegerValue(p.earfcn));
    m_lte->SetEnbDeviceAttribute("UlEarfcn", UintegerValue(p.UlEarfcn()));
    m_lte->SetEnbDeviceAttribute("DlBandwidth", UintegerValue(p.bandwidthRb));
    m_lte->SetEnbDeviceAttribute("UlBandwidth", UintegerValue(p.bandwidthRb));
    Ptr<LteEnbNetDevice> device =
        DynamicCast<LteEnbNetDevice>(m_lte->InstallEnbDevice(NodeContainer(enb)).Get(0));
    device->GetPhy()->SetTxPower(p.enbTxPowerDbm);
    // RLC acknowledged mode, as operators carry TCP (QCI 9 default bearers).
    device->GetRrc()->SetAttribute("EpsBearerToRlcMapping", EnumValue(LteEnbRrc::RLC_AM_ALWAYS));
    m_devices.Add(device);

    if (!m_downlinkLoss)
    {
        // The channels exist once the first eNB is installed.
        m_downlinkLoss = DynamicCast<CellPathlossModel>(
            m_lte->GetDownlinkSpectrumChannel()->GetPropagationLossModel());
        m_uplinkLoss = DynamicCast<CellPathlossModel>(
            m_lte->GetUplinkSpectrumChannel()->GetPropagationLossModel());
    }
    Ptr<MobilityModel> position = enb->GetObject<MobilityModel>();
    m_downlinkLoss->AddCell(position,
                            MakeCellLoss(p, LteSpectrumValueHelper::GetCarrierFrequency(p.earfcn)));
    m_uplinkLoss->AddCell(
        position,
        MakeCellLoss(p, LteSpectrumValueHelper::GetCarrierFrequency(p.UlEarfcn())));
    return device;
}

std::unique_ptr<InstalledLink>
LteLink::Install(Ptr<Node> client, Ptr<Node> router, const fedran::LinkConfig& config)
{
    if (!m_lte)
    {
        BuildNetwork(router);
    }
    const LteParams p(config.spec);
    Group& group = m_groups[config.path];
    const uint32_t index = group.ues++;
    const uint32_t cell = p.uesPerEnb == 0 ? 0 : index / p.uesPerEnb;
    if (cell == group.enbs.size())
    {
        group.enbs.push_back(AddCell(config));
    }
    Ptr<LteEnbNetDevice> enb = DynamicCast<LteEnbNetDevice>(group.enbs[cell]);
    const uint32_t uesInCell = p.uesPerEnb == 0 ? group.ues : index % p.uesPerEnb + 1;
    const uint32_t* srs =
        std::find_if(std::begin(kSrsPeriodicities),
                     std::end(kSrsPeriodicities),
                     [uesInCell](uint32_t period) { return period >= uesInCell; });
    if (srs == std::end(kSrsPeriodicities))
    {
        throw fedran::ScenarioError(config.path + ": more than 320 UEs in one cell (ns-3's SRS "
                                                  "limit); set ues_per_enb");
    }
    enb->GetRrc()->SetAttribute("SrsPeriodicity", UintegerValue(*srs));

    // The UE stands distance_m from its eNB (horizontally; both at height 0).
    const double distance = p.distancesM[index % p.distancesM.size()];
    const Vector enbAt = enb->GetNode()->GetObject<MobilityModel>()->GetPosition();
    Place(client, Vector(enbAt.x + distance, enbAt.y, 0.0));

    m_lte->SetUeDeviceAttribute("DlEarfcn", UintegerValue(p.earfcn));
    Ptr<LteUeNetDevice> ue =
        DynamicCast<LteUeNetDevice>(m_lte->InstallUeDevice(NodeContainer(client)).Get(0));
    Ptr<LteUePhy> uePhy = ue->GetPhy();
    // Fixed transmit power (no uplink power control) and no radio-link-failure detection:
    // the SINR follows the distance alone, and a cell-edge UE stays attached at low MCS.
    uePhy->SetAttribute("EnableUplinkPowerControl", BooleanValue(false));
    uePhy->SetAttribute("EnableRlfDetection", BooleanValue(false));
    uePhy->SetTxPower(p.ueTxPowerDbm);
    m_devices.Add(ue);
    const Ipv4Address address = m_epc->AssignUeIpv4Address(NetDeviceContainer(ue)).GetAddress(0);
    SetDefaultRoute(client, m_epc->GetUeDefaultGatewayAddress(), ue);
    m_lte->Attach(ue, enb);

    // The SNR the path loss gives over the whole uplink band, until the eNB measures one.
    const double noiseDbm = kThermalNoiseDbmPerHz +
                            10.0 * fedran::pmath::Log10(p.bandwidthRb * 180e3) +
                            enb->GetPhy()->GetNoiseFigure();
    const double rxDbm = m_uplinkLoss->CalcRxPower(p.ueTxPowerDbm,
                                                   client->GetObject<MobilityModel>(),
                                                   enb->GetNode()->GetObject<MobilityModel>());
    auto sinrDb = std::make_shared<double>(rxDbm - noiseDbm);
    const uint32_t rbs = p.bandwidthRb;
    // The eNB's SRS measurement of this UE's uplink SINR, when there is one.
    Connect(enb->GetPhy(),
            "ReportUeSinr",
            Callback<void, uint16_t, uint16_t, double, uint8_t>(
                [sinrDb, ue](uint16_t, uint16_t rnti, double sinr, uint8_t) {
                    if (rnti == ue->GetRrc()->GetRnti())
                    {
                        *sinrDb = 10.0 * fedran::pmath::Log10(sinr);
                    }
                }));

    if (!m_pgwTaps)
    {
        m_pgwTaps = std::make_shared<PgwTaps>(PgwApplication(m_epc->GetPgwNode()));
    }
    NetDeviceContainer devices;
    devices.Add(ue);
    devices.Add(enb);
    Ptr<Ipv4> ueIp = client->GetObject<Ipv4>();
    return std::make_unique<LteInstalledLink>(devices,
                                              ueIp,
                                              ueIp->GetInterfaceForDevice(ue),
                                              address,
                                              m_pgwTaps,
                                              sinrDb,
                                              rbs,
                                              config.delayS);
}

int64_t
LteLink::AssignStreams(int64_t stream)
{
    return m_lte ? m_lte->AssignStreams(m_devices, stream) : 0;
}

} // namespace ns3
