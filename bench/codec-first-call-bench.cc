// Every single-exchange codec's encode and decode on one tensor of 25,000,000 standard-normal
// floats (a ResNet-50-sized update), first call and steady state side by side, with the
// machine's memory ceilings (memory-baseline.h) in the same run. bytes_per_second counts the
// raw float32 input (100 MB per iteration).
//
//   First*   each iteration builds a fresh codec on a fresh thread (so per-thread scratch is
//            new too) and times only its first Encode, or a fresh decoder's first Decode: what
//            a client's first round, or `fedran codec`, sees. Model-sized state (an
//            error-feedback residual, DGC's momentum and accumulation) is allocated inside the
//            timed call, as it is there; FirstEncode/<codec>_consuming hands the codec a copy
//            of the update instead (Codec::EncodeConsuming, made before the clock starts), as
//            a client does, so such state can start in the update's memory. The decode
//            output is allocated and written once
//            before timing, as `fedran codec` and the server's reused buffers do.
//   Steady*  one codec across iterations (after one untimed call), as a client in later
//            rounds.
// On a busy host, compare the first call's call_cpu_ms (the timed thread's CPU time) with the
// steady state's CPU column: wall times then include waiting for a core.
//
// Stateful codecs are told round 1 (as `fedran codec` does); the dgc specs set no warm-up, so
// the round does not change their density. power_sgd (two exchanges) has power-sgd-bench.
//
// Run (medians of 5; the host is shared, compare figures of one run):
//   build/bench/codec-first-call-bench --benchmark_repetitions=5
//   --benchmark_report_aggregates_only=true

#include "compression/codec-spec.h"
#include "memory-baseline.h"

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <thread>
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
        Rng rng(1, 0);
        std::vector<float> x(kSize);
        for (float& value : x)
        {
            value = static_cast<float>(rng.Normal());
        }
        return x;
    }();
    return update;
}

void
SetThroughput(benchmark::State& state, size_t payloadBytes)
{
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kSize * 4);
    state.counters["payload_bytes"] = static_cast<double>(payloadBytes);
}

