#ifndef FEDRAN_MODELS_NS3_MODEL_FLOW_NETWORK_H
#define FEDRAN_MODELS_NS3_MODEL_FLOW_NETWORK_H

// The ns-3 side of the flow-level model: the topology's links as FluidNetwork links (one per
// direction), paths from a node to the server up the tree's parent pointers, the flows'
// completion as one scheduled event, capacity changes from the link models, background
// traffic as fixed-rate flows, and the byte counts links.csv and rounds.csv read.

#include "models/flow/fluid-network.h"
#include "models/flow/port-micro-sim.h"
#include "models/flow/tcp-flow-model.h"
#include "models/ns3/model/flow-background.h"
#include "models/ns3/model/transport-topology.h"

#include <ns3/event-id.h>
#include <ns3/nstime.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace ns3
{

class FlowNetwork : public TransportLinkCounters
{
  public:
    /// Links, in the topology's order: `path` elements index them.
    using Path = std::vector<uint32_t>;

    /// What a finished flow reports: when its last bit reaches the far end, and the path's
    /// one-way delay back (for the ACK).
    using DoneCallback = std::function<void(Time arrival, Time ackDelay)>;

    FlowNetwork(const TransportTopology& topology, const fedran::TcpFlowSettings& tcp);
    ~FlowNetwork() override;

    /// Where drop-tail ports can overflow, transfers cross them in a packet-level
    /// micro-simulation with this TCP (flow-port-episodes.cc); without it, never.
    void SetPortModel(const fedran::MicroTcpSettings& tcp)
    {
        m_micro = tcp;
        m_microOn = true;
    }
    /// Transfers that crossed a port micro-simulation so far, and its timeouts.
    uint64_t MicroTransfers() const
    {
        return m_microTransfers;
    }

    /// The links from `node` up to `root`; empty if `node` is not below `root`.
    Path PathTo(uint32_t node, uint32_t root) const;

    /// The path's hops in `direction` now (capacity, delay, loss).
    std::vector<fedran::PathHop> Hops(const Path& path, LinkDirection direction) const;
    /// Whether every link of the path can carry data now.
    bool Up(const Path& path) const;

    /**
     * Starts a TCP transfer of `payloadBytes` over `path` in `direction` on a connection whose
     * window is `*cwnd` segments (updated to the window afterwards, later at this same instant,
     * so `cwnd` must stay valid until then). After slow start's idle
     * time it becomes a flow of the wire bits, at its max-min share capped by the window and
     * the loss bound; `done` runs when its last bit has crossed. `connection` names the
     * connection (0: none), so that a port micro-simulation sends the ACK a transfer's
     * receiver owes with the data the other way. Returns its handle.
     */
    uint64_t Start(const Path& path,
                   LinkDirection direction,
                   uint64_t payloadBytes,
                   uint64_t* cwnd,
                   DoneCallback done,
                   uint32_t* ssthresh = nullptr,
                   fedran::MicroRttMemory* rtt = nullptr,
                   uint64_t connection = 0);
    /// Stops a transfer (a reset): the bits sent so far stay counted, `done` never runs.
    void Cancel(uint64_t handle);

    /// Counts a handshake's segments on the client's link.
    void CountHandshake(const Path& path);

    int64_t AssignStreams(int64_t stream);

    uint64_t DeliveredBytes(const InstalledLink* link, LinkDirection direction) const override;
    uint64_t ClientWireBytes(LinkDirection direction) const override;

  private:
    struct Transfer
    {
        Path path;
        LinkDirection direction;
        uint64_t payloadBytes = 0;
        double wireBits = 0.0;
        double capBps = 0.0;
        Time latency;
        Time ackDelay;
        DoneCallback done;
        double rtt = 0.0;
        uint64_t* cwnd = nullptr; ///< the connection's window, set when slow start is known
        uint64_t startCwnd = 0;   ///< the window when the transfer started
        double startS = 0.0;      ///< when it started
        /// The connection's slow-start threshold (segments, 0: none yet), which only a port
        /// micro-simulation reads and sets: the fluid model has no losses to set it.
        uint32_t* ssthresh = nullptr;
        fedran::MicroRttMemory* rttMemory = nullptr; ///< the connection's, if it keeps one
        uint64_t connection = 0;                     ///< 0: none named
        EventId enter;                               ///< the end of slow start's idle time
        bool inFluid = false;
        fedran::FluidNetwork::FlowId flow = 0;
        int64_t episode = -1;      ///< the episode (its port's fluid link) it is in
        uint64_t episodeBytes = 0; ///< payload handed to the micro-simulation
    };

    /// A packet-level micro-simulation of one overflowing drop-tail port and its transfers,
    /// from the moment it overflows until its last transfer is through.
    struct Episode
    {
        std::unique_ptr<fedran::PortMicroSim> sim;
        std::map<uint32_t, uint32_t> feederOf; ///< fluid link of a first hop -> its feeder
        std::vector<uint64_t> handles;         ///< per micro-simulation flow (0: cancelled)
        EventId next;
        double nextAt = 0.0;
    };

    /// The RTT sample a connection's handshake leaves (TcpSocketBase::EstimateRtt from the
    /// millisecond timestamp echo of the SYN-ACK; a zero sample counts as 1 us), on a path
    /// whose one-way propagation is `oneWayDelayS`.
    static double HandshakeSampleS(double oneWayDelayS)
    {
        return std::max(1e-6, std::round(2.0 * oneWayDelayS * 1e3) / 1e3);
    }
    static uint32_t FluidLink(uint32_t link, LinkDirection direction)
    {
        return 2 * link + (direction == LinkDirection::Downlink ? 1 : 0);
    }

    void Begin();
    void Enter(uint64_t handle);
    void CapacityChanged(uint32_t link);
    void Refresh(uint32_t link);
    void ScheduleResolve();
    void Resolve();
    void Complete();
    void CountAcks(const Transfer& transfer, double fraction);
    // flow-port-episodes.cc
    uint32_t FirstHop(const Transfer& transfer) const;
    double FeedRate(const Transfer& transfer, uint32_t port) const;
    /// The fluid links a transfer's data crosses, in the order it crosses them.
    std::vector<uint32_t> Travel(const Transfer& transfer) const;
    /// What the links after a port carry away of its flows' data: `beyond` holds each flow's
    /// links after the port (from `depth` on), in order.
    double DrainBps(const std::vector<std::vector<uint32_t>>& beyond, size_t depth) const;
    /// The slowest link any of them crosses after the port.
    double SlowestBeyond(const std::vector<std::vector<uint32_t>>& beyond) const;
    void RouteToPorts(const std::vector<uint64_t>& batch, std::vector<uint64_t>& rest);
    /// The episode whose ports include `port`, and whether it is that episode's reverse port.
    std::optional<std::pair<uint32_t, bool>> Covering(uint32_t port) const;
    /// Joins the transfer, in its slow start or starting, to an episode covering a port of its
    /// path (one still running); false if none does.
    bool JoinCoveringEpisode(uint64_t handle);
    /// `fromStart`: the transfer has sent nothing yet (its slow start was still modelled), so
    /// it enters the micro-simulation at its own start if the episode has not run past it.
    void JoinEpisode(uint32_t key,
                     bool reverse,
                     uint64_t handle,
                     uint64_t bytes,
                     uint64_t cwnd,
                     bool fromStart);
    void StepEpisode(uint32_t port);
    void ScheduleEpisode(uint32_t port);
    double Now() const;

    std::vector<TransportLink> m_links;
    std::unordered_map<const InstalledLink*, uint32_t> m_indexOf;
    std::unordered_map<uint32_t, uint32_t> m_upLinkOf; ///< node id -> the link toward its parent
    fedran::TcpFlowSettings m_tcp;
    mutable fedran::FluidNetwork m_fluid; ///< queries settle pending changes
    std::map<uint64_t, Transfer> m_transfers;
    std::unordered_map<fedran::FluidNetwork::FlowId, uint64_t> m_handleOf;
    uint64_t m_nextHandle = 1;
    std::vector<double> m_ackBytes;    ///< per fluid link: ACK, handshake and episode bytes
    std::vector<uint32_t> m_starting;  ///< per fluid link: transfers still in slow start
    std::vector<uint64_t> m_beginning; ///< transfers started at this instant
    double m_clientWire[2] = {0, 0};   ///< FL wire bytes of finished transfers, per direction
    FlowBackground m_background;       ///< after m_fluid, whose flows it adds
    EventId m_next;
    bool m_resolvePending = false;
    fedran::MicroTcpSettings m_micro;
    bool m_microOn = false;
    std::map<uint32_t, Episode> m_episodes; ///< per overflowing port (fluid link), see Covering
    uint64_t m_microTransfers = 0;
    bool m_warnedCapacity = false;
};

} // namespace ns3

#endif
