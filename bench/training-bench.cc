// Training throughput on Fashion-MNIST-shaped data (784 features, 10 classes), batch 32, one
// thread, for each model: softmax regression, the MLP 784-200-200-10 and the CNN with its
// scenario defaults. Reference points, PyTorch 1.13 + OpenBLAS on one core, batch 32: softmax
// about 66,000 samples/s, MLP about 51,000 samples/s. Uses the installed Fashion-MNIST when
// present, else uniform random pixels (the arithmetic is the same; only cache behaviour could
// differ). items_per_second is examples per CPU-second of the benchmark thread.
//
// The forecasters (BM_TrainForecaster) train on windows of a noisy daily sine shaped as the
// cell-traffic task's defaults: a 36-step window (six hours of 10-minute steps), 3 side
// features (the same time on the 3 previous days), one output.
//
// Run: build/bench/training-bench (or --benchmark_filter=...); see docs/performance.md.

#include "models/learning/cnn-model.h"
#include "models/learning/dataset.h"
#include "models/learning/gemm.h"
#include "models/learning/idx-reader.h"
#include "models/learning/local-trainer.h"
#include "models/learning/mlp-model.h"
#include "models/learning/partition.h"
#include "models/learning/softmax-model.h"

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <memory>
#include <numeric>
#include <vector>

namespace
{

using namespace fedran;

constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

const Dataset&
TrainingData()
{
    static const Dataset data = [] {
        if (std::filesystem::is_directory(kFashionMnistDir))
        {
            return LoadIdxFolder(kFashionMnistDir).train;
        }
        Dataset random;
        random.features = 784;
        random.classes = 10;
        random.x.resize(size_t{60000} * 784);
        random.y.resize(60000);
        Rng rng(1);
        for (auto& v : random.x)
        {
            v = static_cast<float>(rng.Uniform());
        }
        for (auto& label : random.y)
        {
            label = static_cast<uint8_t>(rng.UniformInt(10));
        }
        return random;
    }();
    return data;
}

enum class Kind
{
    kSoftmax,
    kMlp,
    kCnn,
};

std::unique_ptr<Model>
Make(Kind kind, const Dataset& data)
{
    switch (kind)
    {
        case Kind::kSoftmax:
            return std::make_unique<SoftmaxModel>(data.features, data.classes);
        case Kind::kMlp:
            return std::make_unique<MlpModel>(data.features,
                                              std::vector<uint32_t>{200, 200},
                                              data.classes);
        case Kind::kCnn: {
            CnnShape shape; // the scenario's {"type": "cnn"}
            shape.classes = data.classes;
            return std::make_unique<CnnModel>(shape);
        }
    }
    return nullptr;
}

/// One client's local round: TrainLocal over a shard of state.range(0) examples, batch 32,
/// on the portable matrix kernels (fedran's default) or the fast ones (--fast-math-kernels).
void
BM_TrainLocal(benchmark::State& state, Kind kind, GemmKind kernels = GemmKind::kPortable)
{
    SetGemmKind(kernels);
    const Dataset& data = TrainingData();
    const std::unique_ptr<Model> model = Make(kind, data);
    std::vector<float> params(model->Layout().TotalSize());
    Rng rng(7);
    model->InitParams(params, rng);
    const auto shardSize = static_cast<uint32_t>(state.range(0));
    Rng partitionRng(3);
    const auto shard =
        PartitionIid(data.Size(), static_cast<uint32_t>(data.Size() / shardSize), partitionRng)[0];
    TrainingConfig config;
    config.localEpochs = 1;
    config.batchSize = 32;
    config.lr = 0.05;
    for (auto _ : state)
    {
        TrainingResult result = TrainLocal(*model, params, data, shard, config, rng);
        benchmark::DoNotOptimize(result.update.data());
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                            static_cast<int64_t>(shard.size()));
    state.counters["examples"] = static_cast<double>(shard.size());
}
// 600: a client of a 100-client FedAvg run; 60000: one centralised epoch (6000 for the CNN,
// whose full epoch takes seconds).
BENCHMARK_CAPTURE(BM_TrainLocal, softmax, Kind::kSoftmax)
    ->Arg(600)
    ->Arg(60000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TrainLocal, mlp, Kind::kMlp)
    ->Arg(600)
    ->Arg(60000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TrainLocal, cnn, Kind::kCnn)
    ->Arg(600)
    ->Arg(6000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TrainLocal, mlp_fast_kernels, Kind::kMlp, GemmKind::kFast)
    ->Arg(600)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TrainLocal, cnn_fast_kernels, Kind::kCnn, GemmKind::kFast)
    ->Arg(600)
    ->Unit(benchmark::kMillisecond);

