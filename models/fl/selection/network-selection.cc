// server.selection "network": the idle clients the server expects back soonest, from what it
// measured of their past rounds (docs/selection.md). A client's predicted round time is the
// exponentially weighted mean of its measured round durations (round start to its update's
// last byte at the server: the model's download, its compute and encoding, and its upload on
// whatever path capacity it had), so a site behind a faded hop or a busy hub link ranks low
// until it is measured faster again. Order: clients past the fairness floor (not selected in
// the last fairness_rounds rounds, longest first), then never-measured clients in an order
// drawn from the policy's stream, then by predicted time, shortest first.
//
// With path_capacity (the default), where the host states a client's path capacity now (the
// bottleneck of its access, hub and core links: a faded microwave hop's current modulation
// rate, a trace link's current rate, a p2p rate), the prediction is its measured compute time
// plus the model's download and the update's upload at those rates, so a hop that faded since
// the client was last measured ranks it behind at once. Without a stated capacity (lte), or
// before its compute has been measured, the weighted mean round time stands.

#include "models/fl/selection-policy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace fedran
{

namespace
{

class NetworkSelection final : public SelectionPolicy
{
  public:
    NetworkSelection(uint32_t fairnessRounds, bool pathCapacity, uint64_t seed)
        : m_fairnessRounds(fairnessRounds)
        , m_pathCapacity(pathCapacity)
        , m_rng(seed, kSelectionStream)
    {
    }

    Selection Select(const SelectionRequest& request) override
    {
        const ClientLedger& ledger = *request.ledger;
        std::vector<uint32_t> overdue;
        std::vector<uint32_t> unknown;
        std::map<uint32_t, double> negPredicted;
        Selection selection;
        for (uint32_t client : request.idle)
        {
            const auto it = ledger.find(client);
            const ClientRecord record = it == ledger.end() ? ClientRecord{} : it->second;
            const bool measured = !std::isnan(record.meanDurationS);
            const double predicted = measured ? Predicted(request, client, record) : 0.0;
            if (m_fairnessRounds > 0 && request.round - record.lastSelected >= m_fairnessRounds)
            {
                overdue.push_back(client);
            }
            else if (!measured)
            {
                unknown.push_back(client);
            }
            else
            {
                negPredicted[client] = -predicted;
            }
            if (measured && std::isfinite(predicted))
            {
                selection.scores[client] = predicted;
            }
        }
        // The longest-waiting first (a stable sort keeps the id order among equals).
        std::stable_sort(overdue.begin(), overdue.end(), [&](uint32_t a, uint32_t b) {
            return LastSelected(ledger, a) < LastSelected(ledger, b);
        });
        // Fisher-Yates: which unmeasured client goes first is the policy stream's draw.
        for (size_t i = unknown.size(); i > 1; --i)
        {
            std::swap(unknown[i - 1], unknown[m_rng.UniformInt(i)]);
        }
        std::vector<uint32_t>& chosen = selection.clients;
        for (const std::vector<uint32_t>* group : {&overdue, &unknown})
        {
            for (uint32_t client : *group)
            {
                if (chosen.size() < request.wanted)
                {
                    chosen.push_back(client);
                }
            }
        }
        for (uint32_t client : TopByScore(negPredicted, request.wanted - chosen.size()))
        {
            chosen.push_back(client);
        }
        // Only the selected clients' scores go into clients.csv.
        KeepSelectedScores(selection);
        return selection;
    }

  private:
    /// A measured client's predicted round time: from its path's capacity now where it is
    /// stated (infinite when a link of it is out), otherwise its weighted mean round time.
    double Predicted(const SelectionRequest& request,
                     uint32_t client,
                     const ClientRecord& record) const
    {
        if (!m_pathCapacity || !request.pathRate || std::isnan(record.meanComputeS) ||
            record.modelBytes == 0 || record.updateBytes == 0)
        {
            return record.meanDurationS;
        }
        const std::optional<PathRate> rate = request.pathRate(client);
        if (!rate)
        {
            return record.meanDurationS;
        }
        if (rate->downBps <= 0.0 || rate->upBps <= 0.0)
        {
            return std::numeric_limits<double>::infinity();
        }
        return record.meanComputeS + 8.0 * double(record.modelBytes) / rate->downBps +
               8.0 * double(record.updateBytes) / rate->upBps;
    }

    static uint32_t LastSelected(const ClientLedger& ledger, uint32_t client)
    {
        const auto it = ledger.find(client);
        return it == ledger.end() ? 0 : it->second.lastSelected;
    }

    uint32_t m_fairnessRounds;
    bool m_pathCapacity;
    Rng m_rng;
};

} // namespace

std::unique_ptr<SelectionPolicy>
MakeNetworkSelection(RuleArgs& args, const SelectionContext& context)
{
    const uint32_t fairness = args.TakeCount("fairness_rounds").value_or(10);
    bool pathCapacity = true;
    if (const nlohmann::json* value = args.Take("path_capacity"))
    {
        if (!value->is_boolean())
        {
            args.Fail("path_capacity", "must be true or false");
        }
        pathCapacity = value->get<bool>();
    }
    return std::make_unique<NetworkSelection>(fairness, pathCapacity, context.seed);
}

} // namespace fedran
