#ifndef FEDRAN_MODELS_FL_SERVER_STATE_H
#define FEDRAN_MODELS_FL_SERVER_STATE_H

// What the server keeps of the model in either mode (RoundCoordinator, AsyncCoordinator):
// the global model, the rule that combines updates, the optimiser that applies the result and
// the codecs it encodes the model with and decodes and prices the updates with.

#include "compression/codec-spec.h"
#include "models/fl/aggregation-rule.h"
#include "models/fl/codec-bank.h"
#include "models/fl/dp-aggregation.h"
#include "models/fl/federated-task.h"
#include "models/learning/server-optimizer.h"

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace fedran
{

struct ServerState
{
    /// The global model, initialised from the task's seed (kModelInitStream).
    std::vector<float> global;
    std::vector<float> scratch;                 ///< a decoded update (model-sized)
    std::vector<float> combined;                ///< the rule's result (model-sized)
    std::unique_ptr<ServerOptimizer> optimizer; ///< task.serverOptimizer
    std::unique_ptr<AggregationRule> rule;      ///< task.robust, reset for the model's size
    /// The server's codecs: the uplink codec as configured, the model encoder, the clients'
    /// update decoders and downlink encoders.
    CodecBank codecs;
    Rng codecRng; ///< the downlink codec's draws
    /// privacy.dp: the privacy spent (nullptr without DP).
    std::shared_ptr<const DpLedger> privacy;
    /// privacy.dp.adaptive_clipping: the clip norm's estimator, which the DP rule reads at
    /// each round's start (nullptr without).
    std::shared_ptr<AdaptiveClip> clip;
};

/// The state for `task`: a rule for up to `ruleCapacity` updates at a time, model frames
/// encoded with `downlinkSpec` (empty: the task's downlink codec) drawing from `codecStream`,
/// updates of the children in `childUplinks` (edge aggregators) decoded with their own codec.
/// With privacy.dp central the rule is the DP aggregation for `ruleCapacity` (the round's
/// clients_per_round) in place of server.robust's; in local mode the sites noise their own
/// updates and the rule is server.robust's.
ServerState MakeServerState(const FederatedTask& task,
                            uint32_t ruleCapacity,
                            const CodecSpec& downlinkSpec,
                            std::map<uint32_t, CodecSpec> childUplinks,
                            uint64_t codecStream);

} // namespace fedran

#endif
