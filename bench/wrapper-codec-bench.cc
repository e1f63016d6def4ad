// Encode and decode throughput of the wrapper and stateful codecs (error_feedback, clipped,
// dgc) on one tensor of 25,000,000 normal floats (a ResNet-50-sized update), one thread.
// bytes_per_second counts the raw float32 input, so it compares directly with memcpy.
//
// The encoders are stateful: each benchmark keeps one encoder across iterations, as a client
// does across rounds, so error feedback's residual and DGC's accumulation are in steady state
// (DGC is past its warm-up: BeginRound(100)).
//
// Run: build/bench/wrapper-codec-bench --benchmark_min_time=0.2

#include "compression/codec-spec.h"
#include "memory-baseline.h"

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace
{

using namespace fedran;
using nlohmann::json;

constexpr uint32_t kSize = 25'000'000;

const TensorLayout&
Layout()
{
    static const TensorLayout layout({{"w", {kSize}}});
    return layout;
}

const std::vector<float>&
Update()
{
    static const std::vector<float> update = [] {
        std::vector<float> x(kSize);
        Rng rng(1, 0);
        for (float& value : x)
        {
            value = static_cast<float>(rng.Normal());
        }
        return x;
    }();
    return update;
}

json
Spec(int which)
{
    switch (which)
    {
        case 0:
            return {{"type", "error_feedback"}, {"base", {{"type", "top_k"}, {"ratio", 0.01}}}};
        case 1:
            return {{"type", "clipped"}, {"clip_value", 1.0}, {"base", {{"type", "none"}}}};
        case 2:
            return {{"type", "dgc"}, {"mode", "round"}, {"ratio", 0.001}};
        default: // the unwrapped base, for reference
            return {{"type", "top_k"}, {"ratio", 0.01}};
    }
}

const char*
Label(int which)
{
    static const char* const kLabels[] = {"error_feedback(top_k 0.01)",
                                          "clipped(value 1, none)",
                                          "dgc(0.001)",
                                          "top_k 0.01 (reference)"};
    return kLabels[which];
}

void
BM_Encode(benchmark::State& state)
{
    const int which = static_cast<int>(state.range(0));
    auto codec = MakeCodec(Spec(which), "bench");
    codec->BeginRound(100);
    Rng rng(2, 0);
    std::vector<uint8_t> payload;
    for (auto _ : state)
    {
        payload.clear();
        codec->Encode(Layout(), Update(), rng, payload);
        benchmark::DoNotOptimize(payload.data());
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kSize * 4);
    state.counters["payload_bytes"] = static_cast<double>(payload.size());
    state.SetLabel(Label(which));
}

void
BM_Decode(benchmark::State& state)
{
    const int which = static_cast<int>(state.range(0));
    auto codec = MakeCodec(Spec(which), "bench");
    codec->BeginRound(100);
    Rng rng(2, 0);
    std::vector<uint8_t> payload;
    codec->Encode(Layout(), Update(), rng, payload);
    std::vector<float> decoded(kSize);
    for (auto _ : state)
    {
        codec->Decode(Layout(), payload, decoded);
        benchmark::DoNotOptimize(decoded.data());
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kSize * 4);
    state.counters["payload_bytes"] = static_cast<double>(payload.size());
    state.SetLabel(Label(which));
}

BENCHMARK(BM_Encode)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Decode)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
