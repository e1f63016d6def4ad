#include "models/fl/rdp-accountant.h"

#include "compression/portable-math.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace fedran
{

namespace
{

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kSqrtPi = 1.7724538509055160273;
constexpr double kSqrt2 = 1.4142135623730950488;

/// log(1 + x) without losing x's digits near 0 (Goldberg's correction of Log(1 + x)).
double
Log1p(double x)
{
    const double u = 1.0 + x;
    if (u == 1.0)
    {
        return x;
    }
    return pmath::Log(u) * x / (u - 1.0);
}

/// e^x - 1 without cancellation near 0 (Kahan's correction of Exp(x) - 1).
double
Expm1(double x)
{
    const double u = pmath::Exp(x);
    if (u == 1.0)
    {
        return x;
    }
    const double um1 = u - 1.0;
    if (um1 == -1.0 || std::isinf(u))
    {
        return um1;
    }
    return um1 * x / pmath::Log(u);
}

/// log(e^a + e^b).
double
LogAdd(double a, double b)
{
    if (a == -kInf)
    {
        return b;
    }
    if (b == -kInf)
    {
        return a;
    }
    const double hi = a > b ? a : b;
    const double lo = a > b ? b : a;
    return hi + Log1p(pmath::Exp(lo - hi));
}

/// log(e^a - e^b) for a >= b.
double
LogSub(double a, double b)
{
    if (b == -kInf)
    {
        return a;
    }
    if (a <= b)
    {
        return -kInf; // equal (or rounding below): nothing left
    }
    const double d = a - b;
    if (d > 700.0)
    {
        return a; // e^b is below a's last digit
    }
    return pmath::Log(Expm1(d)) + b;
}

/// The continued fraction x + (1/2)/(x + 1/(x + (3/2)/(x + ...))) = e^{-x^2} / (sqrt(pi)
/// erfc(x)) for x >= 2, by the modified Lentz method (it converges within ~100 terms there).
double
ErfcFraction(double x)
{
    const double tiny = 1e-300;
    double f = x;
    double c = f;
    double d = 0.0;
    for (int n = 1; n < 5000; ++n)
    {
        const double a = 0.5 * n;
        d = x + a * d;
        d = d == 0.0 ? tiny : d;
        d = 1.0 / d;
        c = x + a / c;
        c = c == 0.0 ? tiny : c;
        const double delta = c * d;
        f *= delta;
        if (std::fabs(delta - 1.0) < 1e-16)
        {
            break;
        }
    }
    return f;
}

/// erf(x) for |x| < 2 from the series of positive terms
/// (2/sqrt(pi)) e^{-x^2} sum_n (2x^2)^n x / (2n+1)!!, which cancels nothing.
double
ErfSeries(double x)
{
    const double x2 = x * x;
    double term = x;
    double sum = x;
    for (int n = 1; n < 200; ++n)
    {
        term *= 2.0 * x2 / (2.0 * n + 1.0);
        sum += term;
        if (std::fabs(term) < 1e-17 * std::fabs(sum))
        {
            break;
        }
    }
    return 2.0 / kSqrtPi * pmath::Exp(-x2) * sum;
}

/// log(erfc(x)), accurate in the far tail (x up to ~1e150) where erfc underflows.
double
LogErfc(double x)
{
    if (x >= 2.0)
    {
        return -x * x - pmath::Log(kSqrtPi * ErfcFraction(x));
    }
    if (x > -2.0)
    {
        return pmath::Log(1.0 - ErfSeries(x));
    }
    return pmath::Log(2.0 - pmath::Exp(-x * x) / (kSqrtPi * ErfcFraction(-x)));
}

/// log A_alpha for an integer order: log-sum-exp of
/// C(alpha,k) (1-q)^(alpha-k) q^k exp((k^2-k)/(2 z^2)), k = 0..alpha.
double
LogAInt(double q, double z, uint64_t alpha)
{
    const double logQ = pmath::Log(q);
    const double log1mQ = Log1p(-q);
    const double a = static_cast<double>(alpha);
    double logBinom = 0.0; // log C(alpha, k), a running sum of logarithms of integers
    double logA = -kInf;
    for (uint64_t k = 0; k <= alpha; ++k)
    {
        const double kd = static_cast<double>(k);
        const double s = logBinom + kd * logQ + (a - kd) * log1mQ + (kd * kd - kd) / (2.0 * z * z);
        logA = LogAdd(logA, s);
        logBinom += pmath::Log(a - kd) - pmath::Log(kd + 1.0);
    }
    return logA;
}

/// log A_alpha for a fractional order: the two erfc-weighted series split at
/// z0 = z^2 ln(1/q - 1) + 1/2 (Opacus' _compute_log_a_frac), summed until both terms drop
/// below e^-30.
double
LogAFrac(double q, double z, double alpha)
{
    double logA0 = -kInf;
    double logA1 = -kInf;
    const double z0 = z * z * pmath::Log(1.0 / q - 1.0) + 0.5;
    const double logQ = pmath::Log(q);
    const double log1mQ = Log1p(-q);
    const double logHalf = pmath::Log(0.5);
    double coef = 1.0; // C(alpha, i) by its running product; its sign alternates past alpha
    for (uint64_t step = 0;; ++step)
    {
        const double i = static_cast<double>(step);
        const double j = alpha - i;
        const double logCoef = pmath::Log(std::fabs(coef));
        const double logT0 = logCoef + i * logQ + j * log1mQ;
        const double logT1 = logCoef + j * logQ + i * log1mQ;
        const double logE0 = logHalf + LogErfc((i - z0) / (kSqrt2 * z));
        const double logE1 = logHalf + LogErfc((z0 - j) / (kSqrt2 * z));
        const double logS0 = logT0 + (i * i - i) / (2.0 * z * z) + logE0;
        const double logS1 = logT1 + (j * j - j) / (2.0 * z * z) + logE1;
        if (coef > 0.0)
        {
            logA0 = LogAdd(logA0, logS0);
            logA1 = LogAdd(logA1, logS1);
        }
        else
        {
            logA0 = LogSub(logA0, logS0);
            logA1 = LogSub(logA1, logS1);
        }
        if ((logS0 > logS1 ? logS0 : logS1) < -30.0 || step > 100000)
        {
            break;
        }
        coef *= (alpha - i) / (i + 1.0);
    }
    return LogAdd(logA0, logA1);
}

} // namespace

std::vector<double>
DefaultRdpOrders()
{
    std::vector<double> orders;
    for (int x = 1; x <= 99; ++x)
    {
        orders.push_back(1.0 + x / 10.0);
    }
    for (int a = 12; a <= 63; ++a)
    {
        orders.push_back(a);
    }
    return orders;
}

double
SubsampledGaussianRdp(double q, double z, double alpha)
{
    if (!(q >= 0.0 && q <= 1.0) || !(z >= 0.0) || !(alpha > 1.0))
    {
        throw std::invalid_argument("SubsampledGaussianRdp: needs 0 <= q <= 1, z >= 0, alpha > 1");
    }
    if (q == 0.0)
    {
        return 0.0;
    }
    if (z == 0.0 || std::isinf(alpha))
    {
        return kInf;
    }
    if (q == 1.0)
    {
        return alpha / (2.0 * z * z);
    }
    if (alpha == std::floor(alpha) && alpha < 1e15)
    {
        return LogAInt(q, z, static_cast<uint64_t>(alpha)) / (alpha - 1.0);
    }
    return LogAFrac(q, z, alpha) / (alpha - 1.0);
}

PrivacySpent
TightEpsilon(const std::vector<double>& orders, const std::vector<double>& rdp, double delta)
{
    if (orders.size() != rdp.size() || orders.empty() || !(delta > 0.0))
    {
        throw std::invalid_argument("TightEpsilon: needs one RDP per order and delta > 0");
    }
    PrivacySpent best{kInf, orders.front()};
    for (size_t i = 0; i < orders.size(); ++i)
    {
        const double a = orders[i];
        const double r = rdp[i];
        double eps = kInf;
        if (delta * delta + Expm1(-r) > 0.0)
        {
            eps = 0.0; // the KL bound delta <= sqrt(1 - e^-rdp) already holds
        }
        else if (a > 1.01)
        {
            eps = r + Log1p(-1.0 / a) - pmath::Log(delta * a) / (a - 1.0);
        }
        if (eps < best.epsilon)
        {
            best = {eps, a};
        }
    }
    best.epsilon = best.epsilon < 0.0 ? 0.0 : best.epsilon;
    return best;
}

PrivacySpent
ClassicEpsilon(const std::vector<double>& orders, const std::vector<double>& rdp, double delta)
{
    if (orders.size() != rdp.size() || orders.empty() || !(delta > 0.0))
    {
        throw std::invalid_argument("ClassicEpsilon: needs one RDP per order and delta > 0");
    }
    PrivacySpent best{kInf, orders.front()};
    const double logDelta = pmath::Log(delta);
    for (size_t i = 0; i < orders.size(); ++i)
    {
        const double eps = rdp[i] - logDelta / (orders[i] - 1.0);
        if (eps < best.epsilon)
        {
            best = {eps, orders[i]};
        }
    }
    return best;
}

RdpAccountant::RdpAccountant(std::vector<double> orders)
    : m_orders(std::move(orders))
    , m_rdp(m_orders.size(), 0.0)
{
}

void
RdpAccountant::Compose(double q, double z, uint64_t steps)
{
    for (size_t i = 0; i < m_orders.size(); ++i)
    {
        m_rdp[i] += static_cast<double>(steps) * SubsampledGaussianRdp(q, z, m_orders[i]);
    }
}

PrivacySpent
RdpAccountant::Spent(double delta) const
{
    return TightEpsilon(m_orders, m_rdp, delta);
}

} // namespace fedran
