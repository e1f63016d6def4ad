// Asynchronous FL without ns-3 (FedAsync, FedBuff): versions, staleness and weights as the
// formulas say, concurrency kept, buffering, and max_staleness, driven by a fake host and real
// client sessions.

#include "compression/codec-spec.h"
#include "fl-test-util.h"
#include "models/fl/async-coordinator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

namespace fedran::test
{
namespace
{

CoordinatorConfig
AsyncSettings(uint32_t steps, uint32_t buffer, uint32_t concurrency, StalenessConfig staleness)
{
    CoordinatorConfig config;
    config.rounds = steps;
    config.expectedClients = 1;
    config.joinTimeoutTicks = 30'000;
    config.async = true;
    config.asyncConfig.buffer = buffer;
    config.asyncConfig.concurrency = concurrency;
    config.asyncConfig.staleness = staleness;
    return config;
}

struct AsyncWorld
{
    std::shared_ptr<FederatedTask> task;
    FakeHost host;
    std::unique_ptr<AsyncCoordinator> server;
    std::vector<std::unique_ptr<ClientSession>> clients;

    AsyncWorld(uint32_t n,
               CoordinatorConfig config,
               const std::function<void(FederatedTask&)>& adjust = {})
        : task(MakeTinyTask(n))
    {
        if (adjust)
        {
            adjust(*task);
        }
        config.expectedClients = n;
        server = std::make_unique<AsyncCoordinator>(config, task, host);
        for (uint32_t c = 0; c < n; ++c)
        {
            ClientSessionConfig cc;
            cc.clientId = c;
            clients.push_back(std::make_unique<ClientSession>(cc, task));
        }
        server->Start();
        for (uint32_t c = 0; c < n; ++c)
        {
            clients[c]->BeginConnection();
            server->OnJoin(c);
        }
    }

    /// Clients with a model frame waiting, in id order.
    std::vector<uint32_t> Training() const
    {
        std::vector<uint32_t> out;
        for (const auto& [client, frames] : host.inbox)
        {
            if (!frames.empty())
            {
                out.push_back(client);
            }
        }
        return out;
    }

