// "trimmed_mean" (Yin et al. 2018): per coordinate, drop the k = floor(beta n) largest and
// the k smallest of the n values and average the n - 2k others (unweighted: a Byzantine
// client could claim any sample count). It tolerates up to k Byzantine updates per
// coordinate, so beta should exceed the Byzantine share. aggregate_weight: the client's mean
// weight over the coordinates (1 / (n - 2k) where its value was kept, 0 where trimmed).

#include "models/fl/robust/buffered-rule.h"

#include <algorithm>
#include <cmath>

namespace fedran
{

namespace robust
{
namespace
{

/// floor(beta n), robust to binary floating point (0.3 x 10 is 3).
size_t
Trimmed(double beta, size_t n)
{
    return static_cast<size_t>(std::floor(beta * double(n) + 1e-9));
}

class TrimmedMeanRule final : public BufferedRule
{
  public:
    // Per coordinate: gather the n values, drop the k largest and smallest, sum the rest.
    double ResultWork(size_t count, size_t size) const override
    {
        return double(count) * double(size);
    }

    explicit TrimmedMeanRule(double beta)
        : m_beta(beta)
    {
    }

  private:
    void Combine(std::span<float> out, std::vector<double>& weights) override
    {
        const size_t n = Count();
        // A round with fewer updates than clients_per_round trims floor(beta x those); at
        // least one value is always kept.
        const size_t k = std::min(Trimmed(m_beta, n), (n - 1) / 2);
        const size_t kept = n - 2 * k;
        std::vector<std::pair<float, uint32_t>> column(n);
        std::vector<double> held(n, 0.0);
        for (size_t j = 0; j < Size(); ++j)
        {
            for (size_t i = 0; i < n; ++i)
            {
                column[i] = {Update(i)[j], static_cast<uint32_t>(i)};
            }
            std::sort(column.begin(), column.end(), OrderedBefore);
            double sum = 0.0;
            for (size_t r = k; r < k + kept; ++r)
            {
                sum += column[r].first;
                held[column[r].second] += 1.0;
            }
            out[j] = static_cast<float>(sum / double(kept));
        }
        for (size_t i = 0; i < n; ++i)
        {
            weights[i] = held[i] / (double(kept) * double(Size()));
        }
    }

    double m_beta;
};

} // namespace
} // namespace robust

std::unique_ptr<AggregationRule>
MakeTrimmedMeanRule(RuleArgs& args)
{
    const double beta = args.TakeNumber("beta").value_or(0.1);
    const size_t n = args.ClientsPerRound();
    const size_t k = robust::Trimmed(beta, n);
    if (k == 0)
    {
        args.Fail("beta",
                  "trimmed_mean with beta = " + std::to_string(beta) +
                      " trims floor(beta x clients_per_round) = 0 of " + std::to_string(n) +
                      " updates at each end (it would be the mean)");
    }
    if (2 * k >= n)
    {
        args.Fail("beta",
                  "trimmed_mean trims floor(beta x clients_per_round) = " + std::to_string(k) +
                      " updates at each end of " + std::to_string(n) +
                      ", leaving none; needs 2k < n");
    }
    return std::make_unique<robust::TrimmedMeanRule>(beta);
}

} // namespace fedran
