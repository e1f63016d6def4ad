#ifndef FEDRAN_MODELS_NS3_MODEL_BACKHAUL_LINK_H
#define FEDRAN_MODELS_NS3_MODEL_BACKHAUL_LINK_H

// A backhaul link model connects one client (cell site) to the aggregation router. Each model
// lives in its own file in this folder and is registered by one line in backhaul-link.cc; its
// scenario keys are one branch of clients.groups[].backhaul in scenarios/scenario.schema.json.
// What a new model needs: docs/architecture.md, "Adding a link model".

#include "models/link-config/link-config.h"

#include <ns3/callback.h>
#include <ns3/net-device-container.h>
#include <ns3/node.h>
#include <ns3/packet.h>
#include <ns3/ptr.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/// A direction of a link: uplink is what the client end sends.
enum class LinkDirection
{
    Uplink,
    Downlink,
};

/**
 * One installed link, as the rest of the simulator sees it: its devices and the probes that
 * statistics, link samples, packet captures, background traffic and the topology read. Every
 * link model provides all of them, so no consumer tests for a particular model.
 */
class InstalledLink
{
  public:
    /// Called once per packet (or frame) a probe sees; wire bytes are packet->GetSize().
    using PacketSink = Callback<void, Ptr<const Packet>>;

    /// `devices`: the client's device first, then the network end's.
    explicit InstalledLink(NetDeviceContainer devices);
    virtual ~InstalledLink() = default;

    const NetDeviceContainer& GetDevices() const
    {
        return m_devices;
    }

    /// The device that sends `direction`'s traffic (uplink: the client's) ...
    Ptr<NetDevice> GetSender(LinkDirection direction) const;
    /// ... and the one at the other end.
    Ptr<NetDevice> GetReceiver(LinkDirection direction) const;

    /// Connects `sink` to every packet `direction` transmits (wire bytes: headers,
    /// retransmissions and acknowledgements included; background packets too).
    virtual void ConnectTransmitted(LinkDirection direction, PacketSink sink) const = 0;
    /// Connects `sink` to every packet `direction` delivers.
    virtual void ConnectDelivered(LinkDirection direction, PacketSink sink) const = 0;
    /// Connects `sink` to every PPP frame `direction`'s sender puts on the link, when its
    /// transmission begins (lost ones included), for a pcap file; false, and nothing
    /// connected, for a link that carries no PPP frames.
    virtual bool ConnectFrames(LinkDirection direction, PacketSink sink) const = 0;
    /// Bytes waiting to leave `direction`'s sender now; nullopt where the model cannot see
    /// them (lte: RLC buffers).
    virtual std::optional<uint64_t> QueuedBytes(LinkDirection direction) const = 0;

    /// Capacity now, in bits/s; 0 while the link is out.
    virtual uint64_t CapacityBps() const = 0;
    /// Calls `onChange` whenever CapacityBps() changes (a modulation step, an outage, a trace
    /// step), for models that know when; false, and nothing connected, for the others (their
    /// readers poll CapacityBps() when they need it).
    virtual bool ConnectCapacityChanged(Callback<void> onChange) const;
    /// Whether CapacityBpsOf is what one transfer over the link can get now, so that a
    /// path's bottleneck predicts a transfer's time (server.selection "network"); false for a
    /// shared radio (lte), whose share depends on its scheduler.
    virtual bool StatesPathCapacity() const
    {
        return true;
    }
    /// SNR now, in dB; NaN for models without one.
    virtual double SnrDb() const = 0;
    /// The capacity background load is a fraction of (p2p: rate; microwave: clear sky;
    /// trace: time-weighted mean; lte: the whole uplink band at the path-loss SNR).
    virtual uint64_t NominalRateBps() const = 0;
    /// The same for one direction, where the two differ (p2p rate_down, a downlink trace);
    /// by default a direction has the link's CapacityBps() and NominalRateBps().
    virtual uint64_t CapacityBpsOf(LinkDirection /* direction */) const
    {
        return CapacityBps();
    }

    virtual uint64_t NominalRateBpsOf(LinkDirection /* direction */) const
    {
        return NominalRateBps();
    }

    /// One-way propagation delay of `direction` now, in seconds, as the model states it (the
    /// flow transport moves no packets through the devices, so it asks here); nullopt for a
    /// model that cannot state one (lte: scheduling and HARQ make its delay), which the flow
    /// transport then refuses (models/link-config/link-types.h, statesDelayAndLoss).
    virtual std::optional<double> DelayS(LinkDirection direction) const = 0;
    /// The probability that `direction` loses a packet of `wireBytes` now, by the model's own
    /// error process; nullopt where DelayS is.
    virtual std::optional<double> LossOf(LinkDirection direction, uint32_t wireBytes) const = 0;

    /// When the link first carries traffic (lte: after the UE has attached); the client's
    /// application starts then.
    virtual double ReadyS() const = 0;
    /// Whether the model addresses and routes its client itself (lte: the EPC gives the UE
    /// its address and default route); otherwise the topology numbers the two devices, sets
    /// the client's default route and installs the link's background traffic.
    virtual bool RoutesClient() const = 0;

