// dgc's mode "step" through the real client (ClientSession, its local trainer and uplink codec)
// and server (RoundCoordinator: decoding, weighted mean, FedAvg) against a direct
// implementation of Lin et al. 2018, "Deep Gradient Compression", Algorithm 1 with momentum
// correction, local gradient clipping, momentum factor masking and the warm-up by epochs,
// written here from the paper without the codec:
//
//   per worker k, per iteration t (one FL round):
//     g = grad f_k(x_t) on the worker's minibatch
//     g = g * min(1, clip / ||g||)          per tensor (the reference code's per-parameter clip)
//     u = m u + g;  v = v + u
//     thr = the k-th largest |v| (k from the density of the worker's epoch)
//     send v * (|v| >= thr);  v, u = 0 where sent
//   server: x_{t+1} = x_t - lr * mean_k(sent_k)
//
// With one local step per round this is Algorithm 1 itself. With several (the FL case the
// paper does not cover) the steps run at the client's local model, which moves by
// w -= lr * u, and the selection happens once, at the round's end: fedran's documented
// generalisation (docs/codecs.md), checked the same way.
//
// Every round the direct implementation starts from the server's model x_t (bit for bit) and
// must produce each worker's payload bit for bit; the server's x_{t+1} must equal
// x_t - lr * mean(sent) to float rounding (the server sums in double, rounds the mean to
// float and adds it: within 2 float ulps of the largest of |x_i|, the mean and the result).

