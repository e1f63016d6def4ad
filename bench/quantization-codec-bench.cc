// Encode and decode throughput of the quantizing codecs (quantization, qsgd, sign) on one
// tensor of 25,000,000 standard-normal floats (about ResNet-50's 25.6 M parameters).
// bytes_per_second counts the raw float input (100 MB per iteration); the goal is 5 GB/s.
//
// Run: build/bench/quantization-codec-bench --benchmark_min_time=0.2

#include "compression/codec-spec.h"
#include "memory-baseline.h"

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace
{

using namespace fedran;
using nlohmann::json;

constexpr uint32_t kSize = 25000000;

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
        Rng rng(1, 0);
        std::vector<float> values(kSize);
        for (float& x : values)
        {
            x = static_cast<float>(rng.Normal());
        }
        return values;
    }();
    return update;
}

void
BM_Encode(benchmark::State& state, const json& spec)
{
    auto codec = MakeCodec(spec, "bench");
    Rng rng(2, 0);
    std::vector<uint8_t> payload;
    codec->Encode(Layout(), Update(), rng, payload); // warm the payload's pages
    for (auto _ : state)
    {
        payload.clear();
        codec->Encode(Layout(), Update(), rng, payload);
        benchmark::DoNotOptimize(payload.data());
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kSize * 4);
    state.counters["payload_bytes"] = static_cast<double>(payload.size());
}

void
BM_Decode(benchmark::State& state, const json& spec)
{
    auto codec = MakeCodec(spec, "bench");
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
}

const json kQuant8 = {{"type", "quantization"}, {"bits", 8}, {"stochastic", true}};
const json kQuant4 = {{"type", "quantization"}, {"bits", 4}, {"stochastic", true}};
const json kQuant2 = {{"type", "quantization"}, {"bits", 2}, {"stochastic", false}};
const json kQsgd = {{"type", "qsgd"}};
const json kSign = {{"type", "sign"}};

BENCHMARK_CAPTURE(BM_Encode, quantization_8bit_stochastic, kQuant8)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Decode, quantization_8bit_stochastic, kQuant8)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Encode, quantization_4bit_stochastic, kQuant4)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Decode, quantization_4bit_stochastic, kQuant4)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Encode, quantization_2bit_nearest, kQuant2)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Decode, quantization_2bit_nearest, kQuant2)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Encode, qsgd_default, kQsgd)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Decode, qsgd_default, kQsgd)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Encode, sign, kSign)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Decode, sign, kSign)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
