// server.selection "fedcs": the greedy admission of FedCS (Nishio & Yonetani, ICC 2019, arXiv
// 1804.08333, Algorithm 2). The server asks a random request_fraction of the idle clients;
// their resources are what it measured of their last round: t_UD, round start to the first
// byte of the update (the model's download, compute and encoding), and t_UL, the update's
// first to last byte. FedCS schedules the uploads one after another: with Theta the time the
// admitted uploads end, adding x makes it Theta' = Theta + t_UL(x) + max(0, t_UD(x) - Theta).
// Repeatedly the x with the smallest Theta' - Theta is taken; it is admitted while Theta' stays
// within the deadline. The admission ends at the first that does not fit (every other has a
// larger increment) or at ceil(over_select x clients_per_round). A client never measured costs
// nothing (0, 0): it is admitted first, in an order drawn from the policy's stream, so every
// client is measured once. If nobody fits, the cheapest is selected anyway so that rounds go
// on and measurements are renewed. The score is each admitted client's Theta'.

#include "models/fl/selection-policy.h"

#include <algorithm>
#include <cmath>

namespace fedran
{

namespace
{

class FedCsSelection final : public SelectionPolicy
{
  public:
    FedCsSelection(double deadlineS, double requestFraction, uint64_t seed)
        : m_deadlineS(deadlineS)
        , m_requestFraction(requestFraction)
        , m_rng(seed, kSelectionStream)
    {
    }

    Selection Select(const SelectionRequest& request) override
    {
        // Resource request: a shuffled idle list, of which the first fraction are asked.
        std::vector<uint32_t> asked = request.idle;
        for (size_t i = asked.size(); i > 1; --i)
        {
            std::swap(asked[i - 1], asked[m_rng.UniformInt(i)]);
        }
        const auto count =
            static_cast<size_t>(std::ceil(m_requestFraction * double(asked.size()) - 1e-9));
        asked.resize(std::min(asked.size(), std::max<size_t>(count, 1)));

        Selection selection;
        double theta = 0.0;
        while (!asked.empty() && selection.clients.size() < request.wanted)
        {
            size_t best = 0;
            double bestTheta = 0.0;
            for (size_t i = 0; i < asked.size(); ++i)
            {
                const double next = Admitted(*request.ledger, asked[i], theta);
                if (i == 0 || next < bestTheta)
                {
                    best = i;
                    bestTheta = next;
                }
            }
            const bool fits = bestTheta <= m_deadlineS;
            if (!fits && !selection.clients.empty())
            {
                break;
            }
            selection.clients.push_back(asked[best]);
            selection.scores[asked[best]] = bestTheta;
            asked.erase(asked.begin() + static_cast<std::ptrdiff_t>(best));
            theta = bestTheta;
            if (!fits)
            {
                break; // the one selected although it does not fit
            }
        }
        return selection;
    }

  private:
    /// Theta' after admitting `client` to uploads that end at `theta`.
    static double Admitted(const ClientLedger& ledger, uint32_t client, double theta)
    {
        const auto it = ledger.find(client);
        double update = 0.0;
        double upload = 0.0;
        if (it != ledger.end())
        {
            const ClientRecord& r = it->second;
            // Without the upload's first byte the whole round counts as t_UD.
            update = !std::isnan(r.preUploadS)  ? r.preUploadS
                     : !std::isnan(r.durationS) ? r.durationS
                                                : 0.0;
            upload = !std::isnan(r.uploadS) && !std::isnan(r.preUploadS) ? r.uploadS : 0.0;
        }
        return theta + upload + std::max(0.0, update - theta);
    }

    double m_deadlineS;
    double m_requestFraction;
    Rng m_rng;
};

} // namespace

std::unique_ptr<SelectionPolicy>
MakeFedCsSelection(RuleArgs& args, const SelectionContext& context)
{
    const double deadline = args.TakeNumber("deadline_s").value_or(context.deadlineS);
    const double fraction = args.TakeNumber("request_fraction").value_or(1.0);
    if (!(deadline > 0.0))
    {
        args.Fail("deadline_s", "must be > 0");
    }
    if (!(fraction > 0.0 && fraction <= 1.0))
    {
        args.Fail("request_fraction", "must be in (0, 1]");
    }
    return std::make_unique<FedCsSelection>(deadline, fraction, context.seed);
}

} // namespace fedran