#include "compression/codec-spec.h"
#include "fl-test-util.h"
#include "models/learning/shuffle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace fedran::test
{
namespace
{

using nlohmann::json;

constexpr uint32_t kWorkers = 3;
constexpr float kMomentum = 0.9f;
constexpr double kRatio = 0.02;
constexpr uint32_t kWarmupEpochs = 2;

/// sum of squares in the summation order dgc uses (8 double partial sums, then their sum),
/// so that the clipping factor is the same float.
double
Norm(std::span<const float> x)
{
    double partial[8] = {};
    size_t i = 0;
    for (; i + 8 <= x.size(); i += 8)
    {
        for (size_t lane = 0; lane < 8; ++lane)
        {
            partial[lane] += double(x[i + lane]) * double(x[i + lane]);
        }
    }
    for (size_t lane = 0; i < x.size(); ++i, ++lane)
    {
        partial[lane] += double(x[i]) * double(x[i]);
    }
    double sum = 0.0;
    for (const double p : partial)
    {
        sum += p;
    }
    return std::sqrt(sum);
}

/// The paper's warm-up: sparsity 75%, 93.75%, ... in epochs 1, 2, ..., then the final ratio.
double
Density(uint32_t epoch)
{
    if (epoch >= 1 && epoch <= kWarmupEpochs)
    {
        return std::max(kRatio, std::pow(0.25, epoch));
    }
    return kRatio;
}

/// One worker of the direct implementation.
struct Worker
{
    std::vector<float> u;
    std::vector<float> v;
    Rng rng; ///< the client's minibatch stream, as the client draws it
    uint64_t examplesSeen = 0;
};

struct DirectRound
{
    std::vector<std::vector<float>> sent; ///< per worker: the dense view of its payload
    uint32_t clipped = 0;                 ///< tensors whose gradient was clipped
};

DirectRound
RunDirect(const FederatedTask& task,
          const std::vector<float>& x,
          float clip,
          std::vector<Worker>& workers)
{
    const Model& model = *task.model;
    const TensorLayout& layout = model.Layout();
    const size_t d = layout.TotalSize();
    const float lr = static_cast<float>(task.training.lr);
    const uint32_t batch = task.training.batchSize;
    DirectRound out;
    for (uint32_t k = 0; k < kWorkers; ++k)
    {
        Worker& w = workers[k];
        const std::vector<uint32_t>& rows = task.partition[k];
        std::vector<uint32_t> order(rows.begin(), rows.end());
        const size_t perEpoch = (order.size() + batch - 1) / batch;
        std::vector<float> params = x;
        std::vector<float> g(d);
        for (uint32_t step = 0; step < task.training.localSteps; ++step)
        {
            const size_t inEpoch = step % perEpoch;
            if (inEpoch == 0)
            {
                Shuffle(std::span<uint32_t>(order), w.rng);
            }
            const size_t begin = inEpoch * batch;
            const size_t count = std::min<size_t>(batch, order.size() - begin);
            model.LossAndGradient(params,
                                  task.data->train,
                                  std::span<const uint32_t>(order.data() + begin, count),
                                  g);
            w.examplesSeen += count;
            for (size_t t = 0; t < layout.TensorCount(); ++t)
            {
                const size_t offset = layout.Offset(t);
                const size_t size = layout.Tensors()[t].Size();
                const double norm = Norm(std::span<const float>(g).subspan(offset, size));
                float scale = 1.0f;
                if (norm > clip)
                {
                    scale = static_cast<float>(clip / norm);
                    ++out.clipped;
                }
                for (size_t i = offset; i < offset + size; ++i)
                {
                    w.u[i] = kMomentum * w.u[i] + scale * g[i];
                    w.v[i] += w.u[i];
                    params[i] -= lr * w.u[i]; // the local model follows u
                }
            }
        }
        const auto epoch = static_cast<uint32_t>((w.examplesSeen + rows.size() - 1) / rows.size());
        std::vector<float> sent(d, 0.0f);
        for (size_t t = 0; t < layout.TensorCount(); ++t)
        {
            const size_t offset = layout.Offset(t);
            const size_t size = layout.Tensors()[t].Size();
            const auto keep = std::min<size_t>(
                std::max<size_t>(size_t(std::floor(Density(epoch) * double(size))), 1),
                size);
            std::vector<size_t> index(size);
            std::iota(index.begin(), index.end(), offset);
            // The k largest |v|, ties to the lower index.
            std::stable_sort(index.begin(), index.end(), [&](size_t a, size_t b) {
                return std::abs(w.v[a]) > std::abs(w.v[b]);
            });
            for (size_t j = 0; j < keep; ++j)
            {
                const size_t i = index[j];
                sent[i] = -(lr * w.v[i]); // x - lr * v is x + (-lr * v): the update's sign
                w.v[i] = 0.0f;
                w.u[i] = 0.0f;
            }
        }
        out.sent.push_back(std::move(sent));
    }
    return out;
}

void
ExpectAlgorithmOne(uint32_t localSteps, uint32_t rounds)
{
    constexpr float kClip = 0.5f;
    auto task = MakeTinyTask(kWorkers,
                             {{"type", "dgc"},
                              {"ratio", kRatio},
                              {"momentum", kMomentum},
                              {"clip_norm", kClip},
                              {"warmup_epochs", kWarmupEpochs}});
    task->training.localSteps = localSteps;
    task->training.measureGradVariance = false;
    const size_t d = task->model->Layout().TotalSize();
    std::vector<Worker> workers(kWorkers);
    for (uint32_t k = 0; k < kWorkers; ++k)
    {
        workers[k].u.assign(d, 0.0f);
        workers[k].v.assign(d, 0.0f);
        workers[k].rng = Rng(task->seed, kClientTrainStreamBase + k);
    }

    FakeHost host;
    RoundCoordinator server(FakeHostConfig(rounds, kWorkers, kWorkers), task, host);
    server.Start();
    std::vector<std::unique_ptr<ClientSession>> sessions;
    for (uint32_t c = 0; c < kWorkers; ++c)
    {
        ClientSessionConfig config;
        config.clientId = c;
        sessions.push_back(std::make_unique<ClientSession>(config, task));
        sessions.back()->BeginConnection();
        server.OnJoin(c);
    }
    auto decoder = MakeCodec(task->uplinkCodec);
    uint32_t clipped = 0;
    std::vector<size_t> sentCounts;
    for (uint32_t round = 1; round <= rounds; ++round)
    {
        const std::vector<float> x = server.GlobalParams();
        const DirectRound direct = RunDirect(*task, x, kClip, workers);
        clipped += direct.clipped;
        for (uint32_t c = 0; c < kWorkers; ++c)
        {
            ASSERT_TRUE(host.HasFrame(c)) << "round " << round;
            sessions[c]->AcceptModel(host.Take(c));
            const EncodedUpdate update = sessions[c]->TrainAndEncode(round);
            const Frame frame = DecodeFrame(update.frame);
            std::vector<float> decoded(d);
            decoder->Decode(task->model->Layout(), frame.payload, decoded);
            ASSERT_EQ(std::memcmp(decoded.data(), direct.sent[c].data(), d * sizeof(float)), 0)
                << "round " << round << ", worker " << c;
            sentCounts.push_back(size_t(
                std::count_if(decoded.begin(), decoded.end(), [](float f) { return f != 0.0f; })));
            EXPECT_EQ(server.OnFrame(frame), std::nullopt);
        }
        ASSERT_EQ(host.ended.size(), round);
        if (host.Armed(CoordinatorTimer::RoundClose))
        {
            host.Fire(CoordinatorTimer::RoundClose, server);
        }
        // x_{t+1} = x_t - lr * mean_k(sent_k), the mean of equal-weight workers.
        // The server rounds the mean to float, then adds it in float: two roundings, each at
        // most half an ulp of the larger operand or result.
        const std::vector<float> next = server.GlobalParams();
        for (size_t i = 0; i < d; ++i)
        {
            double mean = 0.0;
            for (uint32_t c = 0; c < kWorkers; ++c)
            {
                mean += direct.sent[c][i];
            }
            mean /= kWorkers;
            const double expected = double(x[i]) + mean;
            const double scale =
                std::max({std::abs(double(x[i])), std::abs(mean), std::abs(expected)});
            ASSERT_NEAR(next[i], expected, 2.0 * std::ldexp(scale, -23))
                << "round " << round << " " << i;
        }
    }
    // The test exercises what it claims: clipping, and the warm-up's densities (25%, then
    // 6.25%, then the 2% ratio of the 600 weights + 10 biases: 150 + 2, 37 + 1, 12 + 1).
    EXPECT_GT(clipped, 0u);
    EXPECT_EQ(sentCounts.front(), 152u);
    EXPECT_EQ(sentCounts.back(), 13u);
    EXPECT_NE(std::find(sentCounts.begin(), sentCounts.end(), 38u), sentCounts.end());
}

TEST(DgcPerStep, OneLocalStepPerRoundIsAlgorithmOne)
{
    // 40 examples per worker, batches of 8: epoch 1 is rounds 1-5, epoch 2 rounds 6-10.
    ExpectAlgorithmOne(1, 12);
}

TEST(DgcPerStep, SeveralLocalStepsAccumulateIntoOneSelectionPerRound)
{
    // 3 steps (24 examples) per round: epochs 1, 2, 2, 3, 3, 4 at the selections.
    ExpectAlgorithmOne(3, 6);
}

TEST(DgcPerStep, TheDirectImplementationCanTellADifference)
{
    // The comparison is not vacuous: a round-level dgc (momentum on the whole update, warm-up
    // by rounds) gives another payload in the very first round.
    auto task = MakeTinyTask(kWorkers,
                             {{"type", "dgc"},
                              {"mode", "round"},
                              {"ratio", kRatio},
                              {"momentum", kMomentum},
                              {"clip_norm", 0.5},
                              {"warmup_rounds", kWarmupEpochs}});
    task->training.localSteps = 1;
    const size_t d = task->model->Layout().TotalSize();
    std::vector<Worker> workers(kWorkers);
    for (uint32_t k = 0; k < kWorkers; ++k)
    {
        workers[k].u.assign(d, 0.0f);
        workers[k].v.assign(d, 0.0f);
        workers[k].rng = Rng(task->seed, kClientTrainStreamBase + k);
    }
    FakeHost host;
    RoundCoordinator server(FakeHostConfig(1, kWorkers, kWorkers), task, host);
    server.Start();
    ClientSessionConfig config;
    config.clientId = 0;
    ClientSession session(config, task);
    session.BeginConnection();
    for (uint32_t c = 0; c < kWorkers; ++c)
    {
        server.OnJoin(c);
    }
    const DirectRound direct = RunDirect(*task, server.GlobalParams(), 0.5f, workers);
    session.AcceptModel(host.Take(0));
    const Frame frame = DecodeFrame(session.TrainAndEncode(1).frame);
    std::vector<float> decoded(d);
    MakeCodec(task->uplinkCodec)->Decode(task->model->Layout(), frame.payload, decoded);
    EXPECT_NE(std::memcmp(decoded.data(), direct.sent[0].data(), d * sizeof(float)), 0);
}

} // namespace
} // namespace fedran::test
