#ifndef FEDRAN_MODELS_LEARNING_GRADIENT_SPREAD_H
#define FEDRAN_MODELS_LEARNING_GRADIENT_SPREAD_H

// The variance of the minibatch gradient at one point of parameter space, for an adaptive
// uplink's variance rule (models/fl/rate-controller.h). TrainingResult::gradVariance comes
// for free from the training steps but compares gradients taken at different parameters, so
// it also counts the drift of the gradient along the trajectory; this one holds the parameters
// still and pays for it with extra gradient evaluations.

#include "compression/rng.h"
#include "models/learning/dataset.h"
#include "models/learning/model.h"

#include <cstdint>
#include <span>

namespace fedran
{

/// Minibatches GradientSpread draws by default: 4 gradient evaluations per round.
constexpr uint32_t kGradientSpreadBatches = 4;

/**
 * tr Cov(g_b) of the data-loss gradient of a minibatch of min(batchSize, n) examples at
 * `params`, estimated from `batches` (>= 2) minibatches, each drawn without replacement from
 * `indices` (n examples), independently of one another:
 *
 *     s^2 = sum_i ||g_i - gbar||^2 / (batches - 1),   gbar = mean of the g_i,
 *
 * the sample variance, unbiased for tr Cov(g_b) because the g_i are independent draws of the
 * same distribution. For b = min(batchSize, n) that is sigma^2 / b x (n - b) / (n - 1)
 * (sigma^2: the per-example variance; the finite-population factor because a batch holds
 * distinct examples). No drift: every g_i is taken at `params`. Costs `batches` gradient
 * evaluations of b examples (what `batches` training steps cost, without the updates) and
 * `batches` gradient-sized buffers. 0 if n < 2 or batches < 2. Deterministic for a given
 * rng state.
 */
double GradientSpread(const Model& model,
                      std::span<const float> params,
                      const Dataset& data,
                      std::span<const uint32_t> indices,
                      uint32_t batchSize,
                      uint32_t batches,
                      Rng& rng);

/// Examples GradientSpread evaluates: batches x min(batchSize, n), or 0 when it computes nothing.
uint64_t GradientSpreadExamples(uint32_t batchSize, uint32_t batches, uint64_t n);

} // namespace fedran

#endif
