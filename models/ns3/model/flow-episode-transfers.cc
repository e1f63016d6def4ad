// FlowNetwork's transfers in an episode (flow-port-episodes.cc starts the episodes): how a
// transfer joins one (where its packets meet the port, what its connection's TCP brings), and
// what it takes back to its connection when the micro-simulation has it through.

#include "models/ns3/model/flow-network.h"

#include <ns3/simulator.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace ns3
{

bool
FlowNetwork::JoinCoveringEpisode(uint64_t handle)
{
    const Transfer& t = m_transfers.at(handle);
    for (uint32_t l : t.path)
    {
        const std::optional<std::pair<uint32_t, bool>> covered =
            Covering(FluidLink(l, t.direction));
        if (covered)
        {
            for (uint32_t k : t.path)
            {
                --m_starting[FluidLink(k, t.direction)];
            }
            JoinEpisode(covered->first, covered->second, handle, t.payloadBytes, t.startCwnd, true);
            return true;
        }
    }
    return false;
}

std::optional<std::pair<uint32_t, bool>>
FlowNetwork::Covering(uint32_t port) const
{
    if (m_episodes.count(port) != 0)
    {
        return std::make_pair(port, false);
    }
    const auto other = m_episodes.find(port ^ 1U);
    if (other != m_episodes.end() && other->second.sim->HasReversePort())
    {
        return std::make_pair(port ^ 1U, true);
    }
    return std::nullopt;
}

void
FlowNetwork::JoinEpisode(uint32_t key,
                         bool reverse,
                         uint64_t handle,
                         uint64_t payloadBytes,
                         uint64_t cwnd,
                         bool fromStart)
{
    Episode& episode = m_episodes.at(key);
    // The port its data crosses; its ACKs cross the link's other direction.
    const uint32_t port = reverse ? key ^ 1U : key;
    Transfer& t = m_transfers.at(handle);
    // A transfer in its modelled slow start has sent nothing yet in the fluid: in packets its
    // first window left when it started (an upload started alone 10 ms before the second has
    // its first ACKs on the way when the port begins to overflow).
    const double start = fromStart && t.startS >= episode.sim->Now() ? t.startS : Now();
    episode.sim->RunUntil(start);
    const std::vector<fedran::PathHop> hops = Hops(t.path, t.direction);
    // The hops in the order the data crosses them.
    std::vector<std::pair<uint32_t, fedran::PathHop>> travel;
    for (size_t i = 0; i < t.path.size(); ++i)
    {
        travel.emplace_back(FluidLink(t.path[i], t.direction), hops[i]);
    }
    if (t.direction == LinkDirection::Downlink)
    {
        std::reverse(travel.begin(), travel.end());
    }
    fedran::MicroFlowSpec spec;
    spec.startS = start;
    spec.payloadBytes = payloadBytes;
    bool before = true;
    for (size_t i = 0; i < travel.size(); ++i)
    {
        const auto& [f, hop] = travel[i];
        if (f == port)
        {
            before = false;
            spec.fromPortS += hop.delayS;
            continue;
        }
        // The feeder serialises at the slowest hop before the port; every other hop stores
        // and forwards (the first hop's serialisation is the feeder's when it is the slowest).
        const double secondsPerBit = i > 0 && hop.capacityBps > 0.0 ? 1.0 / hop.capacityBps : 0.0;
        if (before)
        {
            spec.toPortS += hop.delayS;
            spec.toPortSecondsPerBit += secondsPerBit;
        }
        else
        {
            if (spec.dataNextHop.id == fedran::MicroNextHop::kNone)
            {
                spec.dataNextHop = {f, spec.fromPortS, secondsPerBit};
            }
            spec.fromPortS += hop.delayS;
            spec.fromPortSecondsPerBit += secondsPerBit;
        }
    }
    for (const fedran::PathHop& hop : hops)
    {
        spec.ackDelayS += hop.delayS;
    }
    // ACKs cross the same links the other way, serialised at each one's reverse rate.
    const LinkDirection back =
        t.direction == LinkDirection::Uplink ? LinkDirection::Downlink : LinkDirection::Uplink;
    std::vector<fedran::PathHop> ackHops = Hops(t.path, back);
    for (const fedran::PathHop& hop : ackHops)
    {
        spec.ackSecondsPerBit += hop.capacityBps > 0.0 ? 1.0 / hop.capacityBps : 0.0;
    }
    spec.reverse = reverse;
    if (episode.sim->HasReversePort())
    {
        // The hops an ACK crosses before the port it queues at (the same link, the other way),
        // in the order it crosses them: from the receiver back to the sender.
        std::vector<uint32_t> ackLinks(t.path.begin(), t.path.end());
        if (back == LinkDirection::Downlink)
        {
            std::reverse(ackLinks.begin(), ackLinks.end());
            std::reverse(ackHops.begin(), ackHops.end());
        }
        size_t i = 0;
        for (; i < ackLinks.size() && ackLinks[i] != port / 2; ++i)
        {
            spec.ackToPortS += ackHops[i].delayS;
            spec.ackToPortSecondsPerBit +=
                ackHops[i].capacityBps > 0.0 ? 1.0 / ackHops[i].capacityBps : 0.0;
        }
        if (i > 0)
        {
            // The receiving host sends its ACKs through its first hop, behind its own data.
            const uint32_t ackFirst = FluidLink(ackLinks[0], back);
            auto ackFeeder = episode.feederOf.find(ackFirst);
            if (ackFeeder == episode.feederOf.end())
            {
                double rate = std::numeric_limits<double>::infinity();
                for (size_t k = 0; k < i; ++k)
                {
                    rate = std::min(rate, ackHops[k].capacityBps);
                }
                ackFeeder =
                    episode.feederOf
                        .emplace(ackFirst, episode.sim->AddFeeder(std::isfinite(rate) ? rate : 0.0))
                        .first;
            }
            spec.ackFeeder = ackFeeder->second;
        }
        if (i + 1 < ackLinks.size() && ackHops[i + 1].capacityBps > 0.0)
        {
            spec.ackNextHop = {FluidLink(ackLinks[i + 1], back),
                               ackHops[i].delayS,
                               1.0 / ackHops[i + 1].capacityBps};
        }
    }
    const uint32_t first = travel.front().first;
    auto feeder = episode.feederOf.find(first);
    if (feeder == episode.feederOf.end())
    {
        // Flows from one host through one port share the hops up to it (a tree).
        feeder = episode.feederOf.emplace(first, episode.sim->AddFeeder(FeedRate(t, port))).first;
    }
    spec.feeder = feeder->second;
    spec.cwnd = static_cast<uint32_t>(std::clamp<uint64_t>(cwnd, 1, m_micro.maxWindow));
    // The connection's RTT estimate: after its handshake alone, the one sample of an exchange
    // of small segments, which ns-3 takes from the millisecond timestamp echo (a zero sample
    // counts as 1 us); after a message through a port, what that left, and CUBIC's minimum
    // delay with it (HyStart's delay exit compares with that minimum).
    const double handshakeRtt = HandshakeSampleS(spec.ackDelayS);
    spec.srttS =
        t.rttMemory != nullptr && t.rttMemory->srttS > 0.0F ? t.rttMemory->srttS : handshakeRtt;
    spec.minRttS = t.rttMemory != nullptr ? t.rttMemory->minRttS : 0.0;
    spec.ssthresh = t.ssthresh != nullptr ? *t.ssthresh : 0;
    spec.connection = t.connection;
    const uint32_t id = episode.sim->AddFlow(spec);
    episode.handles.resize(id + 1, 0);
    episode.handles[id] = handle;
    t.episode = key;
    t.episodeBytes = payloadBytes;
    ++m_microTransfers;
    ScheduleEpisode(key);
}

void
FlowNetwork::ScheduleEpisode(uint32_t port)
{
    Episode& episode = m_episodes.at(port);
    episode.next.Cancel();
    const auto next = episode.sim->NextFinish();
    if (!next)
    {
        return;
    }
    episode.nextAt = *next;
    // Rounded up to ns-3's nanosecond clock, so that the flow is done when the event runs.
    const double delay = std::max(0.0, *next - Now());
    episode.next = Simulator::Schedule(NanoSeconds(static_cast<int64_t>(std::ceil(delay * 1e9))),
                                       &FlowNetwork::StepEpisode,
                                       this,
                                       port);
}

void
FlowNetwork::StepEpisode(uint32_t port)
{
    Episode& episode = m_episodes.at(port);
    episode.sim->RunUntil(episode.nextAt);
    std::vector<std::pair<uint64_t, fedran::MicroFlowResult>> finished;
    for (uint32_t id : episode.sim->TakeFinished())
    {
        if (episode.handles[id] != 0)
        {
            finished.emplace_back(episode.handles[id], episode.sim->Result(id));
        }
    }
    if (episode.sim->Active() == 0)
    {
        m_episodes.erase(port); // its last transfer is through: the fluid takes over again
    }
    else
    {
        ScheduleEpisode(port);
    }
    for (const auto& [handle, result] : finished)
    {
        auto it = m_transfers.find(handle);
        Transfer transfer = std::move(it->second);
        m_transfers.erase(it);
        const int d = transfer.direction == LinkDirection::Uplink ? 0 : 1;
        // Retransmissions included; every link of the path is credited with them.
        m_clientWire[d] += static_cast<double>(result.wireBytes);
        for (uint32_t l : transfer.path)
        {
            m_ackBytes[FluidLink(l, transfer.direction)] += static_cast<double>(result.wireBytes);
        }
        CountAcks(transfer,
                  static_cast<double>(transfer.episodeBytes) /
                      static_cast<double>(std::max<uint64_t>(1, transfer.payloadBytes)));
        *transfer.cwnd = std::max<uint32_t>(1, result.cwndAtFinish);
        // ns-3 keeps a connection's ssthresh between messages as it keeps its window: the
        // next message through a port starts in congestion avoidance where a loss set it.
        if (transfer.ssthresh != nullptr)
        {
            *transfer.ssthresh = result.ssthreshAtFinish;
        }
        if (transfer.rttMemory != nullptr)
        {
            transfer.rttMemory->srttS = static_cast<float>(result.srttAtFinish);
            transfer.rttMemory->minRttS = static_cast<float>(result.minRttAtFinish);
        }
        // The micro-simulation's finish is the last byte at the receiver.
        transfer.done(Simulator::Now(), transfer.ackDelay);
    }
}

} // namespace ns3
