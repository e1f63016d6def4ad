// Tensor partitioning: fp16 encoding of one tensor of 25,000,000 standard-normal floats
// (about ResNet-50's 25.6 M parameters) on 1, 2 and 4 threads (Codec::SetEncodeThreads).
// The payload is the same at every thread count (tests/compression/partition-test.cc);
// bytes_per_second counts the raw float input.
//
// Run: build/bench/partition-bench --benchmark_min_time=0.5

#include "compression/codec.h"

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace
{

using namespace fedran;

constexpr uint32_t kSize = 25000000;

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
BM_Fp16Encode(benchmark::State& state)
{
    const TensorLayout layout({{"w", {kSize}}});
    auto codec = MakeCodec(nlohmann::json{{"type", "fp16"}}, "bench");
    codec->SetEncodeThreads(static_cast<unsigned>(state.range(0)));
    Rng rng(2, 0);
    std::vector<uint8_t> payload;
    codec->Encode(layout, Update(), rng, payload); // warm the payload's pages
    for (auto _ : state)
    {
        payload.clear();
        codec->Encode(layout, Update(), rng, payload);
        benchmark::DoNotOptimize(payload.data());
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kSize * 4);
}

BENCHMARK(BM_Fp16Encode)->Arg(1)->Arg(2)->Arg(4)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace

BENCHMARK_MAIN();
