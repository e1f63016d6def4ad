// power_of_choice pow-d's poll without ns-3: the coordinator sends the round's model to the d
// candidates, keeps the m highest of the losses they answer, sends the kept a TrainStart
// instead of a second model, and the round runs as any other from there; driven by a fake
// clock and real client sessions.

#include "fl-test-util.h"
#include "models/fl/loss-poll.h"
#include "models/fl/loss-report.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace fedran::test
{
namespace
{

using nlohmann::json;

constexpr uint32_t kClients = 6;

/// A pow-d coordinator (d = 4 of 6, 2 a round, poll timeout 5 s), its fake host, sessions.
struct PollWorld
{
    std::shared_ptr<FederatedTask> task;
    FakeHost host;
    std::unique_ptr<RoundCoordinator> server;
    std::vector<std::unique_ptr<ClientSession>> clients;

    explicit PollWorld(json selection = {{"type", "power_of_choice"},
                                         {"variant", "pow-d"},
                                         {"d", 4},
                                         {"poll_timeout_s", 5}})
        : task(MakeTinyTask(kClients))
    {
        task->selection = SelectionSpec::Parse(selection, "server.selection");
        CoordinatorConfig config = FakeHostConfig(3, 2, kClients);
        server = StartWithClients(config, task, host, clients);
    }

    /// The clients with a frame waiting, in id order.
    std::vector<uint32_t> Polled() const
    {
        std::vector<uint32_t> polled;
        for (uint32_t c = 0; c < kClients; ++c)
        {
            if (host.HasFrame(c))
            {
                polled.push_back(c);
            }
        }
        return polled;
    }

    /// Client `c` takes its poll and answers with `loss` (scripted), as a frame to the server.
    Frame Answer(uint32_t c, double loss)
    {
        const Frame poll = host.Take(c);
        EXPECT_EQ(clients[c]->Classify(poll), ServerFrameKind::LossPoll);
        clients[c]->AcceptModel(poll);
        return DecodeFrame(clients[c]->LossReplyFrame(poll.header.round, loss));
    }
};

TEST(PowD, TheKeptAreTheHighestPolledLossesAndTrainFromThePolledModel)
{
    PollWorld w;
    // The round has started (its record's start is now) but has no clients yet: a poll.
    EXPECT_TRUE(w.host.started.empty());
    EXPECT_FALSE(w.host.Armed(CoordinatorTimer::Deadline));
    EXPECT_EQ(w.host.timers.at(CoordinatorTimer::PollTimeout), 5'000);
    const std::vector<uint32_t> candidates = w.Polled();
    ASSERT_EQ(candidates.size(), 4u);
    // The poll carries the model frame's payload: with the "none" codec, the global model.
    const Frame& first = w.host.inbox.at(candidates[0]).front();
    EXPECT_EQ(first.header.type, FrameType::LossPoll);
    std::vector<float> decoded(w.server->GlobalParams().size());
    CodecBank bank(w.task->uplinkCodec, w.task->downlinkCodec);
    bank.ModelDecoder().Decode(w.task->model->Layout(), first.payload, decoded);
    EXPECT_EQ(decoded, w.server->GlobalParams());

    // Scripted losses, by hand: the two highest of {1.0, 3.0, 2.0, 0.5} in candidate order are
    // the second (3.0) and the third (2.0).
    const std::vector<double> losses{1.0, 3.0, 2.0, 0.5};
    w.host.now = 1'200;
    for (size_t i = 0; i < candidates.size(); ++i)
    {
        ASSERT_EQ(w.server->OnFrame(w.Answer(candidates[i], losses[i])), std::nullopt);
        // Nothing starts before the last answer.
        EXPECT_EQ(w.host.started.empty(), i + 1 < candidates.size());
    }
    ASSERT_EQ(w.host.started.size(), 1u);
    const std::vector<uint32_t> kept{candidates[1], candidates[2]};
    EXPECT_EQ(w.host.started[0].second, kept);
    EXPECT_FALSE(w.host.Armed(CoordinatorTimer::PollTimeout));
    EXPECT_EQ(w.host.timers.at(CoordinatorTimer::Deadline), 1'200 + 60'000);
    // The kept get a header, not a second model; the others nothing.
    for (uint32_t c : candidates)
    {
        const bool isKept = std::count(kept.begin(), kept.end(), c) > 0;
        ASSERT_EQ(w.host.HasFrame(c), isKept);
    }
    for (uint32_t c : kept)
    {
        const Frame start = w.host.Take(c);
        EXPECT_EQ(start.header.type, FrameType::TrainStart);
        EXPECT_TRUE(start.payload.empty());
        ASSERT_EQ(w.clients[c]->Classify(start), ServerFrameKind::TrainStart);
        w.clients[c]->AcceptTrainStart(start);
        EncodedUpdate update = w.clients[c]->TrainAndEncode(start.header.round);
        w.clients[c]->UpdateSent(update.record);
        ASSERT_EQ(w.server->OnFrame(DecodeFrame(update.frame)), std::nullopt);
    }
    ASSERT_EQ(w.host.arrivals.size(), 2u);
    for (const UpdateArrivalRecord& r : w.host.arrivals)
    {
        EXPECT_EQ(r.fate, UpdateFate::Accepted);
    }
    if (w.host.Armed(CoordinatorTimer::RoundClose))
    {
        w.host.Fire(CoordinatorTimer::RoundClose, *w.server);
    }
    ASSERT_EQ(w.host.ended.size(), 1u);
    EXPECT_EQ(w.host.ended[0].startS, 0.0); // the round began with the poll
    EXPECT_EQ(w.host.ended[0].selected, kept);
    // The scores are the polled losses.
    EXPECT_EQ(w.host.ended[0].selectionScores,
              (std::vector<std::pair<uint32_t, double>>{{kept[0], 3.0}, {kept[1], 2.0}}));
}

TEST(PowD, TheTimeoutKeepsThoseThatAnsweredAndLateAnswersChangeNothing)
{
    PollWorld w;
    const std::vector<uint32_t> candidates = w.Polled();
    ASSERT_EQ(candidates.size(), 4u);
    ASSERT_EQ(w.server->OnFrame(w.Answer(candidates[0], 0.7)), std::nullopt);
    const Frame late = w.Answer(candidates[3], 9.0); // computed, not yet delivered
    w.host.Fire(CoordinatorTimer::PollTimeout, *w.server);
    ASSERT_EQ(w.host.started.size(), 1u);
    EXPECT_EQ(w.host.started[0].second, std::vector<uint32_t>{candidates[0]});
    EXPECT_EQ(w.host.timers.at(CoordinatorTimer::Deadline), 5'000 + 60'000);
    // The late answer neither breaks the protocol nor changes the round.
    EXPECT_EQ(w.server->OnFrame(late), std::nullopt);
    EXPECT_EQ(w.host.started.size(), 1u);
    EXPECT_FALSE(w.host.HasFrame(candidates[3]));
}

TEST(PowD, AnsweredLossIsTheClientsMeanLossAtThePolledModel)
{
    PollWorld w;
    const uint32_t c = w.Polled().front();
    const Frame poll = w.host.Take(c);
    w.clients[c]->AcceptModel(poll);
    const double loss = w.clients[c]->PollLoss();
    EXPECT_DOUBLE_EQ(loss, ClientLoss(*w.task, c, w.server->GlobalParams()));
    EXPECT_GT(loss, 0.0);
    const std::vector<uint8_t> reply = w.clients[c]->LossReplyFrame(poll.header.round, loss);
    EXPECT_EQ(reply.size(), kFrameHeaderSize + kLossReplyPayloadBytes);
    EXPECT_FLOAT_EQ(DecodeLossReply(DecodeFrame(reply).payload), float(loss));
    // One pass over its training examples (36 of its 40: a tenth are test data) at the
    // default 2000 examples a second.
    ASSERT_EQ(w.task->partition[c].size(), 36u);
    EXPECT_DOUBLE_EQ(w.clients[c]->PollSeconds(), 36.0 / 2000.0);
}

TEST(PowD, ALostCandidateIsNotWaitedForAndATrainStartNeedsThePolledModel)
{
    PollWorld w;
    const std::vector<uint32_t> candidates = w.Polled();
    for (size_t i = 0; i + 1 < candidates.size(); ++i)
    {
        ASSERT_EQ(w.server->OnFrame(w.Answer(candidates[i], double(i))), std::nullopt);
    }
    EXPECT_TRUE(w.host.started.empty());
    w.server->OnClientLost(candidates.back(), UpdateFate::Dropped, "reset");
    ASSERT_EQ(w.host.started.size(), 1u);
    EXPECT_EQ(w.host.started[0].second, (std::vector<uint32_t>{candidates[1], candidates[2]}));
    // A client that holds no model of the round refuses a TrainStart.
    ClientSession other(SessionOf(candidates[1]), w.task);
    other.BeginConnection();
    const Frame start = w.host.Take(candidates[1]);
    EXPECT_THROW(other.AcceptTrainStart(start), DecodeError);
}

TEST(PowD, AnswersAreRefusedWhenTheSelectionDoesNotPoll)
{
    PollWorld w(json{{"type", "power_of_choice"}});
    Frame reply = DecodeFrame(
        EncodeFrame(MakeFrameHeader(FrameType::LossReply, 0, 1, 0, 40), EncodeLossReply(0.5)));
    EXPECT_NE(w.server->OnFrame(reply), std::nullopt);
}

} // namespace
} // namespace fedran::test