    /// Client c trains on its model frame; returns its update frame and decoded update.
    std::pair<Frame, std::vector<float>> Train(uint32_t c)
    {
        Frame model = host.Take(c);
        clients[c]->AcceptModel(model);
        EncodedUpdate update = clients[c]->TrainAndEncode(model.header.round);
        clients[c]->UpdateSent(update.record);
        Frame frame = DecodeFrame(update.frame);
        std::vector<float> delta(task->model->Layout().TotalSize());
        MakeCodec({{"type", "none"}}, "test")->Decode(task->model->Layout(), frame.payload, delta);
        return {frame, delta};
    }
};

TEST(StalenessWeight, FormulasOfFedAsync)
{
    EXPECT_DOUBLE_EQ(StalenessWeight({StalenessKind::Constant, 0.5, 4}, 7), 1.0);
    EXPECT_DOUBLE_EQ(StalenessWeight({StalenessKind::Polynomial, 0.5, 4}, 3), 0.5);
    EXPECT_DOUBLE_EQ(StalenessWeight({StalenessKind::Polynomial, 1.0, 4}, 0), 1.0);
    EXPECT_DOUBLE_EQ(StalenessWeight({StalenessKind::Hinge, 2.0, 4}, 4), 1.0);
    EXPECT_DOUBLE_EQ(StalenessWeight({StalenessKind::Hinge, 2.0, 4}, 6), 1.0 / 5.0);
    EXPECT_THROW(ParseStalenessKind("linear"), std::invalid_argument);
}

TEST(AsyncCoordinator, ScriptedArrivalsGiveVersionsStalenessAndWeights)
{
    // Two at once, a step per update, polynomial weights with a = 1: s(τ) = 1 / (1 + τ).
    AsyncWorld w(4, AsyncSettings(3, 1, 2, {StalenessKind::Polynomial, 1.0, 0}));
    ASSERT_EQ(w.host.joinClosed.size(), 1u);
    const std::vector<uint32_t> first = w.Training();
    ASSERT_EQ(first.size(), 2u);
    const uint32_t a = first[0];
    const uint32_t b = first[1];

    // a answers first: trained from version 0, staleness 0, full weight.
    std::vector<float> before = w.server->GlobalParams();
    auto [frameA, deltaA] = w.Train(a);
    w.host.now = 1000;
    ASSERT_EQ(w.server->OnFrame(frameA), std::nullopt);
    ASSERT_EQ(w.host.ended.size(), 1u);
    EXPECT_EQ(w.server->Version(), 1u);
    EXPECT_EQ(w.host.arrivals.back().modelVersion, 0);
    EXPECT_EQ(w.host.arrivals.back().staleness, 0);
    EXPECT_EQ(w.host.arrivals.back().step, 1u);
    for (size_t i = 0; i < before.size(); ++i)
    {
        ASSERT_FLOAT_EQ(w.server->GlobalParams()[i], before[i] + deltaA[i]) << i;
    }

    // b, also from version 0, arrives after one step: staleness 1, weight 1/2.
    before = w.server->GlobalParams();
    auto [frameB, deltaB] = w.Train(b);
    w.host.now = 2500;
    ASSERT_EQ(w.server->OnFrame(frameB), std::nullopt);
    EXPECT_EQ(w.server->Version(), 2u);
    EXPECT_EQ(w.host.arrivals.back().modelVersion, 0);
    EXPECT_EQ(w.host.arrivals.back().staleness, 1);
    EXPECT_EQ(w.host.arrivals.back().step, 2u);
    for (size_t i = 0; i < before.size(); ++i)
    {
        ASSERT_NEAR(w.server->GlobalParams()[i], before[i] + 0.5f * deltaB[i], 1e-6) << i;
    }
    EXPECT_DOUBLE_EQ(w.host.ended[1].startS, 1.0);
    EXPECT_DOUBLE_EQ(w.host.ended[1].endS, 2.5);
    EXPECT_DOUBLE_EQ(w.host.ended[1].bufferFillS, 0.0);

    // Each freed slot went out with the model of its moment: version 1 (round 2) after the
    // first step, version 2 (round 3) after the second.
    std::multiset<uint32_t> rounds;
    for (uint32_t c : w.Training())
    {
        rounds.insert(w.host.inbox.at(c).front().header.round);
    }
    EXPECT_EQ(rounds, (std::multiset<uint32_t>{2, 3}));
}

TEST(AsyncCoordinator, KeepsConcurrencyClientsTraining)
{
    AsyncWorld w(6, AsyncSettings(8, 2, 3, {StalenessKind::Constant, 0, 0}));
    for (int k = 0; k < 12 && !w.host.finished; ++k)
    {
        ASSERT_EQ(w.server->TrainingCount(), 3u) << "after " << k << " updates";
        ASSERT_EQ(w.Training().size(), 3u);
        const uint32_t c = w.Training()[k % 3];
        w.host.now += 100;
        ASSERT_EQ(w.server->OnFrame(w.Train(c).first), std::nullopt);
    }
    EXPECT_EQ(w.host.ended.size(), 6u); // 12 updates, 2 a step
    EXPECT_TRUE(w.host.ended.size() == 6 && w.host.ended.back().participants == 2u);
}

TEST(AsyncCoordinator, BufferedStepIsTheSampleWeightedMeanWithConstantWeights)
{
    // K = 2, constant weights: a FedBuff step is the plain (equal-sample) mean of its two
    // updates, as a synchronous round of the same two would be.
    AsyncWorld w(3, AsyncSettings(2, 2, 2, {StalenessKind::Constant, 0, 0}));
    const std::vector<uint32_t> first = w.Training();
    const std::vector<float> before = w.server->GlobalParams();
    auto [f0, d0] = w.Train(first[0]);
    auto [f1, d1] = w.Train(first[1]);
    ASSERT_EQ(w.server->OnFrame(f0), std::nullopt);
    EXPECT_TRUE(w.host.ended.empty()) << "one update does not fill a buffer of two";
    ASSERT_EQ(w.server->OnFrame(f1), std::nullopt);
    ASSERT_EQ(w.host.ended.size(), 1u);
    EXPECT_EQ(w.host.ended[0].participants, 2u);
    for (size_t i = 0; i < before.size(); ++i)
    {
        ASSERT_NEAR(w.server->GlobalParams()[i], before[i] + 0.5f * (d0[i] + d1[i]), 1e-6);
    }
}

TEST(AsyncCoordinator, BufferOfOneWithConstantWeightIsFedAsync)
{
    // FedBuff with K = 1 and constant weights against FedAsync's update computed here from
    // each arrival: x <- x + alpha * delta, alpha the server learning rate, whatever the
    // update's staleness (constant weights ignore it). Arrivals are taken from the
    // longest-waiting site first, so most of them are stale.
    constexpr double kAlpha = 0.6;
    AsyncWorld w(5, AsyncSettings(8, 1, 3, {StalenessKind::Constant, 0, 0}), [](FederatedTask& t) {
        t.serverOptimizer.lr = kAlpha;
    });
    std::vector<uint32_t> queue = w.Training(); // in the order their models went out
    int stale = 0;
    for (uint32_t step = 1; step <= 8; ++step)
    {
        ASSERT_FALSE(queue.empty());
        const uint32_t c = queue.front();
        queue.erase(queue.begin());
        const std::vector<float> before = w.server->GlobalParams();
        auto [frame, delta] = w.Train(c);
        w.host.now += 100;
        ASSERT_EQ(w.server->OnFrame(frame), std::nullopt);
        ASSERT_EQ(w.server->Version(), step);
        stale += w.host.arrivals.back().staleness > 0 ? 1 : 0;
        for (size_t i = 0; i < before.size(); ++i)
        {
            ASSERT_NEAR(w.server->GlobalParams()[i], before[i] + kAlpha * delta[i], 1e-6)
                << "step " << step << " coordinate " << i;
        }
        for (uint32_t t : w.Training()) // the freed slot's new site goes last
        {
            if (std::find(queue.begin(), queue.end(), t) == queue.end())
            {
                queue.push_back(t);
            }
        }
    }
    EXPECT_GE(stale, 5) << "the order should make most updates stale";
}

TEST(AsyncCoordinator, MaxStalenessDiscardsAndRecords)
{
    CoordinatorConfig config = AsyncSettings(3, 1, 2, {StalenessKind::Constant, 0, 0});
    config.asyncConfig.maxStaleness = 0;
    AsyncWorld w(4, config);
    const std::vector<uint32_t> first = w.Training();
    auto [fa, da] = w.Train(first[0]);
    auto [fb, db] = w.Train(first[1]);
    ASSERT_EQ(w.server->OnFrame(fa), std::nullopt);
    const std::vector<float> before = w.server->GlobalParams();
    ASSERT_EQ(w.server->OnFrame(fb), std::nullopt);
    EXPECT_EQ(w.host.arrivals.back().fate, UpdateFate::Stale);
    EXPECT_EQ(w.host.arrivals.back().staleness, 1);
    EXPECT_EQ(w.server->Version(), 1u);
    EXPECT_EQ(w.server->GlobalParams(), before);
    EXPECT_EQ(w.server->TrainingCount(), 2u) << "the stale client's slot is given out again";
}

TEST(AsyncCoordinator, ALostClientIsReplaced)
{
    AsyncWorld w(4, AsyncSettings(3, 1, 2, {StalenessKind::Constant, 0, 0}));
    const uint32_t lost = w.Training()[0];
    w.server->OnClientLost(lost, UpdateFate::Dropped, "reset");
    EXPECT_EQ(w.host.arrivals.back().fate, UpdateFate::Dropped);
    EXPECT_EQ(w.server->TrainingCount(), 2u);
}

} // namespace
} // namespace fedran::test
