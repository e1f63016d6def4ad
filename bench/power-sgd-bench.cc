// Throughput of power_sgd's two exchanges on a 5,000 x 5,000 matrix (25,000,000 normal floats,
// as the other codec benchmarks), one thread. bytes_per_second counts the raw float32 update.
//
//   ClientSide: Encode (P = M Q) and EncodeReply (Q_i = M^T P_hat): two passes over M.
//   ServerSide: one client's first payload and reply through the RoundExchange, then Result
//               (P_hat Q^T: one pass writing M_hat).
//
// Run: build/bench/power-sgd-bench --benchmark_min_time=0.2

#include "compression/codec-spec.h"

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace
{

using namespace fedran;

constexpr uint32_t kSide = 5000;

const TensorLayout&
Layout()
{
    static const TensorLayout layout({{"w", {kSide, kSide}}});
    return layout;
}

const std::vector<float>&
Update()
{
    static const std::vector<float> update = [] {
        std::vector<float> x(size_t{kSide} * kSide);
        Rng rng(1, 0);
        for (float& value : x)
        {
            value = static_cast<float>(rng.Normal());
        }
        return x;
    }();
    return update;
}

nlohmann::json
Spec(int64_t rank)
{
    return {{"type", "power_sgd"}, {"rank", rank}, {"error_feedback", false}};
}

/// Runs one whole round for a single client; returns the messages.
struct Messages
{
    std::vector<uint8_t> state;
    std::vector<uint8_t> first;
    std::vector<uint8_t> message;
    std::vector<uint8_t> reply;
};

void
BM_ClientSide(benchmark::State& state)
{
    Update(); // generated once, outside the timing
    auto client = MakeCodec(Spec(state.range(0)), "bench");
    auto server = client->MakeExchange(Layout(), 3);
    Rng rng(2, 0);
    Messages m;
    for (auto _ : state)
    {
        state.PauseTiming();
        m = Messages{};
        server->BeginRound(1, m.state);
        client->AcceptRoundState(Layout(), m.state);
        state.ResumeTiming();
        client->Encode(Layout(), Update(), rng, m.first);
        state.PauseTiming();
        server->AddFirst(m.first, 1.0);
        server->CloseFirstPhase(m.message);
        state.ResumeTiming();
        client->EncodeReply(Layout(), m.message, m.reply);
        benchmark::DoNotOptimize(m.reply.data());
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(Update().size()) * 4);
    state.counters["uplink_bytes"] = double(m.first.size() + m.reply.size());
    state.SetLabel("power_sgd rank " + std::to_string(state.range(0)));
}

void
BM_ServerSide(benchmark::State& state)
{
    Update();
    auto client = MakeCodec(Spec(state.range(0)), "bench");
    auto server = client->MakeExchange(Layout(), 3);
    Rng rng(2, 0);
    std::vector<float> out(Update().size());
    for (auto _ : state)
    {
        state.PauseTiming();
        Messages m;
        server->BeginRound(1, m.state);
        client->AcceptRoundState(Layout(), m.state);
        client->Encode(Layout(), Update(), rng, m.first);
        state.ResumeTiming();
        server->AddFirst(m.first, 1.0);
        server->CloseFirstPhase(m.message);
        state.PauseTiming();
        client->EncodeReply(Layout(), m.message, m.reply);
        state.ResumeTiming();
        server->AddReply(m.reply, 1.0);
        server->Result(out);
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(Update().size()) * 4);
    state.SetLabel("power_sgd rank " + std::to_string(state.range(0)));
}

BENCHMARK(BM_ClientSide)->Arg(1)->Arg(4)->Unit(benchmark::kMillisecond)->MinWarmUpTime(0.5);
BENCHMARK(BM_ServerSide)->Arg(1)->Arg(4)->Unit(benchmark::kMillisecond)->MinWarmUpTime(0.5);

} // namespace

BENCHMARK_MAIN();
