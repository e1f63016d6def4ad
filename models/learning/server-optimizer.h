#ifndef FEDRAN_MODELS_LEARNING_SERVER_OPTIMIZER_H
#define FEDRAN_MODELS_LEARNING_SERVER_OPTIMIZER_H

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace fedran
{

/// Settings of the server-side optimiser ("server" object of a scenario).
struct ServerOptimizerConfig
{
    std::string method = "fedavg"; ///< "fedavg" | "fedavgm" | "fedadam"
    double lr = 1.0;               ///< server learning rate η
    double momentum = 0.9;         ///< fedavgm: β
    double beta1 = 0.9;            ///< fedadam: first-moment decay
    double beta2 = 0.99;           ///< fedadam: second-moment decay
    double tau = 1e-3;             ///< fedadam: adaptivity (ε) term
};

/**
 * Applies a round's combined client update Δ (the aggregator's result, a pseudo-gradient with
 * the sign of a descent step) to the global model.
 *  - fedavg (McMahan et al. 2017): w ← w + η·Δ.
 *  - fedavgm (Hsu et al. 2019): v ← β·v + Δ; w ← w + η·v.
 *  - fedadam (Reddi et al. 2021, "Adaptive Federated Optimization"):
 *    m ← β1·m + (1−β1)·Δ; v ← β2·v + (1−β2)·Δ²; w ← w + η·m / (√v + τ).
 * State is kept in double; rounds without any update leave model and state unchanged.
 */
class ServerOptimizer
{
  public:
    virtual ~ServerOptimizer() = default;
    virtual void Apply(std::span<const float> delta, std::span<float> params) = 0;
};

/// Throws std::invalid_argument for an unknown method or out-of-range settings.
std::unique_ptr<ServerOptimizer> MakeServerOptimizer(const ServerOptimizerConfig& config);

} // namespace fedran

#endif
