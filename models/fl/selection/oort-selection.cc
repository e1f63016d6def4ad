// server.selection "oort": Oort's participant selection (Lai et al., OSDI 2021, arXiv
// 2010.06081) as FedScale's thirdparty/oort/oort.py implements it (_training_selector.getTopK
// and pacer), with FedScale's defaults (docs/selection.md has the formulas):
// - statistical utility of a client that has reported: |B_i| x its reported loss (FedScale
//   reports sqrt(mean of squared per-sample losses) x samples; fedran's report is the mean
//   minibatch training loss, loss-report.h), clipped at the clip_bound quantile of the
//   utilities and normalised to [0, 1], plus the staleness bonus sqrt(0.1 ln R / last_i);
// - system utility: times (T / t_i)^round_penalty when its measured round time t_i exceeds
//   T, the round_threshold percentile of the measured round times;
// - exploitation: (1 - epsilon) x wanted clients drawn by score among those above cut_off_util
//   x the cut-off score (at least 10 x as many candidates); exploration: the rest among the
//   never-reported clients, drawn by data size from the top sample_window x as many;
//   epsilon decays by exploration_decay each round down to exploration_min;
// - pacer: every pacer_step rounds, if the exploited utility of the last pacer_step rounds
//   changed by at most 10 %, T's percentile rises by pacer_delta (to 100: no penalty); if it
//   changed 5-fold, it falls by pacer_delta.

