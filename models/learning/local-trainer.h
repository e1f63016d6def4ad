#ifndef FEDRAN_MODELS_LEARNING_LOCAL_TRAINER_H
#define FEDRAN_MODELS_LEARNING_LOCAL_TRAINER_H

// A client's local training in one FL round: plain minibatch SGD from the global model.

#include "compression/rng.h"
#include "models/learning/dataset.h"
#include "models/learning/model.h"

#include <cstdint>
#include <span>
#include <vector>

namespace fedran
{

struct TrainingConfig
{
    uint32_t localEpochs = 1;
    uint32_t batchSize = 32;
    double lr = 0.05;
};

struct TrainingResult
{
    std::vector<float> update; ///< local params minus the starting params
    double meanLoss = 0;       ///< mean of the minibatch losses over the whole run
    uint32_t samples = 0;      ///< examples the client holds (its FedAvg weight), not x epochs
    uint32_t steps = 0;        ///< SGD steps taken: localEpochs x ceil(samples / batchSize)
};

/**
 * Runs config.localEpochs epochs of SGD over data[indices], starting from `start`. Each
 * epoch reshuffles the client's indices with `rng` and walks them in batches of batchSize,
 * the last, partial batch included. Deterministic for a given rng state. Allocates its
 * buffers once per call, never per step.
 *
 * Throws std::invalid_argument if start does not match the model's layout or batchSize is 0.
 */
TrainingResult TrainLocal(const Model& model,
                          std::span<const float> start,
                          const Dataset& data,
                          std::span<const uint32_t> indices,
                          const TrainingConfig& config,
                          Rng& rng);

} // namespace fedran

#endif
