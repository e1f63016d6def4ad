// FlowNetwork at ports that overflow or order: the transfers crossing such a port leave the
// fluid model for a packet-level micro-simulation of that port (models/flow/port-micro-sim.h)
// until the last of them is through. docs/flow-validation.md measures it against ns-3.
//
// What is decided here, and the approximations (each in docs/flow-validation.md):
// - A port is a drop-tail FIFO the topology states at the sending end of a link's uplink or
//   downlink (TransportLink::upDropTailPackets, downDropTailPackets).
//   When transfers start, each such port their paths cross is tested with PortCanOverflow
//   over the transfers starting and those already on it (two at least). A port that can overflow
//   starts an episode: the starting transfers, those in the fluid on it (with the bytes they have
//   left and the window they reached) and those still in their modelled slow start join it.
// - The server's own queue where it sends the downlink (TransportLink::downHostQueuePackets)
//   never overflows, but ns-3's TCP pushes each window into it: where the server's link is
//   the downloads' bottleneck (PortQueuesAsBottleneck, and no download slower after it than
//   its share there) it starts an episode too, and the downloads leave in its FIFO's order.
// - The same link's other direction, if it is a drop-tail port too, is the episode's reverse
//   port: the episode's ACKs cross it, behind the data of the transfers sent that way, which
//   join the episode there, and are lost when it is full (hub-30's late downloads in ns-3).
// - While an episode runs, every transfer whose path crosses one of its ports joins it when
//   it starts: it meets the queue the others built, as in ns-3.
// - A transfer in an episode is not in the fluid model: its load on the other links of its
//   path is not seen by the fluid flows there, and the episode does not see theirs; capacity
//   changes of the port or the feeders during an episode are not applied to it (stderr says
//   so once per run).

#include "models/flow/port-trigger.h"
#include "models/ns3/model/flow-network.h"

#include <ns3/simulator.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <set>
#include <utility>

