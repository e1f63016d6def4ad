#include "models/ns3/model/flow-network.h"

#include <ns3/abort.h>
#include <ns3/log.h>
#include <ns3/simulator.h>

#include <algorithm>
#include <cmath>
#include <iostream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowNetwork");

FlowNetwork::FlowNetwork(const TransportTopology& topology, const fedran::TcpFlowSettings& tcp)
    : m_links(topology.links)
    , m_tcp(tcp)
    , m_background(m_fluid, [this]() { ScheduleResolve(); })
{
    for (uint32_t i = 0; i < m_links.size(); ++i)
    {
        const TransportLink& link = m_links[i];
        // The scenario reader refuses such links first (link-types.h, statesDelayAndLoss);
        // this is for programs that build a topology themselves.
        NS_ABORT_MSG_UNLESS(link.link->DelayS(LinkDirection::Uplink) &&
                                link.link->LossOf(LinkDirection::Uplink, 1),
                            "flow transport: the link from node "
                                << link.child << " to node " << link.parent
                                << " cannot state its delay and loss; its model needs "
                                   "the packet-level transport (\"tcp\")");
        m_indexOf[link.link] = i;
        m_upLinkOf[link.child] = i;
        m_fluid.AddLink(static_cast<double>(link.link->AvailableBpsOf(LinkDirection::Uplink)));
        m_fluid.AddLink(static_cast<double>(link.link->AvailableBpsOf(LinkDirection::Downlink)));
        link.link->ConnectCapacityChanged(
            Callback<void>(MakeCallback(&FlowNetwork::CapacityChanged, this).Bind(i)));
        // faults.link_outages / server_outages: capacity 0 both ways while out.
        link.link->ConnectOutageChanged(
            Callback<void>(MakeCallback(&FlowNetwork::CapacityChanged, this).Bind(i)));
        m_background.Add(link,
                         FluidLink(i, LinkDirection::Uplink),
                         FluidLink(i, LinkDirection::Downlink));
    }
    m_ackBytes.assign(m_fluid.LinkCount(), 0.0);
    m_starting.assign(m_fluid.LinkCount(), 0);
    if (!m_background.Empty())
    {
        Simulator::ScheduleNow(&FlowBackground::Start, &m_background);
    }
}

FlowNetwork::~FlowNetwork()
{
    m_next.Cancel();
    for (auto& [handle, transfer] : m_transfers)
    {
        transfer.enter.Cancel();
    }
    for (auto& [port, episode] : m_episodes)
    {
        episode.next.Cancel();
    }
}

double
FlowNetwork::Now() const
{
    return Simulator::Now().GetSeconds();
}

int64_t
FlowNetwork::AssignStreams(int64_t stream)
{
    // Three per source, as the packet-level BackgroundSource uses.
    return m_background.AssignStreams(stream);
}

FlowNetwork::Path
FlowNetwork::PathTo(uint32_t node, uint32_t root) const
{
    Path path;
    while (node != root)
    {
        auto it = m_upLinkOf.find(node);
        if (it == m_upLinkOf.end() || path.size() > m_links.size())
        {
            return {};
        }
        path.push_back(it->second);
        node = m_links[it->second].parent;
    }
    return path;
}

std::vector<fedran::PathHop>
FlowNetwork::Hops(const Path& path, LinkDirection direction) const
{
    std::vector<fedran::PathHop> hops;
    hops.reserve(path.size());
    const uint32_t segment = m_tcp.mss + m_tcp.headerBytes;
    for (uint32_t l : path)
    {
        const TransportLink& link = m_links[l];
        fedran::PathHop hop;
        hop.capacityBps = static_cast<double>(link.link->AvailableBpsOf(direction));
        hop.delayS = *link.link->DelayS(direction);
        // An outage shows as every packet lost; its capacity 0 says it already.
        hop.loss = hop.capacityBps > 0.0 ? *link.link->LossOf(direction, segment) : 0.0;
        hops.push_back(hop);
    }
    return hops;
}

bool
FlowNetwork::Up(const Path& path) const
{
    // A handshake needs both directions.
    return std::all_of(path.begin(), path.end(), [this](uint32_t l) {
        return m_links[l].link->AvailableBpsOf(LinkDirection::Uplink) > 0 &&
               m_links[l].link->AvailableBpsOf(LinkDirection::Downlink) > 0;
    });
}

