// "norm_bound" (Sun et al. 2019, "Can you really backdoor federated learning?"): each update
// is scaled to norm at most max_norm, x_i min(1, max_norm / ||x_i||), and the results are
// averaged with the sample weights, as FedAvg would. An update with a non-finite norm is
// dropped (factor 0). aggregate_weight: the sample share times that factor.

#include "models/fl/robust/buffered-rule.h"

#include <cmath>
#include <optional>

namespace fedran
{

namespace robust
{
namespace
{

class NormBoundRule final : public BufferedRule
{
  public:
    // n norms, then the scaled weighted mean.
    double ResultWork(size_t count, size_t size) const override
    {
        return double(count) * double(size);
    }

    explicit NormBoundRule(double maxNorm)
        : m_maxNorm(maxNorm)
    {
    }

  private:
    void Combine(std::span<float> out, std::vector<double>& weights) override
    {
        const size_t n = Count();
        const double total = TotalWeight();
        std::vector<double> sum(Size(), 0.0);
        for (size_t i = 0; i < n; ++i)
        {
            const double norm = std::sqrt(SquaredNorm(Update(i)));
            const double factor = !std::isfinite(norm) ? 0.0
                                  : norm > m_maxNorm   ? m_maxNorm / norm
                                                       : 1.0;
            weights[i] = Weight(i) / total * factor;
            if (factor == 0.0)
            {
                continue;
            }
            std::span<const float> x = Update(i);
            for (size_t j = 0; j < Size(); ++j)
            {
                sum[j] += weights[i] * double(x[j]);
            }
        }
        for (size_t j = 0; j < Size(); ++j)
        {
            out[j] = static_cast<float>(sum[j]);
        }
    }

    double m_maxNorm;
};

} // namespace
} // namespace robust

std::unique_ptr<AggregationRule>
MakeNormBoundRule(RuleArgs& args)
{
    const std::optional<double> maxNorm = args.TakeNumber("max_norm");
    if (!maxNorm || !(*maxNorm > 0.0))
    {
        args.Fail("max_norm",
                  "norm_bound needs max_norm > 0 (in the units of the updates: see update_norm "
                  "in clients.csv)");
    }
    return std::make_unique<robust::NormBoundRule>(*maxNorm);
}

} // namespace fedran
