#include "models/fl/server-state.h"

namespace fedran
{

ServerState
MakeServerState(const FederatedTask& task,
                uint32_t ruleCapacity,
                const nlohmann::json& downlinkSpec,
                uint64_t codecStream)
{
    ServerState state;
    const uint64_t size = task.model->Layout().TotalSize();
    state.global.assign(size, 0.0f);
    Rng initRng(task.seed, kModelInitStream);
    task.model->InitParams(state.global, initRng);
    state.scratch.assign(size, 0.0f);
    state.combined.assign(size, 0.0f);
    state.optimizer = MakeServerOptimizer(task.serverOptimizer);
    state.uplink = MakeCodec(task.uplinkCodec, "compression.uplink");
    state.rule = MakeAggregationRule(
        RuleArgs{*state.uplink, task.robust, ruleCapacity, UsesMajorityVote(task.uplinkCodec)});
    state.rule->Reset(size);
    state.modelEncoder = MakeCodec(downlinkSpec.is_null() ? task.downlinkCodec : downlinkSpec,
                                   "compression.downlink");
    state.codecRng = Rng(task.seed, codecStream);
    return state;
}

} // namespace fedran