void
FlowNetwork::Refresh(uint32_t l)
{
    for (LinkDirection direction : {LinkDirection::Uplink, LinkDirection::Downlink})
    {
        m_fluid.SetCapacity(FluidLink(l, direction),
                            static_cast<double>(m_links[l].link->AvailableBpsOf(direction)),
                            Now());
    }
}

void
FlowNetwork::CapacityChanged(uint32_t l)
{
    Refresh(l);
    ScheduleResolve();
    if (!m_warnedCapacity && (m_episodes.count(FluidLink(l, LinkDirection::Uplink)) != 0 ||
                              m_episodes.count(FluidLink(l, LinkDirection::Downlink)) != 0))
    {
        m_warnedCapacity = true;
        std::cerr << "fedran: flow transport: the capacity of a link changed while a port "
                     "micro-simulation ran on it; it keeps the rate it started with "
                     "(docs/flow-validation.md)\n";
    }
}

uint64_t
FlowNetwork::Start(const Path& path,
                   LinkDirection direction,
                   uint64_t payloadBytes,
                   uint64_t* cwnd,
                   DoneCallback done,
                   uint32_t* ssthresh,
                   fedran::MicroRttMemory* rttMemory,
                   uint64_t connection)
{
    // Capacities are read again at every start: models without change notifications (lte)
    // are current where a flow begins.
    for (uint32_t l : path)
    {
        Refresh(l);
    }
    const std::vector<fedran::PathHop> hops = Hops(path, direction);
    const double rtt = fedran::PathRttS(hops, m_tcp);
    const double loss = fedran::PathLoss(hops);
    Transfer transfer;
    transfer.path = path;
    transfer.direction = direction;
    transfer.payloadBytes = payloadBytes;
    // Lost segments are sent again: the wire carries 1 / (1 - p) of the data.
    transfer.wireBits =
        fedran::DataWireBytes(payloadBytes, m_tcp) * 8.0 / std::max(1e-6, 1.0 - loss);
    transfer.capBps = fedran::RateCapBps(rtt, loss, m_tcp);
    transfer.latency = Seconds(fedran::PathLatencyS(hops, m_tcp, payloadBytes));
    double back = 0.0;
    for (const fedran::PathHop& hop : hops)
    {
        back += hop.delayS;
    }
    transfer.ackDelay = Seconds(back);
    transfer.done = std::move(done);
    transfer.rtt = rtt;
    transfer.cwnd = cwnd;
    transfer.startCwnd = *cwnd;
    transfer.startS = Now();
    transfer.ssthresh = ssthresh;
    transfer.rttMemory = rttMemory;
    transfer.connection = connection;
    for (uint32_t l : path)
    {
        ++m_starting[FluidLink(l, direction)];
    }
    const uint64_t handle = m_nextHandle++;
    m_transfers.emplace(handle, std::move(transfer));
    // Transfers starting at one instant (a round's downloads) see each other's slow start.
    m_beginning.push_back(handle);
    if (m_beginning.size() == 1)
    {
        Simulator::ScheduleNow(&FlowNetwork::Begin, this);
    }
    return handle;
}

void
FlowNetwork::Begin()
{
    const std::vector<uint64_t> batch = std::move(m_beginning);
    m_beginning.clear();
    // Those that cross an overflowing drop-tail port go to its micro-simulation.
    std::vector<uint64_t> handles;
    RouteToPorts(batch, handles);
    for (uint64_t handle : handles)
    {
        auto it = m_transfers.find(handle);
        if (it == m_transfers.end())
        {
            continue; // cancelled at once
        }
        Transfer& transfer = it->second;
        // Slow start at the share the flow would get now: the tightest link's capacity split
        // with the flows already on it and those in their own slow start.
        double share = transfer.capBps;
        for (uint32_t l : transfer.path)
        {
            const uint32_t f = FluidLink(l, transfer.direction);
            share =
                std::min(share, m_fluid.Capacity(f) / (m_fluid.ElasticFlows(f) + m_starting[f]));
        }
        const fedran::SlowStartResult ss =
            fedran::SlowStart(transfer.payloadBytes, share, transfer.rtt, *transfer.cwnd, m_tcp);
        *transfer.cwnd = ss.cwndAfter;
        transfer.enter = Simulator::Schedule(Seconds(ss.idleS), &FlowNetwork::Enter, this, handle);
    }
}

