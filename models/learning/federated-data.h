#ifndef FEDRAN_MODELS_LEARNING_FEDERATED_DATA_H
#define FEDRAN_MODELS_LEARNING_FEDERATED_DATA_H

// A dataset that comes already divided among clients (generated per client, like LEAF's
// Synthetic), as opposed to one that a partition function splits afterwards.

#include "models/learning/dataset.h"

#include <cstdint>
#include <vector>

namespace fedran
{

struct FederatedData
{
    TrainTestData data; ///< every client's training examples in one shared train Dataset
    /// Per client: its indices into data.train, ascending (same form as PartitionIid's result).
    std::vector<std::vector<uint32_t>> partition;
};

} // namespace fedran

#endif