double
SecondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// CPU seconds of the calling thread: on a shared host the wall time of one call includes
/// waiting for a core, which this does not.
double
ThreadCpuSeconds()
{
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

/// The timed call's wall time (the benchmark's time) and CPU time, per iteration.
struct CallTimes
{
    double cpuSeconds = 0.0;

    template<typename Call>
    double Time(Call call)
    {
        const double cpuStart = ThreadCpuSeconds();
        const auto start = std::chrono::steady_clock::now();
        call();
        const double seconds = SecondsSince(start);
        cpuSeconds += ThreadCpuSeconds() - cpuStart;
        return seconds;
    }

    void Report(benchmark::State& state) const
    {
        state.counters["call_cpu_ms"] =
            1e3 * cpuSeconds / static_cast<double>(std::max<int64_t>(state.iterations(), 1));
    }
};

/// Runs `work` on a new thread and waits for it: the thread's per-thread scratch starts empty.
template<typename Work>
void
OnFreshThread(Work work)
{
    std::thread thread(work);
    thread.join();
}

/// `consuming`: the codec gets a copy of the update through Codec::EncodeConsuming, as a
/// client hands over the update its training just wrote; the copy is made before the clock.
void
FirstEncode(benchmark::State& state, const json& spec, bool consuming)
{
    const std::vector<float>& x = Update();
    size_t payloadBytes = 0;
    CallTimes times;
    for (auto _ : state)
    {
        double seconds = 0.0;
        OnFreshThread([&] {
            std::unique_ptr<Codec> codec = MakeCodec(spec, "bench");
            codec->BeginRound(1);
            Rng rng(2, 0);
            std::vector<uint8_t> payload;
            if (consuming)
            {
                std::vector<float> update = x;
                seconds = times.Time(
                    [&] { codec->EncodeConsuming(Layout(), std::move(update), rng, payload); });
            }
            else
            {
                seconds = times.Time([&] { codec->Encode(Layout(), x, rng, payload); });
            }
            benchmark::DoNotOptimize(payload.data());
            payloadBytes = payload.size();
        });
        state.SetIterationTime(seconds);
    }
    SetThroughput(state, payloadBytes);
    times.Report(state);
}

void
FirstDecode(benchmark::State& state, const json& spec)
{
    std::vector<uint8_t> payload;
    {
        std::unique_ptr<Codec> encoder = MakeCodec(spec, "bench");
        encoder->BeginRound(1);
        Rng rng(2, 0);
        encoder->Encode(Layout(), Update(), rng, payload);
    }
    std::vector<float> out(kSize); // written once here, as by `fedran codec`
    CallTimes times;
    for (auto _ : state)
    {
        double seconds = 0.0;
        OnFreshThread([&] {
            std::unique_ptr<Codec> codec = MakeCodec(spec, "bench");
            codec->BeginRound(1);
            seconds = times.Time([&] { codec->Decode(Layout(), payload, out); });
            benchmark::DoNotOptimize(out.data());
        });
        state.SetIterationTime(seconds);
    }
    SetThroughput(state, payload.size());
    times.Report(state);
}

void
SteadyEncode(benchmark::State& state, const json& spec)
{
    std::unique_ptr<Codec> codec = MakeCodec(spec, "bench");
    codec->BeginRound(1);
    Rng rng(2, 0);
    std::vector<uint8_t> payload;
    codec->Encode(Layout(), Update(), rng, payload); // the first call, untimed
    for (auto _ : state)
    {
        payload.clear();
        codec->Encode(Layout(), Update(), rng, payload);
        benchmark::DoNotOptimize(payload.data());
    }
    SetThroughput(state, payload.size());
}

void
SteadyDecode(benchmark::State& state, const json& spec)
{
    std::unique_ptr<Codec> codec = MakeCodec(spec, "bench");
    codec->BeginRound(1);
    Rng rng(2, 0);
    std::vector<uint8_t> payload;
    codec->Encode(Layout(), Update(), rng, payload);
    std::vector<float> out(kSize);
    codec->Decode(Layout(), payload, out); // the first call, untimed
    for (auto _ : state)
    {
        codec->Decode(Layout(), payload, out);
        benchmark::DoNotOptimize(out.data());
    }
    SetThroughput(state, payload.size());
}

const json kTopK1 = {{"type", "top_k"}, {"ratio", 0.01}};

#define FEDRAN_CODEC_BENCH(name, spec)                                          \
    BENCHMARK_CAPTURE(FirstEncode, name, spec, false)                           \
        ->UseManualTime()                                                       \
        ->Iterations(3)                                                         \
        ->Unit(benchmark::kMillisecond);                                        \
    BENCHMARK_CAPTURE(FirstEncode, name##_consuming, spec, true)                \
        ->UseManualTime()                                                       \
        ->Iterations(3)                                                         \
        ->Unit(benchmark::kMillisecond);                                        \
    BENCHMARK_CAPTURE(SteadyEncode, name, spec)->Unit(benchmark::kMillisecond); \
    BENCHMARK_CAPTURE(FirstDecode, name, spec)                                  \
        ->UseManualTime()                                                       \
        ->Iterations(3)                                                         \
        ->Unit(benchmark::kMillisecond);                                        \
    BENCHMARK_CAPTURE(SteadyDecode, name, spec)->Unit(benchmark::kMillisecond)

FEDRAN_CODEC_BENCH(none, json({{"type", "none"}}));
FEDRAN_CODEC_BENCH(fp16, json({{"type", "fp16"}}));
FEDRAN_CODEC_BENCH(top_k_1pct, kTopK1);
FEDRAN_CODEC_BENCH(top_k_0p1pct, json({{"type", "top_k"}, {"ratio", 0.001}}));
FEDRAN_CODEC_BENCH(random_k_1pct, json({{"type", "random_k"}, {"ratio", 0.01}}));
// |x| > 2.5758 keeps 1% of a standard normal.
FEDRAN_CODEC_BENCH(threshold_1pct, json({{"type", "threshold"}, {"threshold", 2.5758}}));
FEDRAN_CODEC_BENCH(quantization_8bit,
                   json({{"type", "quantization"}, {"bits", 8}, {"stochastic", true}}));
FEDRAN_CODEC_BENCH(quantization_2bit,
                   json({{"type", "quantization"}, {"bits", 2}, {"stochastic", false}}));
FEDRAN_CODEC_BENCH(qsgd, json({{"type", "qsgd"}}));
FEDRAN_CODEC_BENCH(sign, json({{"type", "sign"}}));
FEDRAN_CODEC_BENCH(error_feedback_top_k_1pct, json({{"type", "error_feedback"}, {"base", kTopK1}}));
FEDRAN_CODEC_BENCH(clipped_none,
                   json({{"type", "clipped"}, {"clip_value", 1.0}, {"base", {{"type", "none"}}}}));
FEDRAN_CODEC_BENCH(
    dgc_0p1pct,
    json({{"type", "dgc"}, {"mode", "round"}, {"ratio", 0.001}, {"warmup_rounds", 0}}));
FEDRAN_CODEC_BENCH(
    dgc_1pct,
    json({{"type", "dgc"}, {"mode", "round"}, {"ratio", 0.01}, {"warmup_rounds", 0}}));

} // namespace

BENCHMARK_MAIN();
