#ifndef FEDRAN_MODELS_FLOW_COMPLETION_QUEUE_H
#define FEDRAN_MODELS_FLOW_COMPLETION_QUEUE_H

// The predicted completion times of a fluid network's flows, earliest first. A flow's
// prediction changes with every rate change; rather than finding and moving its entry, each
// change pushes a new one tagged with the flow's new version, and entries whose version has
// moved on are skipped when they reach the top (and all dropped by a rebuild when too many
// pile up).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <utility>
#include <vector>

namespace fedran
{

class CompletionQueue
{
  public:
    /// `flow` (at `version`) is predicted to finish at `time`.
    void Push(double time, uint32_t flow, uint32_t version)
    {
        m_heap.push({time, flow, version});
    }

    /// The earliest entry that `current(flow, version)` accepts, as (time, flow); ties go to
    /// the lower flow id. Entries it rejects are dropped on the way.
    template<typename Current>
    std::optional<std::pair<double, uint32_t>> Next(Current current)
    {
        while (!m_heap.empty())
        {
            const Entry& top = m_heap.top();
            if (current(top.flow, top.version))
            {
                return std::make_pair(top.time, top.flow);
            }
            m_heap.pop();
        }
        return std::nullopt;
    }

    /// Entries held, stale ones included.
    size_t Size() const
    {
        return m_heap.size();
    }

    void Clear()
    {
        m_heap = {};
    }

  private:
    struct Entry
    {
        double time;
        uint32_t flow;
        uint32_t version;

        bool operator>(const Entry& o) const
        {
            return time > o.time || (time == o.time && flow > o.flow);
        }
    };

    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> m_heap;
};

} // namespace fedran

#endif
