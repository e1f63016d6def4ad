#ifndef FEDRAN_MODELS_LEARNING_SYNTHETIC_MODEL_H
#define FEDRAN_MODELS_LEARNING_SYNTHETIC_MODEL_H

// What the up-front (synthetic-data.h) and on-demand (synthetic-clients.h) Synthetic(alpha,
// beta) generators share: a client's generative model and how examples are drawn from it.
// They differ only in the order their random numbers are drawn.

#include "compression/rng.h"
#include "models/learning/dataset.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fedran
{

/// One client's generative model: logits = W x + b, x = mean + scale .* N(0, I).
struct SyntheticClientModel
{
    std::vector<double> w; ///< classes x features, row-major
    std::vector<double> b;
    std::vector<double> mean;
};

/// Throws std::invalid_argument("<who>: ...") for clients, features or classes of 0, classes
/// > 256, a negative or non-finite alpha/beta, or testFraction outside [0, 1).
void CheckSyntheticArguments(const std::string& who,
                             uint32_t clients,
                             double alpha,
                             double beta,
                             uint32_t features,
                             uint32_t classes,
                             double testFraction);

/// sqrt(Sigma_jj) = j^-0.6 for j = 1..features.
std::vector<double> SyntheticScales(uint32_t features);

/// Appends `n` examples drawn from `model` to `out` (out.features and out.classes set); each
/// label is argmax(W x + b) of the stored floats, the first index on ties.
void AppendSyntheticExamples(const SyntheticClientModel& model,
                             const std::vector<double>& scale,
                             uint32_t n,
                             Rng& rng,
                             Dataset& out);

} // namespace fedran

#endif
