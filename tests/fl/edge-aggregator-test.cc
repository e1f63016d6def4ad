// An edge aggregator without ns-3: its tier waits for its parent's model, runs edge_rounds
// rounds with the same coordinator as the server, and sends one update for its subtree
// (edge model - received model, weighted by the subtree's samples); with one edge round of
// every child that update is what a flat server round would have moved the model by.

#include "compression/codec-spec.h"
#include "fl-test-util.h"
#include "models/fl/edge-aggregator.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

using nlohmann::json;

/// A FakeHost for the tier, plus what an edge host is asked to do.
class FakeEdgeHost : public EdgeHost
{
  public:
    FakeHost tier;
    bool ready = false;
    std::vector<Frame> toParent;
    std::vector<EdgeRoundRecord> edgeRounds;

    double NowSeconds() const override
    {
        return tier.NowSeconds();
    }
    void Send(uint32_t c, std::vector<uint8_t> f) override
    {
        tier.Send(c, std::move(f));
    }
    void ArmTimer(CoordinatorTimer t, int64_t d) override
    {
        tier.ArmTimer(t, d);
    }
    void CancelTimer(CoordinatorTimer t) override
    {
        tier.CancelTimer(t);
    }
    uint32_t DrawInteger(uint32_t lo, uint32_t hi) override
    {
        return tier.DrawInteger(lo, hi);
    }
    void JoinClosed(uint32_t j, uint32_t e) override
    {
        tier.JoinClosed(j, e);
    }
    void RoundStarted(uint32_t r, const std::vector<uint32_t>& s) override
    {
        tier.RoundStarted(r, s);
    }
    void FrameSent(uint32_t r, uint32_t c, uint64_t b, const std::string& d) override
    {
        tier.FrameSent(r, c, b, d);
    }
    void UpdateArrived(const UpdateArrivalRecord& r) override
    {
        tier.UpdateArrived(r);
    }
    void RoundEnded(const RoundRecord& r) override
    {
        tier.RoundEnded(r);
    }
    void Finished() override
    {
        tier.Finished();
    }
    void ReadyForParent() override
    {
        ready = true;
    }
    void SendToParent(std::vector<uint8_t> frame) override
    {
        toParent.push_back(DecodeFrame(frame));
    }
    void EdgeRoundEnded(const EdgeRoundRecord& record) override
    {
        edgeRounds.push_back(record);
    }
};

EdgeAggregatorConfig
Edge(uint32_t edgeRounds, uint32_t children)
{
    EdgeAggregatorConfig config;
    config.hub = 0;
    config.id = 100;
    config.subtreeSamples = 40 * children;
    config.edgeRounds = edgeRounds;
    config.tier.clientsPerRound = children;
    config.tier.expectedClients = children;
    config.tier.deadlineTicks = 60'000;
    config.tier.joinTimeoutTicks = 30'000;
    config.parentDownlinkCodec = CodecSpec::Parse({{"type", "none"}}, "compression.downlink");
    config.uplinkCodec = CodecSpec::Parse({{"type", "none"}}, "aggregator.compression.uplink");
    return config;
}

/// The parent's model frame for round `round`.
Frame
ModelFrame(const FederatedTask& task, const std::vector<float>& model, uint32_t round, uint32_t id)
{
    std::vector<uint8_t> payload;
    Rng rng(1, 1);
    MakeCodec({{"type", "none"}}, "compression.downlink")
        ->Encode(task.model->Layout(), model, rng, payload);
    FrameHeader header;
    header.type = FrameType::GlobalModel;
    header.codec = MakeCodec({{"type", "none"}}, "compression.downlink")->Id();
    header.round = round;
    header.client = id;
    return DecodeFrame(EncodeFrame(header, payload));
}

/// Client c takes its model frame from `host` and returns its update frame.
Frame
Train(ClientSession& client, FakeHost& host, uint32_t c)
{
    Frame model = host.Take(c);
    client.AcceptModel(model);
    EncodedUpdate update = client.TrainAndEncode(model.header.round);
    client.UpdateSent(update.record);
    return DecodeFrame(update.frame);
}

std::vector<std::unique_ptr<ClientSession>>
Sessions(const std::shared_ptr<FederatedTask>& task, uint32_t n)
{
    std::vector<std::unique_ptr<ClientSession>> sessions;
    for (uint32_t c = 0; c < n; ++c)
    {
        ClientSessionConfig config;
        config.clientId = c;
        sessions.push_back(std::make_unique<ClientSession>(config, task));
    }
    return sessions;
}

