// Secure aggregation inside a round, without ns-3: the coordinator's stages with real client
// sessions (real training, real masking) and a fake clock. The unmasked mean moves the model
// as plain FedAvg does, within the quantization's error; dropouts after ShareKeys and after
// the masked input are handled; a stage below the threshold fails the round cleanly.

#include "fl-test-util.h"
#include "models/fl/secagg/secagg-messages.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace fedran::test
{
namespace
{

constexpr uint32_t kClients = 5;

struct SecAggWorld
{
    std::shared_ptr<FederatedTask> task;
    FakeHost host;
    std::unique_ptr<RoundCoordinator> server;
    std::vector<std::unique_ptr<ClientSession>> clients;
    std::set<uint32_t> gone; ///< clients that left (their frames are not answered)
    /// Round 1's protocol bytes each way, counted here from the frames themselves.
    uint64_t protocolBytes = 0;

    explicit SecAggWorld(bool secure, nlohmann::json uplink = {{"type", "none"}})
        : task(MakeTinyTask(kClients, uplink))
    {
        if (secure)
        {
            task->secagg.type = "secagg";
            task->secagg.threshold = 3;
            task->secagg.timeoutS = 5.0;
            task->secagg.maxWeight = 40.0; // the tiny sites have 40 examples: weight 1
        }
        CoordinatorConfig config = FakeHostConfig(2, kClients, kClients);
        server = StartWithClients(config, task, host, clients);
    }

    void Leave(uint32_t c)
    {
        gone.insert(c);
        server->OnClientLost(c, UpdateFate::Dropped, "peer gone");
    }

    /// Delivers every queued frame, clients in id order, until none is left; `hook` runs
    /// before a client handles a frame and may make it leave.
    void Pump(const std::function<void(uint32_t, const Frame&)>& hook = {})
    {
        for (bool moved = true; moved;)
        {
            moved = false;
            for (uint32_t c = 0; c < kClients; ++c)
            {
                if (!host.HasFrame(c))
                {
                    continue;
                }
                moved = true;
                const Frame frame = host.Take(c);
                if (hook)
                {
                    hook(c, frame);
                }
                if (gone.count(c))
                {
                    continue;
                }
                if (IsSecAggFrame(frame.header.type) && frame.header.round == 1)
                {
                    protocolBytes += kFrameHeaderSize + frame.payload.size();
                }
                switch (clients[c]->Classify(frame))
                {
                    case ServerFrameKind::SecAgg: {
                        const std::vector<uint8_t> reply = clients[c]->AcceptSecAgg(frame);
                        if (!reply.empty())
                        {
                            protocolBytes += frame.header.round == 1 ? reply.size() : 0;
                            EXPECT_EQ(server->OnFrame(DecodeFrame(reply)), std::nullopt);
                        }
                        break;
                    }
                    case ServerFrameKind::Model: {
                        clients[c]->AcceptModel(frame);
                        EncodedUpdate update = clients[c]->TrainAndEncode(frame.header.round);
                        clients[c]->UpdateSent(update.record);
                        EXPECT_EQ(server->OnFrame(DecodeFrame(update.frame)), std::nullopt);
                        break;
                    }
                    default:
                        ADD_FAILURE() << "unexpected frame for client " << c;
                }
            }
        }
        if (host.Armed(CoordinatorTimer::RoundClose))
        {
            host.Fire(CoordinatorTimer::RoundClose, *server);
        }
    }
};

TEST(SecAggRound, TheUnmaskedMeanMovesTheModelAsFedAvg)
{
    SecAggWorld plain(false);
    plain.Pump();
    SecAggWorld secure(true);
    secure.Pump();
    ASSERT_GE(secure.host.ended.size(), 1u);
    const RoundRecord& r = secure.host.ended[0];
    EXPECT_EQ(r.secaggStatus, "ok");
    EXPECT_EQ(r.participants, kClients);
    EXPECT_EQ(r.selected.size(), kClients);
    // Every protocol frame of the round, both ways, and nothing else.
    EXPECT_EQ(r.secaggBytes, secure.protocolBytes);
    // The model after both rounds: FedAvg of the same trained updates, up to the quantization
    // (a level of 2c/Q = 3.8e-6 per value and client).
    ASSERT_GE(plain.host.ended.size(), 1u);
    const std::vector<float>& a = plain.server->GlobalParams();
    const std::vector<float>& b = secure.server->GlobalParams();
    ASSERT_EQ(a.size(), b.size());
    double worst = 0.0;
    for (size_t i = 0; i < a.size(); ++i)
    {
        worst = std::max(worst, std::abs(double(a[i]) - double(b[i])));
    }
    EXPECT_LT(worst, 1e-4);
    EXPECT_GT(worst, 0.0); // quantized, so not bit for bit
    // The masked input travels as b bits per element plus the weight.
    const size_t d = a.size();
    for (const UpdateArrivalRecord& arrival : secure.host.arrivals)
    {
        EXPECT_EQ(arrival.frameBytes, kFrameHeaderSize + secagg::MaskedBytes(d + 1, 32));
    }
}

TEST(SecAggRound, ADropoutAfterShareKeysIsUnmasked)
{
    SecAggWorld w(true);
    // Client 2 leaves when its model arrives: it shared its keys, it sends no masked input.
    w.Pump([&](uint32_t c, const Frame& frame) {
        if (c == 2 && frame.header.type == FrameType::GlobalModel && frame.header.round == 1)
        {
            w.Leave(2);
        }
    });
    ASSERT_GE(w.host.ended.size(), 1u);
    EXPECT_EQ(w.host.ended[0].secaggStatus, "ok");
    EXPECT_EQ(w.host.ended[0].participants, kClients - 1);
}

TEST(SecAggRound, ADropoutAfterTheMaskedInputStillCounts)
{
    SecAggWorld w(true);
    // Client 4 leaves when asked to unmask: its vector is in the sum, its self-mask is rebuilt
    // from the others' shares.
    w.Pump([&](uint32_t c, const Frame& frame) {
        if (c == 4 && frame.header.type == FrameType::SecAggUnmask && frame.header.round == 1)
        {
            w.Leave(4);
        }
    });
    ASSERT_GE(w.host.ended.size(), 1u);
    EXPECT_EQ(w.host.ended[0].secaggStatus, "ok");
    EXPECT_EQ(w.host.ended[0].participants, kClients);
}

TEST(SecAggRound, BelowTheThresholdTheRoundFailsCleanly)
{
    SecAggWorld w(true);
    const std::vector<float> before = w.server->GlobalParams();
    // Three of five leave before advertising their keys: 2 < t = 3.
    w.Pump([&](uint32_t c, const Frame& frame) {
        if (c < 3 && frame.header.type == FrameType::SecAggSetup && frame.header.round == 1)
        {
            w.Leave(c);
        }
    });
    ASSERT_GE(w.host.ended.size(), 1u);
    const RoundRecord& r = w.host.ended[0];
    EXPECT_EQ(r.secaggStatus, "failed_advertise_keys");
    EXPECT_EQ(r.secaggFailure, "2 clients advertised keys, below the threshold 3");
    EXPECT_EQ(r.participants, 0u);
    // The model did not move, and the next round started (with whoever is still joined).
    ASSERT_GE(w.host.started.size(), 2u);
    EXPECT_EQ(w.host.started[1].second, (std::vector<uint32_t>{3, 4}));
    (void)before;
}

TEST(SecAggRound, AStageWaitsForItsTimeout)
{
    SecAggWorld w(true);
    // Client 1 never answers its Setup (it is still connected): the stage closes at
    // timeout_s with the other four, and the round goes on without it.
    w.Pump([&](uint32_t c, const Frame& frame) {
        if (c == 1 && frame.header.type == FrameType::SecAggSetup && frame.header.round == 1)
        {
            w.gone.insert(1); // silent, not lost
        }
    });
    ASSERT_TRUE(w.host.Armed(CoordinatorTimer::SecAggStage));
    EXPECT_EQ(w.host.timers.at(CoordinatorTimer::SecAggStage), 5'000);
    w.host.Fire(CoordinatorTimer::SecAggStage, *w.server);
    w.Pump();
    ASSERT_GE(w.host.ended.size(), 1u);
    EXPECT_EQ(w.host.ended[0].secaggStatus, "ok");
    EXPECT_EQ(w.host.ended[0].participants, kClients - 1);
    EXPECT_NEAR(w.host.ended[0].secaggS, 5.0, 1e-9); // the key stages' time, the timeout
}

TEST(SecAggRound, ARoundWithNobodyTakesItsTimeoutAndFails)
{
    SecAggWorld w(true);
    // Every site leaves before advertising its keys: round 1 fails at once (nobody is left to
    // wait for), round 2 has nobody to select and waits timeout_s, as an empty round without
    // secure aggregation waits its deadline, instead of ending at once.
    for (uint32_t c = 0; c < kClients; ++c)
    {
        w.Leave(c);
    }
    if (w.host.Armed(CoordinatorTimer::RoundClose))
    {
        w.host.Fire(CoordinatorTimer::RoundClose, *w.server);
    }
    ASSERT_EQ(w.host.ended.size(), 1u);
    EXPECT_EQ(w.host.ended[0].secaggStatus, "failed_advertise_keys");
    ASSERT_TRUE(w.host.Armed(CoordinatorTimer::SecAggStage));
    const int64_t startedAt = w.host.now;
    w.host.Fire(CoordinatorTimer::SecAggStage, *w.server);
    if (w.host.Armed(CoordinatorTimer::RoundClose))
    {
        w.host.Fire(CoordinatorTimer::RoundClose, *w.server);
    }
    ASSERT_EQ(w.host.ended.size(), 2u);
    EXPECT_EQ(w.host.ended[1].secaggStatus, "failed_advertise_keys");
    EXPECT_EQ(w.host.ended[1].secaggFailure, "0 clients advertised keys, below the threshold 3");
    EXPECT_GE(w.host.now - startedAt, 5'000);
}

// Which codecs compose with the masks follows their registry rows (CodecTraits::maskedSum)
// and what the spec's codec does with its parameters, not their names.
TEST(SecAggComposition, FollowsTheCodecsDeclaredTraitsAndParameters)
{
    auto compose = [](const nlohmann::json& json, std::string& why) {
        return secagg::Compose(CodecSpec::Parse(json, "compression.uplink"), why);
    };
    std::string why;
    EXPECT_EQ(compose({{"type", "none"}}, why), secagg::Composition::Dense);
    EXPECT_EQ(compose({{"type", "qsgd"}, {"levels", 16}}, why), secagg::Composition::Dense);
    EXPECT_EQ(compose({{"type", "sign"}}, why), secagg::Composition::Dense);
    EXPECT_EQ(secagg::Compose(CodecSpec(), why), secagg::Composition::Dense);

    EXPECT_FALSE(compose({{"type", "sign"}, {"aggregation", "majority_vote"}}, why));
    EXPECT_NE(why.find("own aggregation"), std::string::npos) << why;
    EXPECT_FALSE(compose({{"type", "top_k"}, {"ratio", 0.1}}, why));
    EXPECT_NE(why.find("common support"), std::string::npos) << why;
    EXPECT_FALSE(compose({{"type", "power_sgd"}, {"rank", 2}}, why));
    EXPECT_NE(why.find("server step"), std::string::npos) << why;
    EXPECT_FALSE(compose({{"type", "error_feedback"}, {"base", {{"type", "none"}}}}, why));
    EXPECT_NE(why.find("(composed: none, fp16, random_k, quantization, qsgd, sign)"),
              std::string::npos)
        << why;

    const CodecSpec ratio =
        CodecSpec::Parse({{"type", "random_k"}, {"ratio", 0.3}, {"scale", false}},
                         "compression.uplink");
    EXPECT_EQ(secagg::Compose(ratio, why), secagg::Composition::RandomK);
    bool scale = true;
    EXPECT_EQ(secagg::RandomKCount(ratio, 9, scale), 3u); // the nearest of 2.7 elements
    EXPECT_FALSE(scale);
    const CodecSpec k = CodecSpec::Parse({{"type", "random_k"}, {"k", 7}}, "compression.uplink");
    EXPECT_EQ(secagg::RandomKCount(k, 100, scale), 7u);
    EXPECT_TRUE(scale);
    EXPECT_EQ(secagg::RandomKCount(k, 5, scale), 5u);
}

} // namespace
} // namespace fedran::test
