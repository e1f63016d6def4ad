// server.selection "power_of_choice": Power-of-choice (Cho, Wang & Joshi, AISTATS 2022, arXiv
// 2010.01243), variant rpow-d. d candidates are drawn without replacement from the idle
// clients with probability proportional to their data size, and the
// ceil(over_select x clients_per_round) of them with the highest loss are kept. rpow-d takes
// each candidate's loss from its last participation (the loss report appended to its update,
// loss-report.h) instead of asking for the loss at the current model, so no extra exchange;
// a candidate that has never reported ranks first (the paper's rounds start from losses
// every client has). d = ceil(over_select x clients_per_round) is random selection by data
// size. The score is the loss it was ranked by.
//
// Variant pow-d, the paper's own: Select returns the d candidates as a poll (Selection::poll);
// the coordinator sends them the current model and asks for their mean loss at it (loss-poll.h),
// and KeepPolled keeps the m highest of those that answered within poll_timeout_s.

#include "models/fl/selection-policy.h"

#include <cmath>
#include <limits>
#include <optional>

namespace fedran
{

namespace
{

class PowerOfChoiceSelection final : public SelectionPolicy
{
  public:
    PowerOfChoiceSelection(uint32_t d, uint64_t seed, bool poll, double pollTimeoutS)
        : m_d(d)
        , m_rng(seed, kSelectionStream)
        , m_poll(poll)
        , m_pollTimeoutS(pollTimeoutS)
    {
    }

    double PollTimeoutS() const override
    {
        return m_pollTimeoutS;
    }

    Selection KeepPolled(const std::map<uint32_t, double>& losses, size_t wanted) override
    {
        Selection selection;
        selection.clients = TopByScore(losses, wanted);
        selection.scores = losses;
        KeepSelectedScores(selection);
        return selection;
    }

    Selection Select(const SelectionRequest& request) override
    {
        const ClientLedger& ledger = *request.ledger;
        // Sequential draws proportional to the remaining clients' data sizes.
        std::vector<uint32_t> pool = request.idle;
        std::map<uint32_t, double> ranked;
        Selection selection;
        while (!pool.empty() && ranked.size() < m_d)
        {
            double total = 0.0;
            for (uint32_t client : pool)
            {
                total += Samples(ledger, client);
            }
            double u = m_rng.Uniform() * total;
            size_t pick = pool.size() - 1;
            for (size_t i = 0; i < pool.size(); ++i)
            {
                u -= Samples(ledger, pool[i]);
                if (u < 0.0)
                {
                    pick = i;
                    break;
                }
            }
            const uint32_t client = pool[pick];
            pool.erase(pool.begin() + static_cast<std::ptrdiff_t>(pick));
            const auto it = ledger.find(client);
            const double loss = it == ledger.end() ? std::nan("") : it->second.loss;
            ranked[client] = std::isnan(loss) ? std::numeric_limits<double>::infinity() : loss;
            if (!std::isnan(loss))
            {
                selection.scores[client] = loss;
            }
        }
        if (m_poll)
        {
            // pow-d: the candidates' losses at the current model are asked for first.
            selection.clients.clear();
            for (const auto& entry : ranked)
            {
                selection.clients.push_back(entry.first);
            }
            selection.scores.clear();
            selection.poll = true;
            return selection;
        }
        selection.clients = TopByScore(ranked, request.wanted);
        KeepSelectedScores(selection);
        return selection;
    }

  private:
    /// Its data size; at least 1, so that a client without data can still be drawn.
    static double Samples(const ClientLedger& ledger, uint32_t client)
    {
        const auto it = ledger.find(client);
        return it == ledger.end() ? 1.0 : std::max(1.0, double(it->second.samples));
    }

    uint32_t m_d;
    Rng m_rng;
    bool m_poll;           ///< pow-d
    double m_pollTimeoutS; ///< pow-d: how long the server waits for the candidates' answers
};

} // namespace

std::unique_ptr<SelectionPolicy>
MakePowerOfChoiceSelection(RuleArgs& args, const SelectionContext& context)
{
    const auto d = args.TakeCount("d").value_or(
        static_cast<uint32_t>(2 * std::max<size_t>(context.wanted, 1)));
    std::string variant = "rpow-d";
    if (const nlohmann::json* value = args.Take("variant"))
    {
        if (!value->is_string())
        {
            args.Fail("variant", "must be a string");
        }
        variant = value->get<std::string>();
    }
    const std::optional<double> timeout = args.TakeNumber("poll_timeout_s");
    if (variant != "rpow-d" && variant != "pow-d")
    {
        args.Fail("variant",
                  "\"" + variant +
                      "\" is not supported (\"rpow-d\": the loss of each candidate's last "
                      "participation; \"pow-d\": its loss at the current model, polled)");
    }
    if (timeout && variant != "pow-d")
    {
        args.Fail("poll_timeout_s", "only \"pow-d\" polls (variant is \"" + variant + "\")");
    }
    if (timeout && *timeout <= 0.0)
    {
        args.Fail("poll_timeout_s", "must be > 0 seconds");
    }
    if (d < context.wanted)
    {
        args.Fail("d",
                  std::to_string(d) + " candidates, but a round selects " +
                      std::to_string(context.wanted) +
                      " (ceil(over_select x clients_per_round)); d must be at least that");
    }
    return std::make_unique<PowerOfChoiceSelection>(d,
                                                    context.seed,
                                                    variant == "pow-d",
                                                    timeout.value_or(context.deadlineS));
}

} // namespace fedran
