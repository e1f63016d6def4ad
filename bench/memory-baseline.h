#ifndef FEDRAN_BENCH_MEMORY_BASELINE_H
#define FEDRAN_BENCH_MEMORY_BASELINE_H

// The machine's memory ceilings on 25,000,000 floats (100 MB), registered in every codec
// benchmark so that each run records them next to the codecs: a shared host's bandwidth varies
// from minute to minute, and a codec's GB/s means little without them.
//   BM_MemoryRead  sum of |x| in 16 independent lanes (the compiler vectorizes it): a read
//   BM_Memcpy      memcpy into a second 100 MB buffer: a read plus a write, what `none` does
//   BM_FreshMemory/huge_pages, /small_pages
//                  100 MB of memory the process has not touched yet, written once: what a
//                  codec's first call pays for model-sized state (large-buffer.h), in
//                  2 MiB-aligned huge-page-advised memory and in an ordinary vector (4 KiB
//                  pages). The kernel maps and zeroes each page at its first write, and on a
//                  virtual machine the host may have to back the memory first: this, not the
//                  codec, bounds a first call's speed. Memory freed moments before (by the
//                  previous iteration) can be faster to get back than a fresh process's.

#include "compression/internal/large-buffer.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

namespace fedran::bench
{

constexpr size_t kBaselineFloats = 25000000;

inline const std::vector<float>&
BaselineInput()
{
    static const std::vector<float> x = [] {
        std::vector<float> v(kBaselineFloats);
        for (size_t i = 0; i < v.size(); ++i)
        {
            v[i] = static_cast<float>(i % 1000) - 500.0f;
        }
        return v;
    }();
    return x;
}

inline void
BM_MemoryRead(benchmark::State& state)
{
    const std::vector<float>& x = BaselineInput();
    for (auto _ : state)
    {
        float lanes[16] = {};
        for (size_t i = 0; i + 16 <= x.size(); i += 16)
        {
            for (int j = 0; j < 16; ++j)
            {
                lanes[j] += std::fabs(x[i + j]);
            }
        }
        benchmark::DoNotOptimize(lanes);
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kBaselineFloats * 4);
}

inline void
BM_Memcpy(benchmark::State& state)
{
    const std::vector<float>& x = BaselineInput();
    std::vector<float> y(x.size(), 1.0f); // touched once, so no page faults are timed
    for (auto _ : state)
    {
        std::memcpy(y.data(), x.data(), x.size() * sizeof(float));
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kBaselineFloats * 4);
}

/// Times allocating and writing once, not freeing (a codec's state outlives its first call).
template<typename Buffer>
inline void
FreshMemory(benchmark::State& state)
{
    for (auto _ : state)
    {
        const auto start = std::chrono::steady_clock::now();
        Buffer buffer;
        buffer.resize(kBaselineFloats);
        std::fill(buffer.begin(), buffer.end(), 1.0f);
        benchmark::DoNotOptimize(buffer.data());
        benchmark::ClobberMemory();
        state.SetIterationTime(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kBaselineFloats * 4);
}

BENCHMARK(BM_MemoryRead)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Memcpy)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(FreshMemory, internal::LargeBuffer<float>)
    ->Name("BM_FreshMemory/huge_pages")
    ->UseManualTime()
    ->Iterations(5)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(FreshMemory, std::vector<float>)
    ->Name("BM_FreshMemory/small_pages")
    ->UseManualTime()
    ->Iterations(5)
    ->Unit(benchmark::kMillisecond);

} // namespace fedran::bench

#endif
