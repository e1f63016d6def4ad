#include "models/fl/server-state.h"

#include "compression/codec-spec.h"

namespace fedran
{

ServerState
MakeServerState(const FederatedTask& task,
                uint32_t ruleCapacity,
                const CodecSpec& downlinkSpec,
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
    state.uplink = MakeCodec(task.uplinkCodec);
    state.rule = MakeAggregationRule(
        task.robust,
        RuleContext{ruleCapacity, state.uplink.get(), task.uplinkCodec.BringsAggregator()});
    state.rule->Reset(size);
    state.modelEncoder = MakeCodec(downlinkSpec.Empty() ? task.downlinkCodec : downlinkSpec);
    state.codecRng = Rng(task.seed, codecStream);
    return state;
}

} // namespace fedran
