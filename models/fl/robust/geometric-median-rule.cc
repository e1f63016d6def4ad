// "geometric_median": the point z minimising sum_i alpha_i ||x_i - z|| (alpha_i: the sample
// shares), by smoothed Weiszfeld iterations as in RFA (Pillutla et al. 2022):
//     beta_i = alpha_i / max(nu, ||x_i - z||),   z <- sum_i beta_i x_i / sum_i beta_i,
// from the weighted mean, `iters` times (default 10), nu = 1e-6. An update at a non-finite
// distance gets beta_i = 0. It tolerates up to half the weight being Byzantine.
// aggregate_weight: beta_i / sum beta of the last iteration (the update's share in z).

#include "models/fl/robust/buffered-rule.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace fedran
{

namespace robust
{
namespace
{

constexpr double kSmoothing = 1e-6;

class GeometricMedianRule final : public BufferedRule
{
  public:
    // The starting mean, then per iteration n distances and a weighted mean.
    double ResultWork(size_t count, size_t size) const override
    {
        return double(m_iters + 1) * double(count) * double(size);
    }

    explicit GeometricMedianRule(uint32_t iters)
        : m_iters(iters)
    {
    }

  private:
    void Combine(std::span<float> out, std::vector<double>& weights) override
    {
        const size_t n = Count();
        const double total = TotalWeight();
        std::vector<double> alpha(n);
        for (size_t i = 0; i < n; ++i)
        {
            alpha[i] = Weight(i) / total;
        }
        std::vector<double> beta(alpha);
        std::vector<double> z(Size(), 0.0);
        // The start, the weighted mean, skips non-finite updates.
        Average(beta, z, true);
        for (uint32_t t = 0; t < m_iters; ++t)
        {
            for (size_t i = 0; i < n; ++i)
            {
                const double d = std::sqrt(SquaredDistance(Update(i), z));
                beta[i] = std::isfinite(d) ? alpha[i] / std::max(kSmoothing, d) : 0.0;
            }
            Average(beta, z, false);
        }
        double sum = 0.0;
        for (double b : beta)
        {
            sum += b;
        }
        for (size_t i = 0; i < n; ++i)
        {
            weights[i] = sum > 0.0 ? beta[i] / sum : 0.0;
        }
        for (size_t j = 0; j < Size(); ++j)
        {
            out[j] = static_cast<float>(z[j]);
        }
    }

    /// z = sum beta_i x_i / sum beta_i (unchanged if every beta is 0). With `finiteOnly`,
    /// updates holding a non-finite value get beta 0 first.
    void Average(std::vector<double>& beta, std::vector<double>& z, bool finiteOnly) const
    {
        if (finiteOnly)
        {
            for (size_t i = 0; i < Count(); ++i)
            {
                if (!std::isfinite(SquaredNorm(Update(i))))
                {
                    beta[i] = 0.0;
                }
            }
        }
        double sum = 0.0;
        std::vector<double> next(Size(), 0.0);
        for (size_t i = 0; i < Count(); ++i)
        {
            if (beta[i] == 0.0)
            {
                continue;
            }
            sum += beta[i];
            std::span<const float> x = Update(i);
            for (size_t j = 0; j < Size(); ++j)
            {
                next[j] += beta[i] * double(x[j]);
            }
        }
        if (sum == 0.0)
        {
            return;
        }
        for (size_t j = 0; j < Size(); ++j)
        {
            z[j] = next[j] / sum;
        }
    }

    uint32_t m_iters;
};

} // namespace
} // namespace robust

std::unique_ptr<AggregationRule>
MakeGeometricMedianRule(RuleArgs& args)
{
    const uint32_t iters = args.TakeCount("iters").value_or(10);
    if (iters < 1)
    {
        args.Fail("iters", "geometric_median needs at least 1 iteration");
    }
    return std::make_unique<robust::GeometricMedianRule>(iters);
}

} // namespace fedran
