// What judging rungs on the real update costs an adaptive client (compression/adaptive-ladder.h):
// the study's ladder (none, 8-bit quantization, error feedback over top_k 1%, sign) on one
// update of a softmax (7,850 floats), a 200k-parameter MLP and a 5M-parameter model, one thread.
//
//   BM_EncodeOneRung/n/rung:    the chosen rung's encode alone (what a probe-judged client did)
//   BM_TrialUpTo/n/rung:        trials of rungs 0..rung and the commit (deadline choosing rung)
//   BM_TrialAllWithError/n:     trials of all rungs with their errors (variance, hybrid)
//
// Run: build/bench/adaptive-trial-bench --benchmark_min_time=0.2

#include "compression/adaptive-ladder.h"
#include "compression/codec-spec.h"

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace
{

using namespace fedran;
using nlohmann::json;

const json&
Spec()
{
    static const json spec = json::parse(R"({"type": "adaptive", "ladder": [{"type": "none"},
        {"type": "quantization", "bits": 8},
        {"type": "error_feedback", "base": {"type": "top_k", "ratio": 0.01}},
        {"type": "sign"}]})");
    return spec;
}

std::vector<float>
Update(size_t n)
{
    std::vector<float> x(n);
    Rng rng(1, 0);
    for (float& value : x)
    {
        value = 0.01f * static_cast<float>(rng.Normal());
    }
    return x;
}

void
BM_EncodeOneRung(benchmark::State& state)
{
    const TensorLayout layout({{"w", {uint32_t(state.range(0))}}});
    const std::vector<float> update = Update(layout.TotalSize());
    auto codec = MakeCodec(Spec(), "bench");
    codec->Ladder()->SelectRung(size_t(state.range(1)));
    Rng rng(2, 0);
    std::vector<uint8_t> payload;
    for (auto _ : state)
    {
        payload.clear();
        codec->Encode(layout, update, rng, payload);
        benchmark::DoNotOptimize(payload.data());
    }
}

void
Trials(benchmark::State& state, size_t last, bool error)
{
    const TensorLayout layout({{"w", {uint32_t(state.range(0))}}});
    const std::vector<float> update = Update(layout.TotalSize());
    auto codec = MakeCodec(Spec(), "bench");
    AdaptiveLadder& ladder = *codec->Ladder();
    Rng rng(2, 0);
    std::vector<uint8_t> payload;
    uint32_t round = 0;
    for (auto _ : state)
    {
        codec->BeginRound(++round);
        for (size_t r = 0; r <= last; ++r)
        {
            benchmark::DoNotOptimize(ladder.Trial(layout, r, update, rng, error, nullptr));
        }
        payload.clear();
        ladder.Commit(last, payload, rng);
        benchmark::DoNotOptimize(payload.data());
    }
}

void
BM_TrialUpTo(benchmark::State& state)
{
    Trials(state, size_t(state.range(1)), false);
}

void
BM_TrialAllWithError(benchmark::State& state)
{
    Trials(state, 3, true);
}

void
Sizes(benchmark::internal::Benchmark* b)
{
    for (int64_t n : {7'850, 200'000, 5'000'000})
    {
        for (int64_t rung : {0, 1, 2, 3})
        {
            b->Args({n, rung});
        }
    }
}

BENCHMARK(BM_EncodeOneRung)->Apply(Sizes)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TrialUpTo)->Apply(Sizes)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TrialAllWithError)
    ->Arg(7'850)
    ->Arg(200'000)
    ->Arg(5'000'000)
    ->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
