// "krum" and "multi_krum" (Blanchard et al. 2017). Each update i gets the score
//     score(i) = sum of ||x_i - x_j||^2 over its n - f - 2 nearest other updates j,
// Krum returns the update with the lowest score, Multi-Krum the unweighted mean of the m
// lowest-scoring ones (m = n - f unless set). Admissible for n > 2f + 2, checked against
// clients_per_round; a round with fewer updates c scores over max(1, c - f - 2) neighbours
// and averages min(m, c). Ties go to the earlier update; a non-finite distance counts as
// +inf. aggregate_weight: 1 / m for the chosen updates, 0 for the others.

#include "models/fl/robust/buffered-rule.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <string>

namespace fedran
{

namespace robust
{
namespace
{

class KrumRule final : public BufferedRule
{
  public:
    // The n(n - 1)/2 pairwise squared distances dominate.
    double ResultWork(size_t count, size_t size) const override
    {
        return double(count) * double(count > 0 ? count - 1 : 0) / 2.0 * double(size);
    }

    KrumRule(uint32_t f, uint32_t m)
        : m_f(f)
        , m_m(m)
    {
    }

  private:
    void Combine(std::span<float> out, std::vector<double>& weights) override
    {
        const size_t n = Count();
        std::vector<double> distance(n * n, 0.0);
        for (size_t i = 0; i < n; ++i)
        {
            for (size_t j = i + 1; j < n; ++j)
            {
                double d = SquaredDistance(Update(i), Update(j));
                if (!std::isfinite(d))
                {
                    d = std::numeric_limits<double>::infinity();
                }
                distance[i * n + j] = d;
                distance[j * n + i] = d;
            }
        }
        const size_t neighbours = n < 2 ? 0 : std::max<size_t>(1, n > m_f + 2 ? n - m_f - 2 : 1);
        std::vector<double> score(n, 0.0);
        std::vector<double> others;
        for (size_t i = 0; i < n; ++i)
        {
            others.clear();
            for (size_t j = 0; j < n; ++j)
            {
                if (j != i)
                {
                    others.push_back(distance[i * n + j]);
                }
            }
            std::sort(others.begin(), others.end());
            // Summed in ascending order, so the score does not depend on the update order.
            score[i] = std::accumulate(others.begin(), others.begin() + neighbours, 0.0);
        }
        std::vector<uint32_t> order(n);
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            return score[a] < score[b];
        });
        const size_t chosen = std::min<size_t>(m_m, n);
        std::vector<double> sum(Size(), 0.0);
        std::sort(order.begin(), order.begin() + chosen); // add in arrival order
        for (size_t c = 0; c < chosen; ++c)
        {
            std::span<const float> x = Update(order[c]);
            for (size_t j = 0; j < Size(); ++j)
            {
                sum[j] += x[j];
            }
            weights[order[c]] = 1.0 / double(chosen);
        }
        for (size_t j = 0; j < Size(); ++j)
        {
            out[j] = static_cast<float>(sum[j] / double(chosen));
        }
    }

    uint32_t m_f;
    uint32_t m_m;
};

/// f given, or the largest admissible one, floor((n - 3) / 2).
uint32_t
ToleratedF(const RuleArgs& args, std::optional<uint32_t> given)
{
    const uint32_t n = args.ClientsPerRound();
    const uint32_t f = given.value_or(n >= 3 ? (n - 3) / 2 : 0);
    if (!(n > 2 * f + 2))
    {
        args.Fail("f",
                  args.Type() +
                      " needs clients_per_round n > 2f + 2 (Blanchard et al. 2017); n = " +
                      std::to_string(n) + ", f = " + std::to_string(f) +
                      (given ? "" : " (the default, floor((n - 3) / 2))"));
    }
    return f;
}

} // namespace
} // namespace robust

std::unique_ptr<AggregationRule>
MakeKrumRule(RuleArgs& args)
{
    const std::optional<uint32_t> f = args.TakeCount("f");
    return std::make_unique<robust::KrumRule>(robust::ToleratedF(args, f), 1);
}

std::unique_ptr<AggregationRule>
MakeMultiKrumRule(RuleArgs& args)
{
    const std::optional<uint32_t> givenF = args.TakeCount("f");
    const std::optional<uint32_t> givenM = args.TakeCount("m");
    const uint32_t f = robust::ToleratedF(args, givenF);
    const uint32_t n = args.ClientsPerRound();
    const uint32_t m = givenM.value_or(n - f);
    if (m < 1 || m > n - f)
    {
        args.Fail("m",
                  "multi_krum averages 1 <= m <= n - f updates; n = " + std::to_string(n) +
                      ", f = " + std::to_string(f) + ", m = " + std::to_string(m));
    }
    return std::make_unique<robust::KrumRule>(f, m);
}

} // namespace fedran
