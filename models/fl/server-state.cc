#include "models/fl/server-state.h"

#include "compression/codec-spec.h"

namespace fedran
{

ServerState
MakeServerState(const FederatedTask& task,
                uint32_t ruleCapacity,
                const CodecSpec& downlinkSpec,
                std::map<uint32_t, CodecSpec> childUplinks,
                uint64_t codecStream)
{
    ServerState state;
    state.codecs = CodecBank(task.uplinkCodec,
                             downlinkSpec.Empty() ? task.downlinkCodec : downlinkSpec,
                             std::move(childUplinks));
    const uint64_t size = task.model->Layout().TotalSize();
    state.global.assign(size, 0.0f);
    Rng initRng(task.seed, kModelInitStream);
    task.model->InitParams(state.global, initRng);
    state.scratch.assign(size, 0.0f);
    state.combined.assign(size, 0.0f);
    state.optimizer = MakeServerOptimizer(task.serverOptimizer);
    state.rule = MakeAggregationRule(
        task.robust,
        RuleContext{ruleCapacity, &state.codecs.Uplink(), task.uplinkCodec.BringsAggregator()});
    if (task.dp.AdaptiveClipping())
    {
        state.clip = std::make_shared<AdaptiveClip>(task.dp,
                                                    ruleCapacity,
                                                    Rng(task.seed, kDpClipCountStream));
    }
    if (task.dp.Central())
    {
        // The scenario refused every other rule, async mode and edge aggregation with it.
        state.rule =
            MakeCentralDpRule(task.dp, ruleCapacity, Rng(task.seed, kDpNoiseStream), state.clip);
    }
    if (task.dp.Enabled())
    {
        state.privacy = std::make_shared<DpLedger>(task.dp, ruleCapacity, task.Clients());
    }
    state.rule->Reset(size);
    state.codecRng = Rng(task.seed, codecStream);
    return state;
}

} // namespace fedran
