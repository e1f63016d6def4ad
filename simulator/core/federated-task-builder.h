#ifndef FEDRAN_SIMULATOR_CORE_FEDERATED_TASK_BUILDER_H
#define FEDRAN_SIMULATOR_CORE_FEDERATED_TASK_BUILDER_H

// From a scenario's learning keys to the FederatedTask every application shares: the data
// (loaded or generated once), each client's slice of it, the model and the training settings.

#include "models/fl/federated-task.h"
#include "simulator/scenario/scenario.h"

#include <cstdint>
#include <memory>

namespace fedran
{

/**
 * Loads or generates config.data, splits the training examples among `clients` clients as
 * config.data.partition says (synthetic data comes already split), builds config.model for the
 * data's features and classes, and copies the training and codec settings.
 *
 * Throws DataError for a data file that is missing or malformed, or a partition the data
 * cannot give (too few examples for min_samples or the shards), and ScenarioError for a model
 * or generator setting the data cannot take; both messages start with the JSON path at fault
 * ("data.path: ...", "data.partition: ...", "model.type: ...").
 */
std::shared_ptr<FederatedTask> BuildFederatedTask(const ScenarioConfig& config, uint32_t clients);

} // namespace fedran

#endif
