#ifndef FEDRAN_MODELS_FL_LOSS_REPORT_H
#define FEDRAN_MODELS_FL_LOSS_REPORT_H

// A client's loss report for a level policy (level-policy.h): its training loss of the
// round's model, before training, F_k(p_t), sent as one float32 at the end of its update
// frame's payload (after the codec's payload; an empty codec payload before it is a skip).
// The server takes it off before decoding.

#include "models/fl/federated-task.h"

#include <cstdint>
#include <span>
#include <vector>

namespace fedran
{

/// Appends `loss` as a little-endian float32.
void AppendLossReport(std::vector<uint8_t>& payload, double loss);

/// The codec's payload before the report; `loss` gets the report. Throws DecodeError when the
/// payload is too short to hold one.
std::span<const uint8_t> TakeLossReport(std::span<const uint8_t> payload, double& loss);

/**
 * The mean data loss of `params` over client `client`'s examples, F_k(p_t), computed in
 * minibatches of training.batchSize (each a forward and backward pass: the model has no
 * loss-only call), so it costs what one epoch of training steps costs without the updates
 * (LossReportExamples, charged to the client's compute time).
 */
double ClientLoss(const FederatedTask& task, uint32_t client, std::span<const float> params);

/// Examples ClientLoss processes for `client`: all of its own.
uint64_t LossReportExamples(const FederatedTask& task, uint32_t client);

} // namespace fedran

#endif