TEST(EdgeAggregator, WaitsForItsParentRunsItsEdgeRoundsAndSendsOneUpdate)
{
    auto task = MakeTinyTask(3);
    FakeEdgeHost host;
    EdgeAggregator edge(Edge(2, 3), task, host);
    auto clients = Sessions(task, 3);
    edge.Start();
    for (uint32_t c = 0; c < 3; ++c)
    {
        clients[c]->BeginConnection();
        edge.OnChildJoin(c);
    }
    EXPECT_TRUE(host.ready);
    EXPECT_TRUE(host.tier.started.empty()); // nothing starts before the parent's model

    const std::vector<float> received(task->model->Layout().TotalSize(), 0.25f);
    ASSERT_EQ(edge.OnParentFrame(ModelFrame(*task, received, 7, 100)), std::nullopt);
    for (int e = 0; e < 2; ++e)
    {
        ASSERT_EQ(host.tier.started.size(), size_t(e + 1));
        for (uint32_t c = 0; c < 3; ++c)
        {
            ASSERT_EQ(edge.OnChildFrame(Train(*clients[c], host.tier, c)), std::nullopt);
        }
    }
    ASSERT_EQ(host.edgeRounds.size(), 2u);
    for (uint32_t e = 0; e < 2; ++e)
    {
        EXPECT_EQ(host.edgeRounds[e].round, 7u);
        EXPECT_EQ(host.edgeRounds[e].edgeRound, e + 1);
        EXPECT_EQ(host.edgeRounds[e].participants, 3u);
        EXPECT_GT(host.edgeRounds[e].uplinkBytes, 3u * 4u * received.size());
    }
    ASSERT_EQ(host.toParent.size(), 1u);
    const Frame& update = host.toParent[0];
    EXPECT_EQ(update.header.type, FrameType::ClientUpdate);
    EXPECT_EQ(update.header.round, 7u);
    EXPECT_EQ(update.header.client, 100u);
    EXPECT_EQ(update.header.samples, 120u);
    EXPECT_TRUE(host.tier.ended.back().testAccuracy != host.tier.ended.back().testAccuracy)
        << "an edge tier does not evaluate (NaN)";

    // A frame for another id is refused.
    EXPECT_NE(edge.OnParentFrame(ModelFrame(*task, received, 8, 101)), std::nullopt);
}

TEST(EdgeAggregator, OneEdgeRoundOfEveryChildIsTheFlatRoundsUpdate)
{
    auto task = MakeTinyTask(3);
    // Flat: a server round of the three clients from the initial model.
    FakeHost flatHost;
    CoordinatorConfig flatConfig = Edge(1, 3).tier;
    flatConfig.rounds = 1;
    RoundCoordinator flat(flatConfig, task, flatHost);
    const std::vector<float> initial = flat.GlobalParams();
    auto flatClients = Sessions(task, 3);
    flat.Start();
    for (uint32_t c = 0; c < 3; ++c)
    {
        flatClients[c]->BeginConnection();
        flat.OnJoin(c);
    }
    for (uint32_t c = 0; c < 3; ++c)
    {
        ASSERT_EQ(flat.OnFrame(Train(*flatClients[c], flatHost, c)), std::nullopt);
    }
    ASSERT_TRUE(flatHost.finished);

    // Edge: the same clients (the same training streams) behind an aggregator.
    FakeEdgeHost host;
    EdgeAggregator edge(Edge(1, 3), task, host);
    auto clients = Sessions(task, 3);
    edge.Start();
    for (uint32_t c = 0; c < 3; ++c)
    {
        clients[c]->BeginConnection();
        edge.OnChildJoin(c);
    }
    ASSERT_EQ(edge.OnParentFrame(ModelFrame(*task, initial, 1, 100)), std::nullopt);
    for (uint32_t c = 0; c < 3; ++c)
    {
        ASSERT_EQ(edge.OnChildFrame(Train(*clients[c], host.tier, c)), std::nullopt);
    }
    ASSERT_EQ(host.toParent.size(), 1u);
    std::vector<float> update(initial.size());
    MakeCodec({{"type", "none"}}, "compression.uplink")
        ->Decode(task->model->Layout(), host.toParent[0].payload, update);
    double maxError = 0.0;
    for (size_t i = 0; i < initial.size(); ++i)
    {
        maxError =
            std::max(maxError, std::abs(double(initial[i] + update[i]) - flat.GlobalParams()[i]));
    }
    EXPECT_LT(maxError, 1e-6);
    EXPECT_GT(std::abs(double(update[0])) + std::abs(double(update[1])), 0.0);
}

} // namespace
} // namespace fedran::test
