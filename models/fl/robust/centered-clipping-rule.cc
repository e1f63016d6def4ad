// "centered_clipping" (Karimireddy, He and Jaggi, ICML 2021): from the previous round's
// result v (zeros in the first round),
//     v <- v + (1/n) sum_i (x_i - v) min(1, tau / ||x_i - v||),
// `iters` times (default 1, the paper's L = 1); v is also the start of the next round
// (their momentum-like centre). An update at a non-finite distance moves nothing. An
// attacker moves v by at most tau x (its share) per iteration. aggregate_weight:
// min(1, tau / ||x_i - v||) / n of the last iteration (how much of its deviation counted).

#include "models/fl/robust/buffered-rule.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

namespace fedran
{

namespace robust
{
namespace
{

class CenteredClippingRule final : public BufferedRule
{
  public:
    // Per iteration: n distances to the centre and the clipped step.
    double ResultWork(size_t count, size_t size) const override
    {
        return double(m_iters) * double(count) * double(size);
    }

    CenteredClippingRule(double tau, uint32_t iters)
        : m_tau(tau)
        , m_iters(iters)
    {
    }

  private:
    void Combine(std::span<float> out, std::vector<double>& weights) override
    {
        const size_t n = Count();
        if (m_center.size() != Size())
        {
            m_center.assign(Size(), 0.0);
        }
        std::vector<double> step(Size());
        for (uint32_t t = 0; t < m_iters; ++t)
        {
            std::fill(step.begin(), step.end(), 0.0);
            for (size_t i = 0; i < n; ++i)
            {
                const double d = std::sqrt(SquaredDistance(Update(i), m_center));
                const double clip = !std::isfinite(d) ? 0.0 : d > m_tau ? m_tau / d : 1.0;
                weights[i] = clip / double(n);
                if (clip == 0.0)
                {
                    continue;
                }
                std::span<const float> x = Update(i);
                for (size_t j = 0; j < Size(); ++j)
                {
                    step[j] += (double(x[j]) - m_center[j]) * clip;
                }
            }
            for (size_t j = 0; j < Size(); ++j)
            {
                m_center[j] += step[j] / double(n);
            }
        }
        for (size_t j = 0; j < Size(); ++j)
        {
            out[j] = static_cast<float>(m_center[j]);
        }
    }

    double m_tau;
    uint32_t m_iters;
    std::vector<double> m_center; ///< the last result: where the next round starts
};

} // namespace
} // namespace robust

std::unique_ptr<AggregationRule>
MakeCenteredClippingRule(RuleArgs& args)
{
    const std::optional<double> tau = args.TakeNumber("tau");
    const uint32_t iters = args.TakeCount("iters").value_or(1);
    if (!tau)
    {
        args.Fail("tau",
                  "centered_clipping needs tau, the clipping radius (in the units of the "
                  "updates: see update_norm in clients.csv)");
    }
    if (!(*tau > 0.0) || iters < 1)
    {
        args.Fail("tau", "centered_clipping needs tau > 0 and iters >= 1");
    }
    return std::make_unique<robust::CenteredClippingRule>(*tau, iters);
}

} // namespace fedran
