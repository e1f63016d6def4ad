// The server's round logic without ns-3: joins, selection, over-selection, deadlines, late,
// failed and dropped updates, protocol errors, two-exchange rounds and lazy skips, driven by
// a fake clock and real client sessions.

#include "compression/codec-spec.h"
#include "fl-test-util.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace fedran::test
{
namespace
{

using nlohmann::json;

CoordinatorConfig
Config(uint32_t rounds, uint32_t perRound, uint32_t expected, double overSelect = 1.0)
{
    CoordinatorConfig config;
    config.rounds = rounds;
    config.clientsPerRound = perRound;
    config.expectedClients = expected;
    config.overSelect = overSelect;
    config.deadlineTicks = 60'000;
    config.joinTimeoutTicks = 30'000;
    return config;
}

/// A coordinator, its fake host and one real session per client.
struct World
{
    std::shared_ptr<FederatedTask> task;
    FakeHost host;
    std::unique_ptr<RoundCoordinator> server;
    std::vector<std::unique_ptr<ClientSession>> clients;

    World(uint32_t n, CoordinatorConfig config, json uplink = {{"type", "none"}})
        : task(MakeTinyTask(n, std::move(uplink)))
    {
        server = std::make_unique<RoundCoordinator>(config, task, host);
        for (uint32_t c = 0; c < n; ++c)
        {
            ClientSessionConfig cc;
            cc.clientId = c;
            clients.push_back(std::make_unique<ClientSession>(cc, task));
        }
        server->Start();
    }

    void JoinAll()
    {
        for (uint32_t c = 0; c < clients.size(); ++c)
        {
            clients[c]->BeginConnection();
            server->OnJoin(c);
        }
    }

    /// The client takes its model frame and returns its encoded update frame.
    Frame Train(uint32_t c)
    {
        Frame model = host.Take(c);
        EXPECT_EQ(clients[c]->Classify(model), ServerFrameKind::Model);
        clients[c]->AcceptModel(model);
        EncodedUpdate update = clients[c]->TrainAndEncode(model.header.round);
        clients[c]->UpdateSent(update.record);
        return DecodeFrame(update.frame);
    }

    /// Every selected client trains and answers, in id order.
    void AnswerAll()
    {
        const auto selected = host.started.back().second;
        for (uint32_t c : selected)
        {
            ASSERT_EQ(server->OnFrame(Train(c)), std::nullopt);
        }
    }

    size_t Count(UpdateFate fate) const
    {
        return std::count_if(host.arrivals.begin(), host.arrivals.end(), [&](const auto& r) {
            return r.fate == fate;
        });
    }
};

TEST(RoundCoordinator, FirstRoundStartsWhenEveryExpectedClientHasJoined)
{
    World w(4, Config(2, 2, 4));
    EXPECT_TRUE(w.host.Armed(CoordinatorTimer::JoinTimeout));
    for (uint32_t c = 0; c < 3; ++c)
    {
        w.server->OnJoin(c);
    }
    EXPECT_TRUE(w.host.started.empty());
    EXPECT_TRUE(w.host.joinClosed.empty());
    w.server->OnJoin(3);
    EXPECT_EQ(w.host.joinClosed, (std::vector<std::pair<uint32_t, uint32_t>>{{4, 4}}));
    EXPECT_FALSE(w.host.Armed(CoordinatorTimer::JoinTimeout));
    ASSERT_EQ(w.host.started.size(), 1u);
    const auto& [round, selected] = w.host.started[0];
    EXPECT_EQ(round, 1u);
    ASSERT_EQ(selected.size(), 2u);
    EXPECT_TRUE(std::is_sorted(selected.begin(), selected.end()));
    EXPECT_TRUE(w.host.Armed(CoordinatorTimer::Deadline));
    EXPECT_EQ(w.host.timers.at(CoordinatorTimer::Deadline), 60'000);
    for (uint32_t c : selected)
    {
        ASSERT_TRUE(w.host.HasFrame(c));
        EXPECT_EQ(w.host.inbox[c].front().header.type, FrameType::GlobalModel);
        EXPECT_EQ(w.host.inbox[c].front().header.round, 1u);
    }
}

TEST(RoundCoordinator, JoinTimeoutStartsWithWhoeverJoined)
{
    World w(5, Config(1, 5, 5));
    w.server->OnJoin(1);
    w.server->OnJoin(3);
    w.host.Fire(CoordinatorTimer::JoinTimeout, *w.server);
    ASSERT_EQ(w.host.started.size(), 1u);
    EXPECT_EQ(w.host.started[0].second, (std::vector<uint32_t>{1, 3}));
    EXPECT_DOUBLE_EQ(w.host.NowSeconds(), 30.0);
    // Said once, at the first round: two of the five expected had joined.
    EXPECT_EQ(w.host.joinClosed, (std::vector<std::pair<uint32_t, uint32_t>>{{2, 5}}));
    w.server->OnJoin(0);
    EXPECT_EQ(w.host.joinClosed.size(), 1u);
}

TEST(RoundCoordinator, AdmitsOnlyKnownClients)
{
    World w(3, Config(1, 1, 3));
    EXPECT_TRUE(w.server->Admits(2));
    EXPECT_FALSE(w.server->Admits(3));
}

TEST(RoundCoordinator, RoundsAggregateEveryUpdateAndFinish)
{
    World w(3, Config(3, 3, 3));
    const std::vector<float> initial = w.server->GlobalParams();
    w.JoinAll();
    for (uint32_t r = 1; r <= 3; ++r)
    {
        w.host.now += 1500;
        w.AnswerAll();
        ASSERT_EQ(w.host.ended.size(), r);
        EXPECT_EQ(w.host.ended.back().participants, 3u);
        EXPECT_EQ(w.host.ended.back().selected, (std::vector<uint32_t>{0, 1, 2}));
    }
    EXPECT_TRUE(w.host.finished);
    EXPECT_EQ(w.Count(UpdateFate::Accepted), 9u);
    EXPECT_NE(w.server->GlobalParams(), initial);
    // Accuracy is evaluated each round, on real data, and training helps.
    EXPECT_GT(w.host.ended.back().testAccuracy, 0.2);
    EXPECT_DOUBLE_EQ(w.host.ended[1].startS, 1.5);
    EXPECT_DOUBLE_EQ(w.host.ended[1].endS, 3.0);
    EXPECT_FALSE(w.host.Armed(CoordinatorTimer::Deadline));
}

TEST(RoundCoordinator, DeadlineMakesTheSilentLateAndBusyUntilTheirUpdateArrives)
{
    World w(3, Config(3, 3, 3));
    w.JoinAll();
    Frame late = w.Train(2);
    ASSERT_EQ(w.server->OnFrame(w.Train(0)), std::nullopt);
    ASSERT_EQ(w.server->OnFrame(w.Train(1)), std::nullopt);
    EXPECT_TRUE(w.host.ended.empty());
    w.host.Fire(CoordinatorTimer::Deadline, *w.server);
    ASSERT_EQ(w.host.ended.size(), 1u);
    EXPECT_EQ(w.host.ended[0].participants, 2u);
    EXPECT_DOUBLE_EQ(w.host.ended[0].endS, 60.0);
    // Round 2 leaves the busy client out.
    EXPECT_EQ(w.host.started[1].second, (std::vector<uint32_t>{0, 1}));
    w.server->OnFrame(late);
    EXPECT_EQ(w.host.arrivals.back().fate, UpdateFate::Late);
    EXPECT_EQ(w.host.arrivals.back().round, 1u);
    w.AnswerAll();
    // Round 3: it is free again.
    EXPECT_EQ(w.host.started[2].second, (std::vector<uint32_t>{0, 1, 2}));
}

TEST(RoundCoordinator, OverSelectionAggregatesTheFirstArrivals)
{
    World w(4, Config(2, 2, 4, 1.5));
    w.JoinAll();
    const auto selected = w.host.started[0].second;
    ASSERT_EQ(selected.size(), 3u);
    ASSERT_EQ(w.server->OnFrame(w.Train(selected[0])), std::nullopt);
    EXPECT_TRUE(w.host.ended.empty());
    ASSERT_EQ(w.server->OnFrame(w.Train(selected[1])), std::nullopt);
    ASSERT_EQ(w.host.ended.size(), 1u);
    EXPECT_EQ(w.host.ended[0].participants, 2u);
    w.server->OnFrame(w.Train(selected[2]));
    EXPECT_EQ(w.host.arrivals.back().fate, UpdateFate::Late);
}

TEST(RoundCoordinator, BadFramesFailWithTheirReason)
{
    World w(2, Config(1, 2, 2));
    w.JoinAll();
    Frame wrongCodec = w.Train(0);
    wrongCodec.header.codec += 1;
    w.server->OnFrame(wrongCodec);
    EXPECT_EQ(w.host.arrivals.back().fate, UpdateFate::Failed);
    EXPECT_NE(w.host.arrivals.back().reason.find("does not match the configured codec"),
              std::string::npos);
    Frame noSamples = w.Train(1);
    noSamples.header.samples = 0;
    w.server->OnFrame(noSamples);
    EXPECT_EQ(w.host.arrivals.back().fate, UpdateFate::Failed);
    EXPECT_NE(w.host.arrivals.back().reason.find("zero training samples"), std::string::npos);
    // Both settled: the round ends without an update and the model stays.
    ASSERT_EQ(w.host.ended.size(), 1u);
    EXPECT_EQ(w.host.ended[0].participants, 0u);
    EXPECT_TRUE(w.host.finished);
}

TEST(RoundCoordinator, CorruptPayloadFailsAndTheRoundGoesOn)
{
    World w(2, Config(1, 2, 2));
    w.JoinAll();
    Frame corrupt = w.Train(0);
    corrupt.payload.resize(corrupt.payload.size() / 2);
    w.server->OnFrame(corrupt);
    EXPECT_EQ(w.host.arrivals.back().fate, UpdateFate::Failed);
    w.server->OnFrame(w.Train(1));
    ASSERT_EQ(w.host.ended.size(), 1u);
    EXPECT_EQ(w.host.ended[0].participants, 1u);
}

TEST(RoundCoordinator, ALostClientIsDroppedAndNotSelectedAgain)
{
    World w(3, Config(2, 3, 3));
    w.JoinAll();
    w.server->OnClientLost(1, UpdateFate::Dropped, "reset");
    EXPECT_EQ(w.host.arrivals.back().fate, UpdateFate::Dropped);
    EXPECT_EQ(w.host.arrivals.back().reason, "reset");
    EXPECT_EQ(w.server->JoinedCount(), 2u);
    w.server->OnFrame(w.Train(0));
    w.server->OnFrame(w.Train(2));
    ASSERT_EQ(w.host.ended.size(), 1u);
    EXPECT_EQ(w.host.ended[0].participants, 2u);
    EXPECT_EQ(w.host.started[1].second, (std::vector<uint32_t>{0, 2}));
}

TEST(RoundCoordinator, AJoinFromAJoinedClientDropsItsOldSession)
{
    World w(2, Config(1, 2, 2));
    w.JoinAll();
    w.clients[0]->BeginConnection();
    w.server->OnJoin(0);
    EXPECT_EQ(w.host.arrivals.back().fate, UpdateFate::Dropped);
    EXPECT_EQ(w.host.arrivals.back().reason, "reconnected");
    EXPECT_EQ(w.server->JoinedCount(), 2u);
}

TEST(RoundCoordinator, ProtocolErrorsAreReportedToTheHost)
{
    World w(1, Config(1, 1, 1));
    w.JoinAll();
    Frame reply;
    reply.header.type = FrameType::ClientReply;
    EXPECT_NE(w.server->OnFrame(reply), std::nullopt);
    Frame model;
    model.header.type = FrameType::GlobalModel;
    EXPECT_NE(w.server->OnFrame(model), std::nullopt);
}

TEST(RoundCoordinator, TwoExchangeRoundsSendStateFirstAndCombineReplies)
{
    World w(2, Config(2, 2, 2), {{"type", "power_sgd"}, {"rank", 1}});
    w.JoinAll();
    for (uint32_t r = 1; r <= 2; ++r)
    {
        for (uint32_t c = 0; c < 2; ++c)
        {
            Frame state = w.host.Take(c);
            ASSERT_EQ(state.header.type, FrameType::CodecState);
            ASSERT_EQ(w.clients[c]->AcceptCodecState(state), std::nullopt);
        }
        std::vector<Frame> first;
        for (uint32_t c = 0; c < 2; ++c)
        {
            first.push_back(w.Train(c));
        }
        for (const Frame& f : first)
        {
            w.server->OnFrame(f);
        }
        for (uint32_t c = 0; c < 2; ++c)
        {
            Frame question = w.host.Take(c);
            ASSERT_EQ(question.header.type, FrameType::CodecState);
            auto reply = w.clients[c]->AcceptCodecState(question);
            ASSERT_TRUE(reply.has_value());
            EXPECT_TRUE(reply->record.reply);
            ASSERT_EQ(w.server->OnFrame(DecodeFrame(reply->frame)), std::nullopt);
        }
        ASSERT_EQ(w.host.ended.size(), r);
        EXPECT_EQ(w.host.ended.back().participants, 2u);
    }
    EXPECT_EQ(w.Count(UpdateFate::Accepted), 4u); // the replies; first payloads are not updates
}

TEST(RoundCoordinator, SkipsAreReusedOrOmittedAsTheCodecSays)
{
    for (const char* onSkip : {"reuse", "omit"})
    {
        // A ladder whose controller skips whenever the update is smaller than the mean of
        // the recent ones (training's updates shrink).
        json uplink = {{"type", "adaptive"},
                       {"ladder", json::array({{{"type", "none"}}})},
                       {"on_skip", onSkip},
                       {"policy", "fixed"},
                       {"rung", 0},
                       {"skip_ratio", 1.0}};
        World w(1, Config(4, 1, 1), uplink);
        w.JoinAll();
        for (int r = 0; r < 4; ++r)
        {
            w.AnswerAll();
        }
        ASSERT_EQ(w.host.ended.size(), 4u) << onSkip;
        ASSERT_EQ(w.host.arrivals.size(), 4u) << onSkip;
        size_t skipped = 0;
        for (size_t r = 0; r < 4; ++r)
        {
            const bool skip = w.host.arrivals[r].skipped;
            skipped += skip;
            EXPECT_EQ(w.host.arrivals[r].fate, UpdateFate::Accepted);
            const uint32_t expected = !skip || std::string(onSkip) == "reuse" ? 1u : 0u;
            EXPECT_EQ(w.host.ended[r].participants, expected) << onSkip << " round " << r + 1;
        }
        EXPECT_GT(skipped, 0u) << onSkip;
        EXPECT_FALSE(w.host.arrivals[0].skipped); // no history yet
    }
}

TEST(RoundCoordinator, NamedAggregationRules)
{
    const json voteSpec = {{"type", "sign"}, {"aggregation", "majority_vote"}};
    auto sign = MakeCodec(voteSpec, "u");
    const RuleContext args{3, sign.get(), CodecSpec::Parse(voteSpec, "u").BringsAggregator()};
    auto rule = MakeAggregationRule(RuleSpec{.type = "codec"}, args);
    rule->Reset(1);
    const float a[] = {1.0f}, b[] = {-3.0f}, c[] = {2.0f};
    rule->Add(a, 1.0);
    rule->Add(b, 10.0);
    rule->Add(c, 1.0);
    float out[1];
    rule->Result(out);
    EXPECT_FLOAT_EQ(out[0], 2.0f); // two positive votes of three; mean magnitude 2
    // One client, one vote, whatever its sample count.
    EXPECT_EQ(rule->AggregateWeights(), (std::vector<double>{1.0 / 3, 1.0 / 3, 1.0 / 3}));
    auto mean = MakeAggregationRule(RuleSpec{.type = "weighted_mean"}, args);
    mean->Reset(1);
    mean->Add(a, 1.0);
    mean->Add(b, 1.0);
    mean->Result(out);
    EXPECT_FLOAT_EQ(out[0], -1.0f);
    EXPECT_EQ(mean->AggregateWeights(), (std::vector<double>{0.5, 0.5}));
    EXPECT_THROW(MakeAggregationRule(RuleSpec{.type = "krum?"}, args), std::invalid_argument);
    EXPECT_EQ(AggregationRuleNames().front(), "codec");
}

} // namespace
} // namespace fedran::test
