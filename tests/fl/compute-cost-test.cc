// Computation on the simulated clock without ns-3: a codec's encode cost and the device's
// codec speed, the server's decode queue over its cores, the round closing after the last
// fold plus aggregation and evaluation, and the cost profile's format.

#include "compression/codec-spec.h"
#include "compression/cost-model.h"
#include "fl-test-util.h"
#include "models/fl/server-clock.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

using nlohmann::json;

/// The reference profile with every cost zero except those the test sets.
std::shared_ptr<CostProfile>
ZeroProfile()
{
    auto profile = std::make_shared<CostProfile>(CostProfile::Reference());
    for (auto& [name, cost] : profile->codecs)
    {
        cost = CodecCost{};
    }
    profile->foldPerElementS = 0.0;
    profile->applyPerElementS = 0.0;
    profile->flopS = 0.0;
    return profile;
}

EncodedUpdate
TrainOnce(const std::shared_ptr<FederatedTask>& task, uint32_t client)
{
    FakeHost host;
    RoundCoordinator server(FakeHostConfig(2, 1, 1), task, host);
    ClientSession session(SessionOf(client), task);
    session.BeginConnection();
    server.Start();
    server.OnJoin(client);
    session.AcceptModel(host.Take(client));
    return session.TrainAndEncode(1);
}

TEST(ComputeCost, EncodeCostIsTheProfilesAndCodecSpeedDividesIt)
{
    auto task = MakeTinyTask(1);
    auto profile = ZeroProfile();
    profile->codecs.at("none").encode.fixedS = 0.375;
    task->clientCompute = {DeviceCompute{1, 1.0, profile}};
    EXPECT_DOUBLE_EQ(TrainOnce(task, 0).record.encodeS, 0.375);
    task->clientCompute = {DeviceCompute{1, 2.0, profile}};
    EXPECT_DOUBLE_EQ(TrainOnce(task, 0).record.encodeS, 0.1875);
    task->clientCompute.clear(); // no device: coding takes no time
    EXPECT_EQ(TrainOnce(task, 0).record.encodeS, 0.0);
}

TEST(ComputeCost, EncodeCostGrowsWithTheUpdateAndPayload)
{
    auto task = MakeTinyTask(1, {{"type", "top_k"}, {"ratio", 0.5}});
    auto profile = ZeroProfile();
    profile->codecs.at("top_k").encode = LinearCost{0.0, 1e-6, 1e-7, 0.0};
    task->clientCompute = {DeviceCompute{1, 1.0, profile}};
    const EncodedUpdate update = TrainOnce(task, 0);
    const double elements = double(task->model->Layout().TotalSize());
    const double payload = double(update.frame.size() - kFrameHeaderSize);
    EXPECT_NEAR(update.record.encodeS, 1e-6 * elements + 1e-7 * payload, 1e-15);
}

/// Three clients whose updates reach the server at the same instant.
struct QueueWorld
{
    std::shared_ptr<FederatedTask> task = MakeTinyTask(3);
    FakeHost host;
    std::unique_ptr<RoundCoordinator> server;

    explicit QueueWorld(uint32_t cores, double decodeS)
    {
        auto profile = ZeroProfile();
        profile->codecs.at("none").decode.fixedS = decodeS;
        task->serverCompute = DeviceCompute{cores, 1.0, profile};
        server = std::make_unique<RoundCoordinator>(FakeHostConfig(2, 3, 3), task, host);
        server->Start();
        std::vector<std::unique_ptr<ClientSession>> sessions;
        std::vector<Frame> updates;
        for (uint32_t c = 0; c < 3; ++c)
        {
            sessions.push_back(std::make_unique<ClientSession>(SessionOf(c), task));
            sessions.back()->BeginConnection();
            server->OnJoin(c);
        }
        for (uint32_t c = 0; c < 3; ++c)
        {
            sessions[c]->AcceptModel(host.Take(c));
            updates.push_back(DecodeFrame(sessions[c]->TrainAndEncode(1).frame));
        }
        host.now = 5'000;
        for (const Frame& frame : updates)
        {
            EXPECT_EQ(server->OnFrame(frame), std::nullopt);
        }
    }
};