    /**
     * Scripted outages (faults.link_outages, faults.server_outages) for every link model: the
     * IP interfaces on the link's devices go down, so nothing is sent or received either way
     * (packets already on the wire are dropped where they arrive); routes stay as they are.
     * Outages nest: the link is back up when every one has ended. An lte link's network end
     * has no IP interface: its UE's is enough. Const: the state is the network's, not the
     * description's.
     */
    void BeginOutage() const;
    void EndOutage() const;
    /// Whether a scripted outage holds the link down now (its capacity is then 0).
    bool IsOut() const
    {
        return m_outages > 0;
    }

    /// What `direction` can carry now: 0 during a scripted outage, CapacityBpsOf otherwise.
    uint64_t AvailableBpsOf(LinkDirection direction) const
    {
        return IsOut() ? 0 : CapacityBpsOf(direction);
    }

    /// Calls `onChange` whenever a scripted outage begins or ends. The flow transport carries
    /// no packets, so the downed interfaces do not stop it; it follows this instead.
    void ConnectOutageChanged(Callback<void> onChange) const
    {
        m_outageListeners.push_back(onChange);
    }

  private:
    void SetInterfacesUp(bool up) const;

    NetDeviceContainer m_devices;
    mutable uint32_t m_outages = 0;
    mutable std::vector<Callback<void>> m_outageListeners;
};

/**
 * An InstalledLink over two PointToPointNetDevices: bytes from their PhyTxEnd and PhyRxEnd
 * traces, frames from PhyTxBegin, the backlog of the sender's device queue and the queue
 * discipline in front of it. Ready at once, addressed and routed by the topology. p2p,
 * microwave and trace links are these; so is the core link.
 */
class PointToPointInstalledLink : public InstalledLink
{
  public:
    PointToPointInstalledLink(NetDeviceContainer devices,
                              std::function<uint64_t()> capacityBps,
                              std::function<double()> snrDb,
                              uint64_t nominalRateBps);

    void ConnectTransmitted(LinkDirection direction, PacketSink sink) const override;
    void ConnectDelivered(LinkDirection direction, PacketSink sink) const override;
    bool ConnectFrames(LinkDirection direction, PacketSink sink) const override;
    std::optional<uint64_t> QueuedBytes(LinkDirection direction) const override;
    uint64_t CapacityBps() const override;
    /// Through the VariableRateLink aggregated to the devices, if the model made one.
    bool ConnectCapacityChanged(Callback<void> onChange) const override;
    double SnrDb() const override;
    uint64_t NominalRateBps() const override;
    uint64_t CapacityBpsOf(LinkDirection direction) const override;
    uint64_t NominalRateBpsOf(LinkDirection direction) const override;
    /// From the VariableRateLink aggregated to the devices (trace, microwave: what the model
    /// last set), otherwise from the channel's delay and the receiver's error model (p2p).
    std::optional<double> DelayS(LinkDirection direction) const override;
    std::optional<double> LossOf(LinkDirection direction, uint32_t wireBytes) const override;
    double ReadyS() const override;
    bool RoutesClient() const override;

    /// An asymmetric link: the downlink's capacity now and nominal rate (the constructor's
    /// are then the uplink's; CapacityBps() and NominalRateBps() stay the uplink's).
    void SetDownlink(std::function<uint64_t()> capacityBps, uint64_t nominalRateBps);

  private:
    std::function<uint64_t()> m_capacityBps;
    std::function<double()> m_snrDb;
    uint64_t m_nominalRateBps;
    std::function<uint64_t()> m_downCapacityBps; ///< empty: as the uplink
    uint64_t m_downNominalRateBps = 0;
};

class BackhaulLink
{
  public:
    virtual ~BackhaulLink() = default;

    /**
     * Checks the model's own keys in config.spec (and any file they name) before anything is
     * simulated or written. Throws fedran::ScenarioError naming the JSON path, or the file
     * and line.
     */
    virtual void Check(const fedran::LinkConfig& config) const = 0;

    /**
     * Connects `client` to `router` as `config` describes. What the client's device transmits
     * is uplink traffic, what the router's transmits is downlink traffic.
     */
    virtual std::unique_ptr<InstalledLink> Install(Ptr<Node> client,
                                                   Ptr<Node> router,
                                                   const fedran::LinkConfig& config) = 0;

    /**
     * The link as `config` describes it, with no node or device at either end, for a
     * transport that moves no packets through devices (models/ns3/model/stated-link.h);
     * nullptr when the model needs its devices (a rate process driving them, a radio), and
     * the topology then builds the client's node and devices as for packets.
     */
    virtual std::unique_ptr<InstalledLink> InstallStated(const fedran::LinkConfig& /* config */)
    {
        return nullptr;
    }

    /// Fixes the random streams of every link installed so far; returns streams used.
    virtual int64_t AssignStreams(int64_t stream) = 0;
};

/// The link model for a "backhaul.type"; nullptr for an unknown type.
std::unique_ptr<BackhaulLink> MakeBackhaulLink(const std::string& type);

/// MakeBackhaulLink(config.type)->Check(config); an unknown type is a ScenarioError too.
void CheckBackhaulLink(const fedran::LinkConfig& config);

} // namespace ns3

#endif
