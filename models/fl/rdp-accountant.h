#ifndef FEDRAN_MODELS_FL_RDP_ACCOUNTANT_H
#define FEDRAN_MODELS_FL_RDP_ACCOUNTANT_H

// The Renyi-DP accountant of the Poisson-subsampled Gaussian mechanism (privacy.dp): each
// round is one step in which every site joins with probability q and the server adds Gaussian
// noise of multiplier z to the clipped sum. The RDP of a step at order alpha is Mironov, Talwar
// and Zhang's (arXiv 1908.10530 §3.3), integer and fractional orders, as Opacus and
// dp_accounting compute it; steps add up; the conversion to (epsilon, delta) is the tight one
// (Balle et al. 2020, Thm 21; Canonne, Kamath, Steinke 2020, Prop. 12) as dp_accounting does
// it, or Mironov's classic one on request.
//
// Same bits on every host: epsilon is a traced value (rounds.csv), so every logarithm and
// exponential here is compression/portable-math.h's (IEEE +, x, / in a fixed order), erfc's
// logarithm is computed here from the same, binomial coefficients are running products, and
// nothing of <cmath> but sqrt, floor and fabs is called (all exact under IEEE 754).

#include <cstdint>
#include <vector>

namespace fedran
{

/// Opacus' DEFAULT_ALPHAS: 1.1, 1.2, ..., 10.9, then 12, 13, ..., 63.
std::vector<double> DefaultRdpOrders();

/// RDP at order `alpha` (> 1) of one step of the Gaussian mechanism of noise multiplier `z`
/// on a Poisson sample of rate `q` (0 <= q <= 1): 0 for q = 0, alpha / (2 z^2) for q = 1,
/// +inf for z = 0.
double SubsampledGaussianRdp(double q, double z, double alpha);

/// An (epsilon, delta) guarantee and the order that gave it.
struct PrivacySpent
{
    double epsilon = 0.0;
    double order = 0.0;
};

/// The tight conversion, as dp_accounting's compute_epsilon: per order
/// eps = rdp + ln(1 - 1/alpha) - ln(delta * alpha) / (alpha - 1), 0 where
/// delta^2 + expm1(-rdp) > 0, +inf for alpha <= 1.01; the least over the orders (the first
/// on a tie), floored at 0.
PrivacySpent TightEpsilon(const std::vector<double>& orders,
                          const std::vector<double>& rdp,
                          double delta);

/// Mironov's classic conversion (2017, Prop. 3): min over the orders of
/// rdp - ln(delta) / (alpha - 1).
PrivacySpent ClassicEpsilon(const std::vector<double>& orders,
                            const std::vector<double>& rdp,
                            double delta);

/// Composes steps over a fixed grid of orders.
class RdpAccountant
{
  public:
    explicit RdpAccountant(std::vector<double> orders = DefaultRdpOrders());

    /// `steps` steps of the subsampled Gaussian (q, z).
    void Compose(double q, double z, uint64_t steps = 1);

    /// The tight (epsilon, delta) guarantee of the steps so far.
    PrivacySpent Spent(double delta) const;

    const std::vector<double>& Orders() const
    {
        return m_orders;
    }

    const std::vector<double>& Rdp() const
    {
        return m_rdp;
    }

  private:
    std::vector<double> m_orders;
    std::vector<double> m_rdp; ///< per order, summed over the steps
};

} // namespace fedran

#endif