void
FlowNetwork::Enter(uint64_t handle)
{
    Transfer& transfer = m_transfers.at(handle);
    if (JoinCoveringEpisode(handle))
    {
        return; // a port that began to overflow during its slow start
    }
    std::vector<fedran::FluidNetwork::LinkId> links;
    for (uint32_t l : transfer.path)
    {
        links.push_back(FluidLink(l, transfer.direction));
        --m_starting[links.back()];
    }
    transfer.flow = m_fluid.AddFlow(links, transfer.wireBits, transfer.capBps, Now());
    transfer.inFluid = true;
    m_handleOf[transfer.flow] = handle;
    ScheduleResolve();
}

void
FlowNetwork::Cancel(uint64_t handle)
{
    auto it = m_transfers.find(handle);
    if (it == m_transfers.end())
    {
        return;
    }
    Transfer& transfer = it->second;
    transfer.enter.Cancel();
    if (transfer.episode >= 0)
    {
        // Its packets already sent still cross the port; its finish is ignored.
        Episode& episode = m_episodes.at(static_cast<uint32_t>(transfer.episode));
        std::replace(episode.handles.begin(), episode.handles.end(), handle, uint64_t{0});
        m_transfers.erase(it);
        return;
    }
    if (!transfer.inFluid)
    {
        for (uint32_t l : transfer.path)
        {
            --m_starting[FluidLink(l, transfer.direction)];
        }
    }
    if (transfer.inFluid)
    {
        const double sent = transfer.wireBits - m_fluid.RemainingBits(transfer.flow, Now());
        m_clientWire[transfer.direction == LinkDirection::Uplink ? 0 : 1] += sent / 8.0;
        CountAcks(transfer, transfer.wireBits > 0 ? sent / transfer.wireBits : 0.0);
        m_fluid.RemoveFlow(transfer.flow, Now());
        m_handleOf.erase(transfer.flow);
        ScheduleResolve();
    }
    m_transfers.erase(it);
}

void
FlowNetwork::ScheduleResolve()
{
    // Changes made at one instant (a round's downloads) share one recomputation.
    if (!m_resolvePending)
    {
        m_resolvePending = true;
        Simulator::ScheduleNow(&FlowNetwork::Resolve, this);
    }
}

void
FlowNetwork::Resolve()
{
    m_resolvePending = false;
    const auto next = m_fluid.NextCompletion();
    m_next.Cancel();
    if (!next)
    {
        return;
    }
    // Rounded up to ns-3's nanosecond clock, so that the flow is done when the event runs.
    const double delay = std::max(0.0, next->first - Now());
    m_next = Simulator::Schedule(NanoSeconds(static_cast<int64_t>(std::ceil(delay * 1e9))),
                                 &FlowNetwork::Complete,
                                 this);
}

void
FlowNetwork::Complete()
{
    const double now = Now();
    // Every flow due by now (a nanosecond of rounding allowed) ends in this event.
    std::vector<uint64_t> finished;
    while (true)
    {
        const auto next = m_fluid.NextCompletion();
        if (!next || next->first > now + 1e-9)
        {
            break;
        }
        const uint64_t handle = m_handleOf.at(next->second);
        m_fluid.RemoveFlow(next->second, now);
        m_handleOf.erase(next->second);
        finished.push_back(handle);
    }
    for (uint64_t handle : finished)
    {
        auto it = m_transfers.find(handle);
        Transfer transfer = std::move(it->second);
        m_transfers.erase(it);
        m_clientWire[transfer.direction == LinkDirection::Uplink ? 0 : 1] +=
            transfer.wireBits / 8.0;
        CountAcks(transfer, 1.0);
        // ns-3's CUBIC takes its minimum delay from the RTT estimate at every ACK of data its
        // socket sent (TcpCubic::PktsAcked with m_lastRtt), the first message's included: a
        // message the fluid carried leaves the estimate it found, the handshake's sample on a
        // connection's first, for the next message through a port.
        fedran::MicroRttMemory* memory = transfer.rttMemory;
        if (memory != nullptr && memory->minRttS == 0.0F)
        {
            memory->minRttS =
                memory->srttS > 0.0F
                    ? memory->srttS
                    : static_cast<float>(HandshakeSampleS(transfer.ackDelay.GetSeconds()));
        }
        transfer.done(Simulator::Now() + transfer.latency, transfer.ackDelay);
    }
    ScheduleResolve();
}

} // namespace ns3
