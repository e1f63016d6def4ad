// The round protocol under injected faults (docs/reliability.md), without ns-3: damaged
// update frames caught by the CRC check and dropped as `corrupt` with the client selectable
// again, and crashes that cost a site its codec state.

#include "fl-test-util.h"
#include "models/fl/async-coordinator.h"

#include <gtest/gtest.h>

#include <cmath>

namespace fedran::test
{
namespace
{

using nlohmann::json;

CoordinatorConfig
EveryoneEveryRound(uint32_t clients, uint32_t rounds)
{
    CoordinatorConfig config;
    config.rounds = rounds;
    config.clientsPerRound = clients;
    config.expectedClients = clients;
    config.deadlineTicks = 60'000;
    config.joinTimeoutTicks = 30'000;
    return config;
}

/// `frame` through a FrameReassembler, as a transport delivers it.
Frame
Receive(const std::vector<uint8_t>& bytes)
{
    FrameReassembler reassembler;
    reassembler.Append(bytes);
    std::optional<Frame> frame = reassembler.Next();
    EXPECT_TRUE(frame.has_value());
    EXPECT_EQ(reassembler.Buffered(), 0u);
    return frame.value_or(Frame{});
}

/// `n` clients that damage each update with probability `corruptUplink`, started and joined.
std::vector<std::unique_ptr<ClientSession>>
JoinCorruptingClients(ServerCoordinator& server,
                      std::shared_ptr<const FederatedTask> task,
                      uint32_t n,
                      double corruptUplink)
{
    std::vector<std::unique_ptr<ClientSession>> clients;
    for (uint32_t c = 0; c < n; ++c)
    {
        ClientSessionConfig config;
        config.clientId = c;
        config.corruptUplink = corruptUplink;
        clients.push_back(std::make_unique<ClientSession>(config, task));
    }
    server.Start();
    for (uint32_t c = 0; c < n; ++c)
    {
        clients[c]->BeginConnection();
        server.OnJoin(c);
    }
    return clients;
}

TEST(Faults, CorruptUplinkOfPointTwoOverTwoHundredUpdatesIsCaughtDroppedAndForgiven)
{
    // 10 clients, all selected in each of 20 rounds: 200 updates, each damaged with
    // probability 0.2 after its CRC was computed. Binomial(200, 0.2): mean 40, sd 5.66.
    const uint32_t n = 10;
    const uint32_t rounds = 20;
    auto task = MakeTinyTask(n);
    FakeHost host;
    RoundCoordinator server(EveryoneEveryRound(n, rounds), task, host);
    auto clients = JoinCorruptingClients(server, task, n, 0.2);
    uint32_t damaged = 0;
    std::vector<std::vector<uint32_t>> corruptIn(rounds + 1);
    for (uint32_t round = 1; round <= rounds; ++round)
    {
        ASSERT_EQ(host.started.size(), round);
        ASSERT_EQ(host.started.back().second.size(), n) << "every client selected again";
        for (uint32_t c = 0; c < n; ++c)
        {
            Frame model = host.Take(c);
            clients[c]->AcceptModel(model);
            EncodedUpdate update = clients[c]->TrainAndEncode(round);
            const Frame received = Receive(update.frame);
            EXPECT_EQ(received.corrupt, update.record.corrupted) << "the CRC catches each one";
            damaged += update.record.corrupted ? 1 : 0;
            ASSERT_EQ(server.OnFrame(received), std::nullopt) << "the connection survives";
            EXPECT_EQ(host.arrivals.back().fate,
                      update.record.corrupted ? UpdateFate::Corrupt : UpdateFate::Accepted);
            if (update.record.corrupted)
            {
                corruptIn[round].push_back(c);
            }
        }
        ASSERT_EQ(host.ended.size(), round);
        EXPECT_EQ(host.ended.back().participants, n - corruptIn[round].size())
            << "none of the damaged updates is aggregated";
    }
    EXPECT_TRUE(host.finished);
    const double sd = std::sqrt(200 * 0.2 * 0.8);
    EXPECT_GE(damaged, 40 - 3 * sd);
    EXPECT_LE(damaged, 40 + 3 * sd);
    size_t corrupt = 0;
    for (const auto& record : host.arrivals)
    {
        corrupt += record.fate == UpdateFate::Corrupt ? 1 : 0;
    }
    EXPECT_EQ(corrupt, damaged);
}

TEST(Faults, ACorruptLateUpdateIsDiscardedAsLateAndFreesTheClient)
{
    auto task = MakeTinyTask(2);
    FakeHost host;
    CoordinatorConfig config = EveryoneEveryRound(2, 3);
    config.clientsPerRound = 1; // the first update closes the round: the other is late
    RoundCoordinator server(config, task, host);
    ClientSession a(ClientSessionConfig{}, task); // client 0
    ClientSessionConfig bc;
    bc.clientId = 1;
    bc.corruptUplink = 1.0;
    ClientSession b(bc, task);
    server.Start();
    a.BeginConnection();
    server.OnJoin(0);
    b.BeginConnection();
    server.OnJoin(1);
    ASSERT_EQ(host.started.back().second.size(), 1u);
    const uint32_t selected = host.started.back().second[0];
    ClientSession& chosen = selected == 0 ? a : b;
    Frame model = host.Take(selected);
    chosen.AcceptModel(model);
    const Frame update = Receive(chosen.TrainAndEncode(1).frame);
    server.OnFrame(update);
    EXPECT_EQ(host.arrivals.back().fate,
              selected == 1 ? UpdateFate::Corrupt : UpdateFate::Accepted);
    // A damaged frame that is not an update breaks the protocol.
    Frame join = Receive(EncodeFrame(FrameHeader{FrameType::Join, 0, 0, 1, 0, 0}, {}));
    join.corrupt = true;
    EXPECT_TRUE(server.OnFrame(join).has_value());
}

TEST(Faults, AsyncServerDropsCorruptUpdatesAndGivesTheClientTheNextModel)
{
    // FedBuff with K = 1 and all 4 clients training at once: 120 updates, each damaged with
    // probability 0.2. A damaged one is recorded corrupt, folds nothing in (no step, the model
    // unchanged) and frees its client, who is sent the current model at once.
    const uint32_t n = 4;
    auto task = MakeTinyTask(n);
    FakeHost host;
    CoordinatorConfig config;
    config.rounds = 1000;
    config.expectedClients = n;
    config.joinTimeoutTicks = 30'000;
    config.async = true;
    config.asyncConfig.buffer = 1;
    config.asyncConfig.concurrency = n;
    AsyncCoordinator server(config, task, host);
    auto clients = JoinCorruptingClients(server, task, n, 0.2);
    uint32_t damaged = 0;
    for (uint32_t k = 0; k < 120; ++k)
    {
        const uint32_t c = k % n;
        ASSERT_FALSE(host.inbox[c].empty()) << "client " << c << " was sent a model";
        Frame model = host.Take(c);
        clients[c]->AcceptModel(model);
        EncodedUpdate update = clients[c]->TrainAndEncode(model.header.round);
        const Frame received = Receive(update.frame);
        ASSERT_EQ(received.corrupt, update.record.corrupted);
        const uint32_t version = server.Version();
        const std::vector<float> before = server.GlobalParams();
        ASSERT_EQ(server.OnFrame(received), std::nullopt) << "the connection survives";
        EXPECT_EQ(host.arrivals.back().fate,
                  update.record.corrupted ? UpdateFate::Corrupt : UpdateFate::Accepted);
        if (update.record.corrupted)
        {
            ++damaged;
            EXPECT_EQ(server.Version(), version) << "nothing folded in";
            EXPECT_EQ(server.GlobalParams(), before);
        }
        else
        {
            EXPECT_EQ(server.Version(), version + 1);
        }
        EXPECT_EQ(server.TrainingCount(), n) << "the freed client trains again";
    }
    const double sd = std::sqrt(120 * 0.2 * 0.8);
    EXPECT_GE(damaged, 24 - 3 * sd);
    EXPECT_LE(damaged, 24 + 3 * sd);
    EXPECT_EQ(server.Version(), 120 - damaged);
}

TEST(Faults, CrashDrawsFollowTheProbabilityAndOnlyThen)
{
    auto task = MakeTinyTask(1);
    ClientSessionConfig config;
    config.crashProbability = 0.3;
    ClientSession session(config, task);
    int crashes = 0;
    for (int i = 0; i < 1000; ++i)
    {
        if (const auto at = session.DrawCrash())
        {
            ++crashes;
            EXPECT_GE(*at, 0.0);
            EXPECT_LT(*at, 1.0);
        }
    }
    const double sd = std::sqrt(1000 * 0.3 * 0.7);
    EXPECT_GE(crashes, 300 - 3 * sd);
    EXPECT_LE(crashes, 300 + 3 * sd);
    ClientSession never(ClientSessionConfig{}, task);
    for (int i = 0; i < 100; ++i)
    {
        EXPECT_FALSE(never.DrawCrash().has_value());
    }
}

/// Two rounds on one session (the second from the model the first produced), optionally
/// crashing in between; the second round's payload.
std::vector<uint8_t>
SecondRoundPayload(const json& uplink, bool crash)
{
    auto task = MakeTinyTask(2, uplink);
    FakeHost host;
    RoundCoordinator server(EveryoneEveryRound(1, 2), task, host);
    ClientSession session(ClientSessionConfig{}, task); // client 0
    server.Start();
    session.BeginConnection();
    server.OnJoin(0);
    session.AcceptModel(host.Take(0));
    server.OnFrame(DecodeFrame(session.TrainAndEncode(1).frame));
    if (crash)
    {
        session.Crash();
        session.BeginConnection();
        server.OnJoin(0);
    }
    session.AcceptModel(host.Take(0));
    return DecodeFrame(session.TrainAndEncode(2).frame).payload;
}

TEST(Faults, ACrashLosesTheErrorFeedbackResidualAndNothingElse)
{
    // With a stateless codec a crash changes nothing the client sends; with error feedback
    // the second update no longer carries the first round's residual.
    const json none = {{"type", "none"}};
    EXPECT_EQ(SecondRoundPayload(none, false), SecondRoundPayload(none, true));
    const json feedback = {{"type", "error_feedback"},
                           {"base", {{"type", "top_k"}, {"ratio", 0.1}}}};
    EXPECT_NE(SecondRoundPayload(feedback, false), SecondRoundPayload(feedback, true));
}

} // namespace
} // namespace fedran::test