TEST(ComputeCost, UpdatesArrivingTogetherFinishDecodingOneCostApartPerCore)
{
    QueueWorld one(1, 0.25);
    ASSERT_EQ(one.host.arrivals.size(), 3u);
    for (size_t i = 0; i < 3; ++i)
    {
        EXPECT_DOUBLE_EQ(one.host.arrivals[i].decodeS, 0.25);
        EXPECT_DOUBLE_EQ(one.host.arrivals[i].foldedS, 5.0 + 0.25 * double(i + 1));
    }
    // The round closes once the last update is folded in, not when it arrived.
    EXPECT_TRUE(one.host.ended.empty());
    ASSERT_TRUE(one.host.Armed(CoordinatorTimer::RoundClose));
    EXPECT_EQ(one.host.timers.at(CoordinatorTimer::RoundClose), 5'750);
    one.host.Fire(CoordinatorTimer::RoundClose, *one.server);
    ASSERT_EQ(one.host.ended.size(), 1u);
    EXPECT_DOUBLE_EQ(one.host.ended[0].endS, 5.75);
    EXPECT_EQ(one.host.started.size(), 2u); // the next round starts then

    QueueWorld two(2, 0.25);
    EXPECT_DOUBLE_EQ(two.host.arrivals[0].foldedS, 5.25);
    EXPECT_DOUBLE_EQ(two.host.arrivals[1].foldedS, 5.25);
    EXPECT_DOUBLE_EQ(two.host.arrivals[2].foldedS, 5.5);
    EXPECT_EQ(two.host.timers.at(CoordinatorTimer::RoundClose), 5'500);
}

TEST(ComputeCost, AggregationAndEvaluationDelayTheRoundsEnd)
{
    auto task = MakeTinyTask(1);
    auto profile = ZeroProfile();
    profile->applyPerElementS = 1e-3;
    profile->flopS = 1e-6;
    task->serverCompute = DeviceCompute{2, 4.0, profile};
    FakeHost host;
    RoundCoordinator server(FakeHostConfig(2, 1, 1), task, host);
    ClientSession session(SessionOf(0), task);
    session.BeginConnection();
    server.Start();
    server.OnJoin(0);
    session.AcceptModel(host.Take(0));
    host.now = 1'000;
    EXPECT_EQ(server.OnFrame(DecodeFrame(session.TrainAndEncode(1).frame)), std::nullopt);
    const double elements = double(task->model->Layout().TotalSize());
    const double aggregateS = 1e-3 * elements / 4.0;
    const double evaluateS =
        1e-6 * task->model->ForwardFlops() * double(task->data->test.Size()) / 4.0 / 2.0;
    ASSERT_TRUE(host.Armed(CoordinatorTimer::RoundClose));
    host.Fire(CoordinatorTimer::RoundClose, server);
    ASSERT_EQ(host.ended.size(), 1u);
    EXPECT_DOUBLE_EQ(host.ended[0].aggregateS, aggregateS);
    EXPECT_DOUBLE_EQ(host.ended[0].evaluateS, evaluateS);
    EXPECT_NEAR(host.ended[0].endS, 1.0 + aggregateS + evaluateS, 1e-3); // a tick
}

/// A rule whose combination is `work` units, for pricing alone.
class PricedRule : public AggregationRule
{
  public:
    explicit PricedRule(double work)
        : m_work(work)
    {
    }

    void Reset(size_t) override
    {
    }

    void Add(std::span<const float>, double) override
    {
    }

    size_t Count() const override
    {
        return 0;
    }

    void Result(std::span<float>) override
    {
    }

    std::vector<double> AggregateWeights() const override
    {
        return {};
    }

    double ResultWork(size_t count, size_t size) const override
    {
        return m_work * double(count) * double(size);
    }

  private:
    double m_work;
};

TEST(ComputeCost, ARoundClosesOnceTheQueuedWorkAndItsOwnAreDone)
{
    auto task = MakeTinyTask(1);
    auto profile = ZeroProfile();
    profile->applyPerElementS = 1e-3;
    profile->flopS = 1e-6;
    profile->ruleWorkS["priced"] = 0.5;
    ServerClock clock(DeviceCompute{2, 4.0, profile}, 1000.0);
    const PricedRule rule(1e-3);
    const Model& model = *task->model;
    const uint64_t examples = task->data->test.Size();

    // Folds queued until 3 s; the round's model is computed at 1 s.
    EXPECT_DOUBLE_EQ(clock.Queue(3.0, 0.0), 3.0);
    const RoundCloseTimes close = clock.CloseRound(rule, "priced", 2, 100, &model, examples, 1.0);
    EXPECT_DOUBLE_EQ(close.aggregateS, clock.AggregateSeconds(rule, "priced", 2, 100));
    EXPECT_DOUBLE_EQ(close.aggregateS, (0.5 * 1e-3 * 2 * 100 + 1e-3 * 100) / 4.0);
    EXPECT_DOUBLE_EQ(close.evaluateS, clock.EvaluateSeconds(model, examples));
    EXPECT_EQ(close.ticks, clock.TicksUntil(3.0 + close.aggregateS + close.evaluateS, 1.0));

    // No update: nothing combined; no model (an edge's episodic round): nothing evaluated.
    const RoundCloseTimes idle = clock.CloseRound(rule, "priced", 0, 100, nullptr, examples, 5.0);
    EXPECT_EQ(idle.aggregateS, 0.0);
    EXPECT_EQ(idle.evaluateS, 0.0);
    EXPECT_EQ(idle.ticks, 0);

    // Without a profile every cost is 0 and the round closes at once.
    ServerClock unpriced(DeviceCompute{}, 1000.0);
    const RoundCloseTimes now = unpriced.CloseRound(rule, "priced", 2, 100, &model, examples, 1.0);
    EXPECT_EQ(now.aggregateS, 0.0);
    EXPECT_EQ(now.evaluateS, 0.0);
    EXPECT_EQ(now.ticks, 0);
}

TEST(ComputeCost, ARobustRulesCombinationIsPricedByItsWork)
{
    // Three updates combined by the coordinate-wise median: n x d units of work at the
    // profile's price, on a server of speed 2; the mean's combination costs nothing more.
    for (const std::string rule : {"median", "multi_krum", "mean"})
    {
        auto task = MakeTinyTask(3);
        task->robust.type = rule;
        auto profile = ZeroProfile();
        profile->ruleWorkS = {{"median", 1e-3}, {"multi_krum", 1e-4}};
        task->serverCompute = DeviceCompute{1, 2.0, profile};
        FakeHost host;
        RoundCoordinator server(FakeHostConfig(2, 3, 3), task, host);
        std::vector<std::unique_ptr<ClientSession>> sessions;
        server.Start();
        for (uint32_t c = 0; c < 3; ++c)
        {
            sessions.push_back(std::make_unique<ClientSession>(SessionOf(c), task));
            sessions.back()->BeginConnection();
            server.OnJoin(c);
        }
        for (uint32_t c = 0; c < 3; ++c)
        {
            sessions[c]->AcceptModel(host.Take(c));
            EXPECT_EQ(server.OnFrame(DecodeFrame(sessions[c]->TrainAndEncode(1).frame)),
                      std::nullopt);
        }
        const double d = double(task->model->Layout().TotalSize());
        const double expected = rule == "median"       ? 1e-3 * 3.0 * d / 2.0
                                : rule == "multi_krum" ? 1e-4 * 3.0 * 2.0 / 2.0 * d / 2.0
                                                       : 0.0;
        if (expected > 0.0)
        {
            ASSERT_TRUE(host.Armed(CoordinatorTimer::RoundClose)) << rule;
            host.Fire(CoordinatorTimer::RoundClose, server);
        }
        ASSERT_EQ(host.ended.size(), 1u) << rule;
        EXPECT_DOUBLE_EQ(host.ended[0].aggregateS, expected) << rule;
    }
}

TEST(ComputeCost, AsyncStepsWaitForTheDecodeQueueAndNewWorkWaitsForTheStep)
{
    auto task = MakeTinyTask(3);
    auto profile = ZeroProfile();
    profile->codecs.at("none").decode.fixedS = 0.25;
    task->serverCompute = DeviceCompute{1, 1.0, profile};
    CoordinatorConfig config = FakeHostConfig(2, 3, 3);
    config.rounds = 1;
    config.async = true;
    config.asyncConfig.buffer = 2;
    config.asyncConfig.concurrency = 2;
    FakeHost host;
    auto server = MakeServerCoordinator(config, task, host);
    server->Start();
    std::vector<std::unique_ptr<ClientSession>> sessions;
    for (uint32_t c = 0; c < 3; ++c)
    {
        sessions.push_back(std::make_unique<ClientSession>(SessionOf(c), task));
        sessions.back()->BeginConnection();
        server->OnJoin(c);
    }
    std::vector<Frame> updates;
    for (uint32_t c = 0; c < 3; ++c)
    {
        if (host.HasFrame(c))
        {
            sessions[c]->AcceptModel(host.Take(c));
            updates.push_back(DecodeFrame(sessions[c]->TrainAndEncode(1).frame));
        }
    }
    ASSERT_EQ(updates.size(), 2u);
    host.now = 2'000;
    for (const Frame& frame : updates)
    {
        EXPECT_EQ(server->OnFrame(frame), std::nullopt);
    }
    ASSERT_EQ(host.arrivals.size(), 2u);
    EXPECT_DOUBLE_EQ(host.arrivals[0].foldedS, 2.25);
    EXPECT_DOUBLE_EQ(host.arrivals[1].foldedS, 2.5);
    // The step's record waits for the second fold.
    EXPECT_TRUE(host.ended.empty());
    ASSERT_TRUE(host.Armed(CoordinatorTimer::RoundClose));
    EXPECT_EQ(host.timers.at(CoordinatorTimer::RoundClose), 2'500);
    host.Fire(CoordinatorTimer::RoundClose, *server);
    ASSERT_EQ(host.ended.size(), 1u);
    EXPECT_DOUBLE_EQ(host.ended[0].endS, 2.5);
    EXPECT_TRUE(host.finished);
}

TEST(ComputeCost, ReferenceProfileRoundTripsAndNamesItsMachine)
{
    const CostProfile& reference = CostProfile::Reference();
    EXPECT_TRUE(reference.machine.contains("cpu"));
    for (const std::string& name : CodecTypeNames())
    {
        EXPECT_NO_THROW(reference.Codec(name)) << name;
    }
    const CostProfile again = CostProfile::FromJson(reference.ToJson());
    EXPECT_EQ(again.ToJson(), reference.ToJson());
    // Costs that take time at all on the reference machine, every robust rule's included.
    EXPECT_GT(reference.Codec("top_k").encode.perElementS, 0.0);
    for (const char* rule : {"median",
                             "trimmed_mean",
                             "krum",
                             "multi_krum",
                             "geometric_median",
                             "centered_clipping",
                             "norm_bound"})
    {
        ASSERT_TRUE(reference.ruleWorkS.count(rule)) << rule;
        EXPECT_GT(reference.ruleWorkS.at(rule), 0.0) << rule;
    }
    EXPECT_GT(reference.flopS, 0.0);
}

TEST(ComputeCost, MalformedProfileNamesTheKey)
{
    json profile = CostProfile::Reference().ToJson();
    auto message = [](const json& j) {
        try
        {
            CostProfile::FromJson(j);
        }
        catch (const CostProfileError& e)
        {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    json bad = profile;
    bad["codecs"]["top_k"]["encode"]["per_element_s"] = -1.0;
    EXPECT_EQ(message(bad).rfind("codecs.top_k.encode.per_element_s:", 0), 0u) << message(bad);
    bad = profile;
    bad["server"]["rules"]["median"] = "fast";
    EXPECT_EQ(message(bad).rfind("server.rules.median:", 0), 0u) << message(bad);
    bad = profile;
    bad["codecs"]["qsgd"].erase("decode");
    EXPECT_EQ(message(bad).rfind("codecs.qsgd.decode:", 0), 0u) << message(bad);
    bad = profile;
    bad["server"]["flop_s"] = "fast";
    EXPECT_EQ(message(bad).rfind("server.flop_s:", 0), 0u) << message(bad);
    bad = profile;
    bad["codecs"]["top_k"]["encode"]["per_elem_s"] = 1.0;
    EXPECT_EQ(message(bad).rfind("codecs.top_k.encode.per_elem_s:", 0), 0u) << message(bad);
    bad = profile;
    bad.erase("format");
    EXPECT_EQ(message(bad).rfind("format:", 0), 0u) << message(bad);
}

} // namespace
} // namespace fedran::test