#include "models/fl/selection-policy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace fedran
{

namespace
{

struct OortSettings
{
    double exploration = 0.9;
    double explorationDecay = 0.98;
    double explorationMin = 0.3;
    double roundThreshold = 30.0; ///< percentile
    double roundPenalty = 2.0;
    uint32_t pacerStep = 20;
    double pacerDelta = 5.0;
    double clipBound = 0.9;
    double cutOffUtil = 0.05;
    double sampleWindow = 5.0;
};

/// `count` of `candidates` without replacement, each draw proportional to its weight among
/// those left (numpy's choice(replace=False, p=...)).
std::vector<uint32_t>
DrawWeighted(std::vector<std::pair<uint32_t, double>> candidates, size_t count, Rng& rng)
{
    std::vector<uint32_t> drawn;
    while (drawn.size() < count && !candidates.empty())
    {
        double total = 0.0;
        for (const auto& [client, weight] : candidates)
        {
            total += std::max(weight, 0.0);
        }
        size_t pick = candidates.size() - 1;
        if (total > 0.0)
        {
            double u = rng.Uniform() * total;
            for (size_t i = 0; i < candidates.size(); ++i)
            {
                u -= std::max(candidates[i].second, 0.0);
                if (u < 0.0)
                {
                    pick = i;
                    break;
                }
            }
        }
        else
        {
            pick = rng.UniformInt(candidates.size());
        }
        drawn.push_back(candidates[pick].first);
        candidates.erase(candidates.begin() + static_cast<std::ptrdiff_t>(pick));
    }
    return drawn;
}

class OortSelection final : public SelectionPolicy
{
  public:
    OortSelection(const OortSettings& settings, uint64_t seed)
        : m_s(settings)
        , m_exploration(settings.exploration)
        , m_threshold(settings.roundThreshold)
        , m_rng(seed, kSelectionStream)
    {
    }

    Selection Select(const SelectionRequest& request) override
    {
        const ClientLedger& ledger = *request.ledger;
        const uint32_t round = request.round;
        Pacer(ledger, round);

        // T: the round_threshold percentile of the measured round times (all clients').
        std::vector<double> durations;
        for (const auto& [client, record] : ledger)
        {
            if (!std::isnan(record.durationS))
            {
                durations.push_back(record.durationS);
            }
        }
        std::sort(durations.begin(), durations.end());
        double preferred = std::numeric_limits<double>::infinity();
        if (m_threshold < 100.0 && !durations.empty())
        {
            const auto at = static_cast<size_t>(double(durations.size()) * m_threshold / 100.0);
            preferred = durations[std::min(at, durations.size() - 1)];
        }
        auto penalty = [&](const ClientRecord& r) {
            if (!std::isnan(r.durationS) && r.durationS > preferred)
            {
                return std::pow(preferred / std::max(1e-4, r.durationS), m_s.roundPenalty);
            }
            return 1.0;
        };

        // The utilities of the idle clients that have reported, for the normalisation.
        std::vector<double> rewards;
        for (uint32_t client : request.idle)
        {
            const ClientRecord& r = RecordOf(ledger, client);
            if (Explored(r) && Reward(r) > 0.0)
            {
                rewards.push_back(Reward(r));
            }
        }
        std::sort(rewards.begin(), rewards.end());
        double clip = 0.0;
        double minReward = 0.0;
        double range = 1e-4;
        if (!rewards.empty())
        {
            clip = rewards[std::min(static_cast<size_t>(double(rewards.size()) * m_s.clipBound),
                                    rewards.size() - 1)];
            minReward = rewards.front() * 0.999;
            range = std::max(rewards.back() - minReward, 1e-4);
        }

        std::map<uint32_t, double> scores;     // exploitable
        std::map<uint32_t, double> unexplored; // by data size, penalised
        for (uint32_t client : request.idle)
        {
            const ClientRecord& r = RecordOf(ledger, client);
            if (Explored(r))
            {
                double sc = (std::min(Reward(r), clip) - minReward) / range +
                            std::sqrt(0.1 * std::log(double(round)) / double(r.lossRound));
                sc *= penalty(r);
                scores[client] = std::abs(sc);
            }
            else
            {
                unexplored[client] = double(r.samples) * penalty(r);
            }
        }

        m_exploration = std::max(m_exploration * m_s.explorationDecay, m_s.explorationMin);
        const size_t wanted = std::min(request.wanted, request.idle.size());
        const size_t exploitLen =
            std::min(static_cast<size_t>(double(wanted) * (1.0 - m_exploration)), scores.size());
        Selection selection;
        m_exploited.clear();
        if (exploitLen > 0)
        {
            const std::vector<uint32_t> sorted = TopByScore(scores, scores.size());
            const double cutOff =
                scores[sorted[std::min(exploitLen, sorted.size() - 1)]] * m_s.cutOffUtil;
            std::vector<std::pair<uint32_t, double>> picked;
            for (uint32_t client : sorted)
            {
                if (scores[client]<cutOff&& double(picked.size())> 10.0 * double(exploitLen))
                {
                    break;
                }
                picked.emplace_back(client, scores[client]);
            }
            m_exploited = DrawWeighted(picked, exploitLen, m_rng);
            for (uint32_t client : m_exploited)
            {
                selection.scores[client] = scores[client];
            }
        }
        std::vector<uint32_t> explored;
        const size_t exploreLen = std::min(unexplored.size(), wanted - m_exploited.size());
        if (exploreLen > 0)
        {
            const std::vector<uint32_t> top =
                TopByScore(unexplored,
                           std::min(static_cast<size_t>(m_s.sampleWindow * double(exploreLen)),
                                    unexplored.size()));
            std::vector<std::pair<uint32_t, double>> window;
            for (uint32_t client : top)
            {
                window.emplace_back(client, unexplored[client]);
            }
            explored = DrawWeighted(window, exploreLen, m_rng);
            for (uint32_t client : explored)
            {
                selection.scores[client] = unexplored[client];
            }
        }
        selection.clients = explored;
        selection.clients.insert(selection.clients.end(), m_exploited.begin(), m_exploited.end());
        // Fewer unexplored clients than exploration asked for: the best remaining exploitable.
        if (selection.clients.size() < wanted)
        {
            for (uint32_t client : TopByScore(scores, scores.size()))
            {
                if (selection.clients.size() >= wanted)
                {
                    break;
                }
                if (std::find(selection.clients.begin(), selection.clients.end(), client) ==
                    selection.clients.end())
                {
                    selection.clients.push_back(client);
                    selection.scores[client] = scores[client];
                    m_exploited.push_back(client);
                }
            }
        }
        return selection;
    }

  private:
    static const ClientRecord& RecordOf(const ClientLedger& ledger, uint32_t client)
    {
        static const ClientRecord kNone;
        const auto it = ledger.find(client);
        return it == ledger.end() ? kNone : it->second;
    }

    static bool Explored(const ClientRecord& r)
    {
        return !std::isnan(r.loss) && r.lossRound > 0;
    }

    static double Reward(const ClientRecord& r)
    {
        return double(r.samples) * r.loss;
    }

    /// FedScale's pacer, run at each round's selection on the utilities the previous
    /// round's exploited clients now have.
    void Pacer(const ClientLedger& ledger, uint32_t round)
    {
        double util = 0.0;
        for (uint32_t client : m_exploited)
        {
            const ClientRecord& r = RecordOf(ledger, client);
            if (Explored(r))
            {
                util += Reward(r);
            }
        }
        m_exploitHistory.push_back(util);
        const size_t step = m_s.pacerStep;
        if (step == 0 || round < 2 * step || round % step != 0 ||
            m_exploitHistory.size() < 2 * step)
        {
            return;
        }
        const auto end = m_exploitHistory.end();
        const double last = std::accumulate(end - 2 * long(step), end - long(step), 0.0);
        const double current = std::accumulate(end - long(step), end, 0.0);
        if (std::abs(current - last) <= last * 0.1)
        {
            m_threshold = std::min(100.0, m_threshold + m_s.pacerDelta);
        }
        else if (std::abs(current - last) >= last * 5.0)
        {
            m_threshold = std::max(m_s.pacerDelta, m_threshold - m_s.pacerDelta);
        }
    }

    OortSettings m_s;
    double m_exploration;
    double m_threshold; ///< T's percentile, moved by the pacer
    Rng m_rng;
    std::vector<uint32_t> m_exploited; ///< the last round's exploited clients
    std::vector<double> m_exploitHistory;
};

} // namespace

std::unique_ptr<SelectionPolicy>
MakeOortSelection(RuleArgs& args, const SelectionContext& context)
{
    OortSettings s;
    s.exploration = args.TakeNumber("exploration_factor").value_or(s.exploration);
    s.explorationDecay = args.TakeNumber("exploration_decay").value_or(s.explorationDecay);
    s.explorationMin = args.TakeNumber("exploration_min").value_or(s.explorationMin);
    s.roundThreshold = args.TakeNumber("round_threshold").value_or(s.roundThreshold);
    s.roundPenalty = args.TakeNumber("round_penalty").value_or(s.roundPenalty);
    s.pacerStep = args.TakeCount("pacer_step").value_or(s.pacerStep);
    s.pacerDelta = args.TakeNumber("pacer_delta").value_or(s.pacerDelta);
    s.clipBound = args.TakeNumber("clip_bound").value_or(s.clipBound);
    s.cutOffUtil = args.TakeNumber("cut_off_util").value_or(s.cutOffUtil);
    s.sampleWindow = args.TakeNumber("sample_window").value_or(s.sampleWindow);
    auto unit = [&](const char* key, double value) {
        if (!(value >= 0.0 && value <= 1.0))
        {
            args.Fail(key, "must be in [0, 1], got " + std::to_string(value));
        }
    };
    unit("exploration_factor", s.exploration);
    unit("exploration_decay", s.explorationDecay);
    unit("exploration_min", s.explorationMin);
    unit("clip_bound", s.clipBound);
    unit("cut_off_util", s.cutOffUtil);
    if (!(s.roundThreshold >= 0.0 && s.roundThreshold <= 100.0))
    {
        args.Fail("round_threshold", "must be a percentile in [0, 100]");
    }
    if (s.roundPenalty < 0.0)
    {
        args.Fail("round_penalty", "must be >= 0");
    }
    if (s.pacerDelta < 0.0)
    {
        args.Fail("pacer_delta", "must be >= 0");
    }
    if (!(s.sampleWindow >= 1.0))
    {
        args.Fail("sample_window", "must be >= 1");
    }
    return std::make_unique<OortSelection>(s, context.seed);
}

} // namespace fedran
