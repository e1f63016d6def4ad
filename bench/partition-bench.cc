// Tensor partitioning: fp16 encoding of one tensor of 25,000,000 standard-normal floats
// (about ResNet-50's 25.6 M parameters) and of 2,000,000 (which fits in a 32 MiB L3) on 1, 2
// and 4 threads (Codec::SetEncodeThreads). Results: docs/pipelining.md.
// The payload is the same at every thread count (tests/compression/partition-test.cc);
// bytes_per_second counts the raw float input.
//
// Run: build/bench/partition-bench --benchmark_min_time=0.3 --benchmark_repetitions=9
//          --benchmark_enable_random_interleaving=true   (one command line)

#include "compression/codec-spec.h"

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace
{

using namespace fedran;

std::vector<float>
Update(uint32_t size)
{
    Rng rng(1, 0);
    std::vector<float> values(size);
    for (float& x : values)
    {
        x = static_cast<float>(rng.Normal());
    }
    return values;
}

void
BM_Fp16Encode(benchmark::State& state)
{
    const auto size = static_cast<uint32_t>(state.range(1));
    const std::vector<float> update = Update(size);
    const TensorLayout layout({{"w", {size}}});
    auto codec = MakeCodec(nlohmann::json{{"type", "fp16"}}, "bench");
    codec->SetEncodeThreads(static_cast<unsigned>(state.range(0)));
    Rng rng(2, 0);
    std::vector<uint8_t> payload;
    codec->Encode(layout, update, rng, payload); // warm the payload's pages
    for (auto _ : state)
    {
        payload.clear();
        codec->Encode(layout, update, rng, payload);
        benchmark::DoNotOptimize(payload.data());
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * size * 4);
}

BENCHMARK(BM_Fp16Encode)
    ->ArgsProduct({{1, 2, 4}, {2000000, 25000000}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

} // namespace

BENCHMARK_MAIN();
