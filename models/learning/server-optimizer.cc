#include "models/learning/server-optimizer.h"

#include <cmath>
#include <stdexcept>

namespace fedran
{

namespace
{

class FedAvg : public ServerOptimizer
{
  public:
    explicit FedAvg(double lr)
        : m_lr(lr)
    {
    }

    void Apply(std::span<const float> delta, std::span<float> params) override
    {
        for (size_t i = 0; i < params.size(); ++i)
        {
            params[i] = static_cast<float>(params[i] + m_lr * delta[i]);
        }
    }

  private:
    double m_lr;
};

class FedAvgM : public ServerOptimizer
{
  public:
    FedAvgM(double lr, double momentum)
        : m_lr(lr)
        , m_momentum(momentum)
    {
    }

    void Apply(std::span<const float> delta, std::span<float> params) override
    {
        m_velocity.resize(params.size(), 0.0);
        for (size_t i = 0; i < params.size(); ++i)
        {
            m_velocity[i] = m_momentum * m_velocity[i] + delta[i];
            params[i] = static_cast<float>(params[i] + m_lr * m_velocity[i]);
        }
    }

  private:
    double m_lr;
    double m_momentum;
    std::vector<double> m_velocity;
};

class FedAdam : public ServerOptimizer
{
  public:
    explicit FedAdam(const ServerOptimizerConfig& c)
        : m_c(c)
    {
    }

    void Apply(std::span<const float> delta, std::span<float> params) override
    {
        m_m.resize(params.size(), 0.0);
        m_v.resize(params.size(), 0.0);
        for (size_t i = 0; i < params.size(); ++i)
        {
            const double d = delta[i];
            m_m[i] = m_c.beta1 * m_m[i] + (1.0 - m_c.beta1) * d;
            m_v[i] = m_c.beta2 * m_v[i] + (1.0 - m_c.beta2) * d * d;
            params[i] =
                static_cast<float>(params[i] + m_c.lr * m_m[i] / (std::sqrt(m_v[i]) + m_c.tau));
        }
    }

  private:
    ServerOptimizerConfig m_c;
    std::vector<double> m_m;
    std::vector<double> m_v;
};

void
Require(bool ok, const std::string& what)
{
    if (!ok)
    {
        throw std::invalid_argument("server optimizer: " + what);
    }
}

} // namespace

std::unique_ptr<ServerOptimizer>
MakeServerOptimizer(const ServerOptimizerConfig& c)
{
    Require(c.lr > 0.0, "lr must be positive");
    if (c.method == "fedavg")
    {
        return std::make_unique<FedAvg>(c.lr);
    }
    if (c.method == "fedavgm")
    {
        Require(c.momentum >= 0.0 && c.momentum < 1.0, "momentum must be in [0, 1)");
        return std::make_unique<FedAvgM>(c.lr, c.momentum);
    }
    if (c.method == "fedadam")
    {
        Require(c.beta1 >= 0.0 && c.beta1 < 1.0, "beta1 must be in [0, 1)");
        Require(c.beta2 >= 0.0 && c.beta2 < 1.0, "beta2 must be in [0, 1)");
        Require(c.tau > 0.0, "tau must be positive");
        return std::make_unique<FedAdam>(c);
    }
    throw std::invalid_argument("server optimizer: unknown method '" + c.method + "'");
}

} // namespace fedran
