#ifndef FEDRAN_MODELS_LEARNING_SYNTHETIC_DATA_H
#define FEDRAN_MODELS_LEARNING_SYNTHETIC_DATA_H

// LEAF / FedProx's Synthetic(alpha, beta) federated classification data (Shamir et al. 2014;
// Li et al., "Federated Optimization in Heterogeneous Networks", MLSys 2020).

#include "compression/rng.h"
#include "models/learning/client-sizes.h"
#include "models/learning/federated-data.h"

#include <cstdint>

namespace fedran
{

/// FedProx's defaults: 60 features, 10 classes, 10% of each client's examples held out.
constexpr uint32_t kSyntheticFeatures = 60;
constexpr uint32_t kSyntheticClasses = 10;
constexpr double kSyntheticTestFraction = 0.1;

/**
 * Generates each client k's examples from its own model, as FedProx's generate_synthetic.py:
 *
 *   u_k ~ N(0, alpha^2), B_k ~ N(0, beta^2)        (alpha, beta are standard deviations, as
 *                                                   numpy's normal(0, alpha) in the reference)
 *   W_k[c][j] ~ N(u_k, 1), b_k[c] ~ N(u_k, 1)      (classes x features, classes)
 *   v_k[j] ~ N(B_k, 1);  x ~ N(v_k, diag(Sigma)), Sigma_jj = j^-1.2 (j from 1)
 *   y = argmax(W_k x + b_k)                        (= argmax softmax; first index on ties)
 *
 * Client sizes (training + test) come from DrawClientSizes(clients, sizes, rng); SizeSpec::
 * Leaf() reproduces FedProx's lognormal(4, 2) + 50. The last round(testFraction * n_k) of a
 * client's examples (at most n_k - 1) go to the shared test set, the rest to the shared
 * training set in client order, so partition[k] is a contiguous ascending range. Features are
 * not scaled; both halves declare `classes` classes even if some label never occurs.
 *
 * Beware: u_k adds the same amount to every class's logit, so alpha does not change the
 * labels at all (only beta, through the feature means, and the per-client W_k noise do). This
 * is a property of the published generator, reproduced here, not a bug of this port.
 *
 * Deterministic for a given Rng state. Throws std::invalid_argument for clients, features or
 * classes of 0, classes > 256, a negative or non-finite alpha/beta, testFraction outside
 * [0, 1), or a client left with no training example; DataError if the data would be too big
 * (see DrawClientSizes).
 */
FederatedData MakeSyntheticLeaf(uint32_t clients,
                                double alpha,
                                double beta,
                                uint32_t features,
                                uint32_t classes,
                                const SizeSpec& sizes,
                                double testFraction,
                                Rng& rng);

} // namespace fedran

#endif
