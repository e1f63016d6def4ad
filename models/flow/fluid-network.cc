#include "models/flow/fluid-network.h"

#include <algorithm>
#include <queue>
#include <stdexcept>

namespace fedran
{

namespace
{

/// Progressive filling's candidates: a link's fair share of what it has left.
struct Share
{
    double share;
    FluidNetwork::LinkId link;
    uint32_t version;
    bool operator>(const Share& o) const
    {
        return share > o.share || (share == o.share && link > o.link);
    }
};

} // namespace

FluidNetwork::LinkId
FluidNetwork::AddLink(double capacityBps)
{
    Link link;
    link.capacity = std::max(0.0, capacityBps);
    m_links.push_back(std::move(link));
    return static_cast<LinkId>(m_links.size() - 1);
}

void
FluidNetwork::Touch(LinkId link, double nowS)
{
    if (link >= m_links.size())
    {
        throw std::out_of_range("FluidNetwork: no link " + std::to_string(link));
    }
    // Rates hold between changes: changes at a later instant first settle the earlier ones.
    if (!m_dirty.empty() && nowS > m_dirtyTime)
    {
        Update();
    }
    if (m_dirty.empty())
    {
        m_dirtyTime = nowS;
    }
    m_dirty.push_back(link);
}

void
FluidNetwork::SetCapacity(LinkId link, double capacityBps, double nowS)
{
    capacityBps = std::max(0.0, capacityBps);
    if (link < m_links.size() && m_links[link].capacity == capacityBps)
    {
        return;
    }
    Touch(link, nowS);
    m_links[link].capacity = capacityBps;
}

FluidNetwork::FlowId
FluidNetwork::NewFlow()
{
    FlowId id;
    if (!m_free.empty())
    {
        id = m_free.back();
        m_free.pop_back();
    }
    else
    {
        id = static_cast<FlowId>(m_flows.size());
        m_flows.emplace_back();
    }
    Flow& flow = m_flows[id];
    const uint32_t version = flow.version + 1;
    flow = Flow();
    flow.version = version;
    flow.alive = true;
    ++m_active;
    return id;
}

FluidNetwork::FlowId
FluidNetwork::AddFlow(const std::vector<LinkId>& path, double bits, double capBps, double nowS)
{
    if (path.empty())
    {
        throw std::invalid_argument("FluidNetwork: a flow needs at least one link");
    }
    for (LinkId link : path)
    {
        Touch(link, nowS);
    }
    const FlowId id = NewFlow();
    Flow& flow = m_flows[id];
    flow.path = path;
    flow.remaining = std::max(0.0, bits);
    flow.cap = capBps > 0.0 ? capBps : 0.0;
    flow.since = nowS;
    for (LinkId link : path)
    {
        flow.slot.push_back(static_cast<uint32_t>(m_links[link].flows.size()));
        m_links[link].flows.push_back(id);
    }
    return id;
}

FluidNetwork::FlowId
FluidNetwork::AddFixedFlow(LinkId link, double rateBps, double nowS)
{
    Touch(link, nowS);
    const FlowId id = NewFlow();
    Flow& flow = m_flows[id];
    flow.fixed = true;
    flow.path = {link};
    flow.cap = std::max(0.0, rateBps);
    flow.since = nowS;
    m_links[link].fixed.push_back(id);
    return id;
}

void
FluidNetwork::SetFixedRate(FlowId id, double rateBps, double nowS)
{
    Flow& flow = m_flows.at(id);
    if (!flow.alive || !flow.fixed)
    {
        throw std::invalid_argument("FluidNetwork: SetFixedRate of a flow that is not fixed");
    }
    Touch(flow.path[0], nowS);
    flow.cap = std::max(0.0, rateBps);
}

void
FluidNetwork::RemoveFlow(FlowId id, double nowS)
{
    Flow& flow = m_flows.at(id);
    if (!flow.alive)
    {
        return;
    }
    for (LinkId link : flow.path)
    {
        Touch(link, nowS);
    }
    if (flow.fixed)
    {
        std::vector<FlowId>& fixed = m_links[flow.path[0]].fixed;
        fixed.erase(std::find(fixed.begin(), fixed.end(), id));
    }
    else
    {
        // Swap-remove from each link's list; the flow moved into the hole learns its slot.
        for (size_t i = 0; i < flow.path.size(); ++i)
        {
            std::vector<FlowId>& flows = m_links[flow.path[i]].flows;
            const uint32_t slot = flow.slot[i];
            const FlowId moved = flows.back();
            flows[slot] = moved;
            flows.pop_back();
            if (moved != id)
            {
                Flow& other = m_flows[moved];
                for (size_t j = 0; j < other.path.size(); ++j)
                {
                    if (other.path[j] == flow.path[i])
                    {
                        other.slot[j] = slot;
                    }
                }
            }
        }
    }
    flow.alive = false;
    ++flow.version;
    m_free.push_back(id);
    --m_active;
}

void
FluidNetwork::SettleLink(Link& link, double nowS)
{
    const double dt = nowS - link.since;
    if (dt > 0.0)
    {
        link.carried += link.load * dt;
        link.fixedCarried += link.fixedLoad * dt;
    }
    link.since = nowS;
}

void
FluidNetwork::SettleFlow(Flow& flow, double nowS)
{
    const double dt = nowS - flow.since;
    if (dt > 0.0)
    {
        flow.remaining = std::max(0.0, flow.remaining - flow.rate * dt);
    }
    flow.since = nowS;
}

void
FluidNetwork::Update()
{
    if (m_dirty.empty())
    {
        return;
    }
    const double now = m_dirtyTime;
    // The links and flows a change can reach through shared links; nothing else moves.
    ++m_epoch;
    std::vector<LinkId> links;
    std::vector<FlowId> flows;
    std::vector<LinkId> stack;
    for (LinkId link : m_dirty)
    {
        if (m_links[link].mark != m_epoch)
        {
            m_links[link].mark = m_epoch;
            stack.push_back(link);
        }
    }
    m_dirty.clear();
    while (!stack.empty())
    {
        const LinkId l = stack.back();
        stack.pop_back();
        links.push_back(l);
        for (FlowId f : m_links[l].flows)
        {
            Flow& flow = m_flows[f];
            if (flow.mark == m_epoch)
            {
                continue;
            }
            flow.mark = m_epoch;
            flows.push_back(f);
            for (LinkId next : flow.path)
            {
                if (m_links[next].mark != m_epoch)
                {
                    m_links[next].mark = m_epoch;
                    stack.push_back(next);
                }
            }
        }
    }
    // Sorted, so that the result does not depend on the order the changes came in.
    std::sort(links.begin(), links.end());
    std::sort(flows.begin(), flows.end());
    for (LinkId l : links)
    {
        SettleLink(m_links[l], now);
    }
    for (FlowId f : flows)
    {
        SettleFlow(m_flows[f], now);
    }
    Fill(links, flows);
    if (m_completions.Size() > 4 * m_active + 64)
    {
        CompactCompletions();
    }
}

void
FluidNetwork::Fill(const std::vector<LinkId>& links, const std::vector<FlowId>& flows)
{
    std::priority_queue<Share, std::vector<Share>, std::greater<Share>> shares;
    for (LinkId l : links)
    {
        Link& link = m_links[l];
        // Fixed flows take their rate first (scaled down together if they exceed the link).
        double wanted = 0.0;
        for (FlowId f : link.fixed)
        {
            wanted += m_flows[f].cap;
        }
        const double scale = wanted > link.capacity && wanted > 0.0 ? link.capacity / wanted : 1.0;
        link.fixedLoad = 0.0;
        for (FlowId f : link.fixed)
        {
            m_flows[f].rate = m_flows[f].cap * scale;
            link.fixedLoad += m_flows[f].rate;
        }
        link.residual = std::max(0.0, link.capacity - link.fixedLoad);
        link.unfrozen = static_cast<uint32_t>(link.flows.size());
        ++link.version;
        if (link.unfrozen > 0)
        {
            shares.push({link.residual / link.unfrozen, l, link.version});
        }
    }
    // Flows limited by their own cap (window, loss) freeze at it when the level reaches it.
    std::vector<std::pair<double, FlowId>> caps;
    for (FlowId f : flows)
    {
        m_flows[f].frozen = false;
        if (m_flows[f].cap < kUnlimited)
        {
            caps.emplace_back(m_flows[f].cap, f);
        }
    }
    std::sort(caps.begin(), caps.end());
    size_t nextCap = 0;
    size_t frozen = 0;
    auto freeze = [&](FlowId f, double rate) {
        Flow& flow = m_flows[f];
        flow.frozen = true;
        ++frozen;
        SetRate(f, rate);
        for (LinkId l : flow.path)
        {
            Link& link = m_links[l];
            link.residual = std::max(0.0, link.residual - rate);
            --link.unfrozen;
            ++link.version;
            if (link.unfrozen > 0)
            {
                shares.push({link.residual / link.unfrozen, l, link.version});
            }
        }
    };
    while (frozen < flows.size())
    {
        while (!shares.empty() && (shares.top().version != m_links[shares.top().link].version ||
                                   m_links[shares.top().link].unfrozen == 0))
        {
            shares.pop();
        }
        while (nextCap < caps.size() && m_flows[caps[nextCap].second].frozen)
        {
            ++nextCap;
        }
        const double linkShare = shares.empty() ? kUnlimited : shares.top().share;
        const double capShare = nextCap < caps.size() ? caps[nextCap].first : kUnlimited;
        if (shares.empty() && nextCap >= caps.size())
        {
            break; // cannot happen: every unfrozen flow has a link with unfrozen flows
        }
        if (capShare <= linkShare)
        {
            freeze(caps[nextCap++].second, capShare);
            continue;
        }
        // The bottleneck: every flow still rising through it gets its share, as equal shares.
        const LinkId l = shares.top().link;
        shares.pop();
        const double share = linkShare;
        for (FlowId f : std::vector<FlowId>(m_links[l].flows))
        {
            if (!m_flows[f].frozen)
            {
                freeze(f, share);
            }
        }
    }
    for (LinkId l : links)
    {
        Link& link = m_links[l];
        double load = link.fixedLoad;
        for (FlowId f : link.flows)
        {
            load += m_flows[f].rate;
        }
        link.load = load;
    }
}

void
FluidNetwork::SetRate(FlowId id, double rate)
{
    Flow& flow = m_flows[id];
    ++m_assignments;
    if (rate == flow.rate)
    {
        return; // the completion already queued (settling keeps since + remaining / rate)
    }
    flow.rate = rate;
    ++flow.version;
    PushCompletion(id);
}

void
FluidNetwork::PushCompletion(FlowId id)
{
    const Flow& flow = m_flows[id];
    if (flow.alive && !flow.fixed && flow.rate > 0.0)
    {
        m_completions.Push(flow.since + flow.remaining / flow.rate, id, flow.version);
    }
}

void
FluidNetwork::CompactCompletions()
{
    m_completions.Clear();
    for (FlowId f = 0; f < m_flows.size(); ++f)
    {
        PushCompletion(f);
    }
}

double
FluidNetwork::Rate(FlowId flow)
{
    Update();
    return m_flows.at(flow).rate;
}

double
FluidNetwork::RemainingBits(FlowId id, double nowS)
{
    Update();
    const Flow& flow = m_flows.at(id);
    return std::max(0.0, flow.remaining - flow.rate * std::max(0.0, nowS - flow.since));
}

std::optional<std::pair<double, FluidNetwork::FlowId>>
FluidNetwork::NextCompletion()
{
    Update();
    return m_completions.Next([this](FlowId id, uint32_t version) {
        const Flow& flow = m_flows[id];
        return flow.alive && flow.version == version;
    });
}

double
FluidNetwork::Load(LinkId link)
{
    Update();
    return m_links.at(link).load;
}

double
FluidNetwork::CarriedBits(LinkId id, double nowS)
{
    Update();
    const Link& link = m_links.at(id);
    return link.carried + link.load * std::max(0.0, nowS - link.since);
}

double
FluidNetwork::FixedCarriedBits(LinkId id, double nowS)
{
    Update();
    const Link& link = m_links.at(id);
    return link.fixedCarried + link.fixedLoad * std::max(0.0, nowS - link.since);
}

} // namespace fedran
