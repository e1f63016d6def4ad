// Encode/decode speed of the sparsifying codecs (top_k, random_k, threshold) on one tensor of
// 25,000,000 standard-normal floats (ResNet-50 sized), plus the exact top-k selection kernel
// on its own. bytes_per_second counts the raw float32 input (100 MB per iteration).
//
// Run: build/bench/sparsification-codec-bench --benchmark_min_time=0.2

#include "compression/codec-spec.h"
#include "compression/internal/top-k-select.h" // kernel benchmark only; codecs go through MakeCodec
#include "memory-baseline.h"

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

namespace
{

using namespace fedran;

constexpr size_t kSize = 25000000;

const std::vector<float>&
Update()
{
    static const std::vector<float> update = [] {
        Rng rng(42, 0);
        std::vector<float> x(kSize);
        for (float& v : x)
        {
            v = static_cast<float>(rng.Normal());
        }
        return x;
    }();
    return update;
}

const TensorLayout&
Layout()
{
    static const TensorLayout layout({{"w", {static_cast<uint32_t>(kSize)}}});
    return layout;
}

void
SetThroughput(benchmark::State& state)
{
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kSize * 4);
}

void
Encode(benchmark::State& state, const nlohmann::json& spec)
{
    auto codec = MakeCodec(spec, "bench");
    const std::vector<float>& x = Update();
    Rng rng(1, 1);
    std::vector<uint8_t> payload;
    for (auto _ : state)
    {
        payload.clear();
        codec->Encode(Layout(), x, rng, payload);
        benchmark::DoNotOptimize(payload.data());
    }
    state.counters["payload_bytes"] = static_cast<double>(payload.size());
    SetThroughput(state);
}

void
Decode(benchmark::State& state, const nlohmann::json& spec)
{
    auto codec = MakeCodec(spec, "bench");
    Rng rng(1, 1);
    std::vector<uint8_t> payload;
    codec->Encode(Layout(), Update(), rng, payload);
    std::vector<float> out(kSize);
    for (auto _ : state)
    {
        codec->Decode(Layout(), payload, out);
        benchmark::DoNotOptimize(out.data());
    }
    SetThroughput(state);
}

void
SelectTopK(benchmark::State& state, double ratio, internal::TopKStrategy strategy)
{
    const std::vector<float>& x = Update();
    std::vector<uint32_t> indices;
    std::vector<float> values;
    for (auto _ : state)
    {
        internal::SelectTopK(x, static_cast<size_t>(ratio * kSize), indices, values, strategy);
        benchmark::DoNotOptimize(indices.data());
    }
    SetThroughput(state);
}

const nlohmann::json kNone{{"type", "none"}};
// |x| > 2.5758 keeps 1% of a standard normal.
const nlohmann::json kTopK1{{"type", "top_k"}, {"ratio", 0.01}};
const nlohmann::json kTopK01{{"type", "top_k"}, {"ratio", 0.001}};
const nlohmann::json kRandomK1{{"type", "random_k"}, {"ratio", 0.01}};
const nlohmann::json kThreshold1{{"type", "threshold"}, {"threshold", 2.5758}};

// The memcpy-speed baseline, measured in the same run (shared hosts vary a lot).
BENCHMARK_CAPTURE(Encode, none, kNone)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Decode, none, kNone)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Encode, top_k_1pct, kTopK1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Decode, top_k_1pct, kTopK1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Encode, top_k_0p1pct, kTopK01)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Decode, top_k_0p1pct, kTopK01)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Encode, random_k_1pct, kRandomK1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Decode, random_k_1pct, kRandomK1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Encode, threshold_1pct, kThreshold1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Decode, threshold_1pct, kThreshold1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(SelectTopK, sampled_1pct, 0.01, internal::TopKStrategy::Auto)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(SelectTopK, sampled_0p1pct, 0.001, internal::TopKStrategy::Auto)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(SelectTopK, histogram_1pct, 0.01, internal::TopKStrategy::Histogram)
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