/// The kernel alone: one LossAndGradient on a batch of random rows (no parameter update).
void
BM_LossAndGradient(benchmark::State& state, Kind kind)
{
    const Dataset& data = TrainingData();
    const std::unique_ptr<Model> model = Make(kind, data);
    std::vector<float> params(model->Layout().TotalSize());
    Rng rng(5);
    model->InitParams(params, rng);
    std::vector<float> grad(params.size());
    const auto batchSize = static_cast<size_t>(state.range(0));
    std::vector<uint32_t> batch(batchSize);
    for (auto _ : state)
    {
        state.PauseTiming();
        for (auto& row : batch)
        {
            row = static_cast<uint32_t>(rng.UniformInt(data.Size()));
        }
        state.ResumeTiming();
        benchmark::DoNotOptimize(model->LossAndGradient(params, data, batch, grad));
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                            static_cast<int64_t>(batchSize));
}
BENCHMARK_CAPTURE(BM_LossAndGradient, softmax, Kind::kSoftmax)->Arg(32)->Arg(256);
BENCHMARK_CAPTURE(BM_LossAndGradient, mlp, Kind::kMlp)->Arg(32)->Arg(256);
BENCHMARK_CAPTURE(BM_LossAndGradient, cnn, Kind::kCnn)->Arg(32);

/// 20,000 forecasting rows: a 36-step window and 3 side features of a daily sine (144 steps
/// a day) with uniform noise, predicting the next step.
const Dataset&
ForecastData()
{
    static const Dataset data = [] {
        constexpr uint32_t kWindow = 36;
        constexpr uint32_t kDays = 3;
        constexpr uint32_t kDay = 144;
        constexpr uint32_t kExamples = 20000;
        Rng rng(2);
        std::vector<float> series(kExamples + kDays * kDay + 1);
        for (size_t t = 0; t < series.size(); ++t)
        {
            series[t] = static_cast<float>(std::sin(6.283185307179586 * t / kDay) +
                                           0.1 * (2.0 * rng.Uniform() - 1.0));
        }
        Dataset out;
        out.features = kWindow + kDays;
        out.sequence = kWindow;
        out.outputs = 1;
        for (uint32_t i = 0; i < kExamples; ++i)
        {
            const size_t now = i + size_t{kDays} * kDay; // the step to predict
            for (uint32_t k = 0; k < kWindow; ++k)
            {
                out.x.push_back(series[now - kWindow + k]);
            }
            for (uint32_t d = kDays; d >= 1; --d)
            {
                out.x.push_back(series[now - size_t{d} * kDay]);
            }
            out.targets.push_back(series[now]);
            out.series.push_back(0);
        }
        out.scales = {{0.0, 1.0}};
        return out;
    }();
    return data;
}

/// A client's local round of a forecaster built from its scenario spec: one epoch over
/// state.range(0) examples, batch 32, portable kernels.
void
BM_TrainForecaster(benchmark::State& state, const char* spec)
{
    SetGemmKind(GemmKind::kPortable);
    const Dataset& data = ForecastData();
    const std::unique_ptr<Model> model = MakeModel(nlohmann::json::parse(spec), data.Shape());
    std::vector<float> params(model->Layout().TotalSize());
    Rng rng(7);
    model->InitParams(params, rng);
    std::vector<uint32_t> shard(static_cast<size_t>(state.range(0)));
    std::iota(shard.begin(), shard.end(), 0u);
    TrainingConfig config;
    config.localEpochs = 1;
    config.batchSize = 32;
    config.lr = 0.01;
    for (auto _ : state)
    {
        TrainingResult result = TrainLocal(*model, params, data, shard, config, rng);
        benchmark::DoNotOptimize(result.update.data());
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                            static_cast<int64_t>(shard.size()));
    state.counters["params"] = static_cast<double>(params.size());
    state.counters["fwd_flops"] = model->ForwardFlops();
}
// The defaults, and FedDA's recurrent shape (hidden 64, 2 layers).
BENCHMARK_CAPTURE(BM_TrainForecaster, lstm, R"({"type": "lstm"})")
    ->Arg(2000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TrainForecaster, gru, R"({"type": "gru"})")
    ->Arg(2000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TrainForecaster, temporal_mlp, R"({"type": "temporal_mlp"})")
    ->Arg(2000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TrainForecaster, lstm_64x2, R"({"type": "lstm", "hidden": 64, "layers": 2})")
    ->Arg(2000)
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
