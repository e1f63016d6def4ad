#ifndef FEDRAN_MODELS_FLOW_FLUID_NETWORK_H
#define FEDRAN_MODELS_FLOW_FLUID_NETWORK_H

// A fluid model of a network: links of a capacity, flows of a size over a path of links, each
// flow sent at its max-min fair share (progressive filling, Bertsekas and Gallager, "Data
// Networks", 6.5.2). Rates are recomputed when a flow starts or ends or a capacity changes,
// and only over the part of the network that can move: the links and flows connected to the
// change through shared links. No ns-3 here; the caller owns the clock.

#include "models/flow/completion-queue.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

namespace fedran
{

class FluidNetwork
{
  public:
    using LinkId = uint32_t;
    using FlowId = uint32_t;
    static constexpr double kUnlimited = std::numeric_limits<double>::infinity();

    /// A link of `capacityBps` (one direction of a physical link is one FluidNetwork link).
    LinkId AddLink(double capacityBps);
    size_t LinkCount() const
    {
        return m_links.size();
    }

    /// Changes a link's capacity at time `nowS` (0: the link is out, its flows stall).
    void SetCapacity(LinkId link, double capacityBps, double nowS);
    double Capacity(LinkId link) const
    {
        return m_links[link].capacity;
    }
    /// Elastic flows crossing `link` now.
    size_t ElasticFlows(LinkId link) const
    {
        return m_links[link].flows.size();
    }

    /// An elastic flow of `bits` over `path` from `nowS`, at most `capBps` (a window or loss
    /// bound). Its rate is known after the next Update.
    FlowId AddFlow(const std::vector<LinkId>& path, double bits, double capBps, double nowS);
    /// A flow that takes `rateBps` of one link for as long as it exists (background traffic:
    /// it does not back off); elastic flows share what it leaves. Never completes.
    FlowId AddFixedFlow(LinkId link, double rateBps, double nowS);
    /// Changes a fixed flow's rate (an on/off source turning on or off).
    void SetFixedRate(FlowId flow, double rateBps, double nowS);
    /// Removes a flow (completed, or aborted); its share goes to the others at the next Update.
    void RemoveFlow(FlowId flow, double nowS);

    /// Recomputes the rates the changes since the last Update affect (it runs by itself
    /// before any query, so calling it is only needed to batch changes made at one instant).
    void Update();

    double Rate(FlowId flow);
    /// Bits of `flow` not yet sent at `nowS` (no earlier than the last change).
    double RemainingBits(FlowId flow, double nowS);
    /// The elastic flow predicted to finish first and when; nullopt if none can finish (no
    /// flows, or all stalled).
    std::optional<std::pair<double, FlowId>> NextCompletion();

    /// Sum of the rates of the flows on `link` now ...
    double Load(LinkId link);
    /// ... and the bits it carried since time 0 (all flows), and the fixed flows' part.
    double CarriedBits(LinkId link, double nowS);
    double FixedCarriedBits(LinkId link, double nowS);

    size_t ActiveFlows() const
    {
        return m_active;
    }

    /// Flow rate assignments made so far (the cost of the incremental recomputations).
    uint64_t RateAssignments() const
    {
        return m_assignments;
    }

  private:
    struct Link
    {
        double capacity = 0.0;
        std::vector<FlowId> flows; ///< elastic flows crossing it
        std::vector<FlowId> fixed; ///< fixed flows on it
        double load = 0.0;         ///< sum of rates now
        double fixedLoad = 0.0;
        double carried = 0.0; ///< bits until `since`
        double fixedCarried = 0.0;
        double since = 0.0;
        uint32_t mark = 0;     ///< epoch of the last component search that reached it
        double residual = 0.0; ///< progressive filling: capacity not yet given out
        uint32_t unfrozen = 0; ///< progressive filling: flows still rising
        uint32_t version = 0;  ///< progressive filling: heap entries older are stale
    };

    struct Flow
    {
        std::vector<LinkId> path;
        std::vector<uint32_t> slot; ///< position of this flow in each path link's list
        double remaining = 0.0;     ///< bits not sent at `since`
        double rate = 0.0;
        double cap = kUnlimited;
        double since = 0.0;
        bool fixed = false;
        bool alive = false;
        bool frozen = false;
        uint32_t mark = 0;
        uint32_t version = 0; ///< m_completions' entries older are stale
    };

    void Touch(LinkId link, double nowS);
    void SettleLink(Link& link, double nowS);
    void SettleFlow(Flow& flow, double nowS);
    void SetRate(FlowId id, double rate);
    void Fill(const std::vector<LinkId>& links, const std::vector<FlowId>& flows);
    void PushCompletion(FlowId id);
    void CompactCompletions();
    FlowId NewFlow();

    std::vector<Link> m_links;
    std::vector<Flow> m_flows;
    std::vector<FlowId> m_free;
    std::vector<LinkId> m_dirty;
    double m_dirtyTime = 0.0;
    uint32_t m_epoch = 0;
    size_t m_active = 0;
    uint64_t m_assignments = 0;
    CompletionQueue m_completions;
};

} // namespace fedran

#endif