namespace ns3
{

uint32_t
FlowNetwork::FirstHop(const Transfer& transfer) const
{
    // Paths run from the client up to the server: an upload's first hop is the client's
    // link, a download's the link at the server's end.
    const uint32_t l =
        transfer.direction == LinkDirection::Uplink ? transfer.path.front() : transfer.path.back();
    return FluidLink(l, transfer.direction);
}

double
FlowNetwork::FeedRate(const Transfer& transfer, uint32_t port) const
{
    // The fastest a flow's packets can reach the port: the slowest hop before it (0 if the
    // port is the first hop: the host's queue feeds it directly).
    double rate = std::numeric_limits<double>::infinity();
    uint32_t slowest = port;
    const size_t n = transfer.path.size();
    for (size_t k = 0; k < n; ++k)
    {
        const size_t i = transfer.direction == LinkDirection::Uplink ? k : n - 1 - k;
        const uint32_t f = FluidLink(transfer.path[i], transfer.direction);
        if (f == port)
        {
            break;
        }
        if (m_fluid.Capacity(f) < rate)
        {
            rate = m_fluid.Capacity(f);
            slowest = f;
        }
    }
    if (!std::isfinite(rate))
    {
        return 0.0;
    }
    if (transfer.direction == LinkDirection::Downlink)
    {
        // A download port is fed by the server's queue (an end host's, which never drops) and
        // the router ports above it, which also carry downloads to other ports. Their packets
        // leave the slowest hop before the port interleaved with this port's, so the port's
        // flows get the share of that hop that their number is of the transfers crossing it
        // (in a tree every download through the port crosses it; an uplink's hops before its
        // port carry only flows that cross the port too).
        uint64_t onHop = 0;
        uint64_t onPort = 0;
        for (const auto& [handle, t] : m_transfers)
        {
            if (t.direction != LinkDirection::Downlink)
            {
                continue;
            }
            bool hop = false;
            bool crosses = false;
            for (uint32_t l : t.path)
            {
                hop = hop || FluidLink(l, t.direction) == slowest;
                crosses = crosses || FluidLink(l, t.direction) == port;
            }
            onHop += hop ? 1 : 0;
            onPort += hop && crosses ? 1 : 0;
        }
        if (onHop > 0 && onPort < onHop)
        {
            rate *= static_cast<double>(std::max<uint64_t>(1, onPort)) / static_cast<double>(onHop);
        }
    }
    return rate;
}

std::vector<uint32_t>
FlowNetwork::Travel(const Transfer& transfer) const
{
    // Paths run from the client up to the server.
    std::vector<uint32_t> travel;
    for (uint32_t l : transfer.path)
    {
        travel.push_back(FluidLink(l, transfer.direction));
    }
    if (transfer.direction == LinkDirection::Downlink)
    {
        std::reverse(travel.begin(), travel.end());
    }
    return travel;
}

double
FlowNetwork::DrainBps(const std::vector<std::vector<uint32_t>>& beyond, size_t depth) const
{
    // In a tree the paths branch after the port: per next link, the lesser of its capacity
    // and what its branches carry. A path that ends there carries anything.
    std::map<uint32_t, std::vector<std::vector<uint32_t>>> next;
    for (const std::vector<uint32_t>& path : beyond)
    {
        if (depth >= path.size())
        {
            return std::numeric_limits<double>::infinity();
        }
        next[path[depth]].push_back(path);
    }
    double bps = 0.0;
    for (const auto& [link, paths] : next)
    {
        bps += std::min(m_fluid.Capacity(link), DrainBps(paths, depth + 1));
    }
    return bps;
}

double
FlowNetwork::SlowestBeyond(const std::vector<std::vector<uint32_t>>& beyond) const
{
    double bps = std::numeric_limits<double>::infinity();
    for (const std::vector<uint32_t>& path : beyond)
    {
        for (uint32_t f : path)
        {
            bps = std::min(bps, m_fluid.Capacity(f));
        }
    }
    return bps;
}

void
FlowNetwork::RouteToPorts(const std::vector<uint64_t>& batch, std::vector<uint64_t>& rest)
{
    if (!m_microOn)
    {
        rest = batch;
        return;
    }
    const uint32_t mss = m_micro.mss;
    auto windowOf = [&](uint64_t payloadBytes) {
        return std::min<uint64_t>((payloadBytes + mss - 1) / mss, m_micro.maxWindow);
    };
    // Uplink ports (a site's or a hub's port toward the server) and download ports (a router's
    // or hub's port toward a site or hub), as the topology states them. An uplink port's flows
    // are fed by their sites' links; a download port's by the server's queue at its share of
    // the slowest hop above the port (FeedRate).
    auto dropTail = [&](uint32_t f) {
        return f % 2 == 0 ? m_links[f / 2].upDropTailPackets : m_links[f / 2].downDropTailPackets;
    };
    // The server's own queue where it sends the downlink: it never overflows, but it is a FIFO.
    auto hostQueue = [&](uint32_t f) {
        return f % 2 == 0 ? 0U : m_links[f / 2].downHostQueuePackets;
    };
    auto buffer = [&](uint32_t f) {
        return dropTail(f) > 0 ? dropTail(f) : hostQueue(f);
    };
    struct Load
    {
        std::map<uint32_t, double> feeders;
        uint32_t flows = 0;
        uint64_t windows = 0;
        double rtt = std::numeric_limits<double>::infinity();
        /// Per flow, the links its data crosses after the port, in order (the server's
        /// queue only).
        std::vector<std::vector<uint32_t>> beyond;
    };
    std::map<uint32_t, Load> loads;
    std::map<std::pair<uint32_t, uint32_t>, double> feedOf;
    std::set<uint64_t> pending;
    auto add = [&](const Transfer& t, uint64_t payloadBytes) {
        const std::vector<uint32_t> travel = Travel(t);
        for (size_t k = 0; k < travel.size(); ++k)
        {
            const uint32_t f = travel[k];
            if (buffer(f) == 0)
            {
                continue;
            }
            Load& load = loads[f];
            if (dropTail(f) == 0)
            {
                // Only the server's queue asks what the links after it drain.
                load.beyond.emplace_back(travel.begin() + k + 1, travel.end());
            }
            const uint32_t first = FirstHop(t);
            // Every download of a port shares one feeder (the server's link), whose rate
            // counts the transfers on it: computed once per port and host.
            auto cached = feedOf.find({first, f});
            const double feed =
                cached != feedOf.end()
                    ? cached->second
                    : feedOf.emplace(std::make_pair(first, f), FeedRate(t, f)).first->second;
            // A host queue that feeds the port directly can send as fast as it likes.
            load.feeders[first] = feed > 0.0 ? feed : std::numeric_limits<double>::max();
            load.windows += windowOf(payloadBytes);
            ++load.flows;
            load.rtt = std::min(load.rtt, t.rtt);
        }
    };
    for (uint64_t handle : batch)
    {
        auto it = m_transfers.find(handle);
        if (it == m_transfers.end())
        {
            continue; // cancelled at once
        }
        Transfer& t = it->second;
        if (!JoinCoveringEpisode(handle))
        {
            pending.insert(handle);
            add(t, t.payloadBytes);
        }
    }
    if (loads.empty())
    {
        rest.assign(pending.begin(), pending.end());
        return;
    }
    // Transfers already under way on those ports count too.
    for (const auto& [handle, t] : m_transfers)
    {
        if (pending.count(handle) != 0 || t.episode >= 0)
        {
            continue;
        }
        bool crosses = false;
        for (uint32_t l : t.path)
        {
            crosses = crosses || loads.count(FluidLink(l, t.direction)) != 0;
        }
        if (!crosses)
        {
            continue;
        }
        double left = 1.0;
        if (t.inFluid && t.wireBits > 0.0)
        {
            left = m_fluid.RemainingBits(t.flow, Now()) / t.wireBits;
        }
        add(t, static_cast<uint64_t>(std::ceil(left * t.payloadBytes)));
    }
    std::vector<uint32_t> ports;
    for (const auto& [f, load] : loads)
    {
        double feederBps = 0.0;
        for (const auto& [feeder, rate] : load.feeders)
        {
            feederBps += rate;
        }
        // Incast needs two flows at least: one flow alone keeps the fluid model, validated
        // alone on a hop (shared-hop-1; docs/flow-validation.md).
        const bool overflows = dropTail(f) > 0 && fedran::PortCanOverflow(m_fluid.Capacity(f),
                                                                          buffer(f),
                                                                          load.rtt,
                                                                          feederBps,
                                                                          load.windows,
                                                                          m_micro);
        // The server's queue orders its downloads where its link is their bottleneck: for
        // all of them together, and for each (its fair share there is below the slowest link
        // after it, which the episode would not see).
        const double share = m_fluid.Capacity(f) / load.flows;
        const bool orders = dropTail(f) == 0 && SlowestBeyond(load.beyond) >= share &&
                            fedran::PortQueuesAsBottleneck(m_fluid.Capacity(f),
                                                           load.rtt,
                                                           DrainBps(load.beyond, 0),
                                                           load.windows,
                                                           m_micro);
        if (load.flows >= 2 && (overflows || orders))
        {
            ports.push_back(f);
        }
    }
    if (ports.empty())
    {
        rest.assign(pending.begin(), pending.end());
        return;
    }
    // One episode per link: a port whose link's other direction has one already joins it as
    // its reverse port, where the episode's ACKs queue (and may be lost) behind its data.
    std::map<uint32_t, std::pair<uint32_t, bool>> newPorts; // port -> (episode, reverse)
    for (uint32_t f : ports)
    {
        if (m_episodes.count(f ^ 1U) != 0)
        {
            continue; // made in this loop with f as its reverse port
        }
        Episode& episode = m_episodes[f];
        episode.sim =
            std::make_unique<fedran::PortMicroSim>(m_fluid.Capacity(f), buffer(f), m_micro);
        newPorts[f] = {f, false};
        if (dropTail(f ^ 1U) > 0)
        {
            episode.sim->AddReversePort(m_fluid.Capacity(f ^ 1U), dropTail(f ^ 1U));
            newPorts[f ^ 1U] = {f, true};
        }
    }
    // Every transfer crossing a new episode's ports joins it (at its slowest such port), in
    // the order their packets start: one still in its modelled slow start from its own start,
    // one in the fluid from now.
    struct Join
    {
        double start;
        uint64_t handle;
        uint32_t key;
        bool reverse;
        uint64_t bytes;
        uint64_t cwnd;
        bool fromStart;
    };
    std::vector<Join> joins;
    for (auto& [handle, t] : m_transfers)
    {
        if (t.episode >= 0)
        {
            continue;
        }
        int64_t port = -1;
        for (uint32_t l : t.path)
        {
            const uint32_t f = FluidLink(l, t.direction);
            if (newPorts.count(f) != 0 &&
                (port < 0 || m_fluid.Capacity(f) < m_fluid.Capacity(static_cast<uint32_t>(port))))
            {
                port = f;
            }
        }
        if (port < 0)
        {
            continue;
        }
        const auto [key, reverse] = newPorts.at(static_cast<uint32_t>(port));
        if (t.inFluid)
        {
            // What it sent in the fluid stays counted there; the rest crosses the port.
            const double remaining = m_fluid.RemainingBits(t.flow, Now());
            const double sent = t.wireBits - remaining;
            m_clientWire[t.direction == LinkDirection::Uplink ? 0 : 1] += sent / 8.0;
            CountAcks(t, t.wireBits > 0 ? sent / t.wireBits : 0.0);
            m_fluid.RemoveFlow(t.flow, Now());
            m_handleOf.erase(t.flow);
            t.inFluid = false;
            const uint64_t left = static_cast<uint64_t>(
                std::ceil(remaining / std::max(1.0, t.wireBits) * t.payloadBytes));
            // The window it reached: slow start adds a segment per segment acknowledged, from
            // the window it started with (*t.cwnd already holds the one at its end).
            const uint64_t sentSegments = static_cast<uint64_t>(
                std::floor(sent / std::max(1.0, t.wireBits) *
                           static_cast<double>(fedran::Segments(t.payloadBytes, m_tcp))));
            joins.push_back({Now(),
                             handle,
                             key,
                             reverse,
                             std::max<uint64_t>(1, left),
                             t.startCwnd + sentSegments,
                             false});
            ScheduleResolve();
            continue;
        }
        // Starting now, or still in its modelled slow start.
        t.enter.Cancel();
        for (uint32_t l : t.path)
        {
            --m_starting[FluidLink(l, t.direction)];
        }
        pending.erase(handle);
        joins.push_back({t.startS, handle, key, reverse, t.payloadBytes, t.startCwnd, true});
    }
    std::stable_sort(joins.begin(), joins.end(), [](const Join& a, const Join& b) {
        return a.start < b.start;
    });
    for (const Join& j : joins)
    {
        JoinEpisode(j.key, j.reverse, j.handle, j.bytes, j.cwnd, j.fromStart);
    }
    rest.assign(pending.begin(), pending.end());
}

} // namespace ns3
