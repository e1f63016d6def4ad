// training.pipelining "layerwise" without ns-3: the buckets' ready instants follow the last
// backward pass from the output layer back, the first bucket goes before training ends, and
// the server's model after a round is bit for bit the one of a round without pipelining.

#include "fl-test-util.h"
#include "models/fl/pipeline-plan.h"

#include <gtest/gtest.h>

#include <cstring>

namespace fedran::test
{
namespace
{

using nlohmann::json;

std::shared_ptr<FederatedTask>
MlpTask(uint32_t clients, json uplink, bool layerwise, uint64_t bucketBytes)
{
    auto task = MakeTinyTask(clients, std::move(uplink));
    task->model = MakeModel(json{{"type", "mlp"}, {"hidden", {16, 12}}},
                            kSyntheticFeatures,
                            kSyntheticClasses);
    task->training.pipelining.layerwise = layerwise;
    task->training.pipelining.bucketBytes = bucketBytes;
    return task;
}

TEST(PipelinePlan, BucketsFollowTheBackwardPassFromTheOutputLayer)
{
    // An MLP 60-16-12-10: w1 b1 w2 b2 w3 b3.
    auto model = MakeModel(json{{"type", "mlp"}, {"hidden", {16, 12}}}, 60, 10);
    const TensorLayout& layout = model->Layout();
    const std::vector<double> flops = model->ForwardFlopsPerTensor();
    // 1-byte buckets: one tensor each.
    const auto parts = PlanLayerwise(layout, flops, 3.0, 0.3, 1);
    ASSERT_EQ(parts.size(), layout.TensorCount());
    double total = 0.0;
    for (double f : flops)
    {
        total += f;
    }
    double done = 0.0;
    for (size_t i = 0; i < parts.size(); ++i)
    {
        const uint32_t tensor = uint32_t(layout.TensorCount() - 1 - i);
        EXPECT_EQ(parts[i].firstTensor, tensor);
        EXPECT_EQ(parts[i].tensorCount, 1u);
        done += flops[tensor];
        // The backward pass is the last 0.2 s (2/3 of the last step's 0.3 s).
        EXPECT_NEAR(parts[i].readyS, 2.8 + 0.2 * done / total, 1e-12);
    }
    EXPECT_EQ(parts.back().readyS, 3.0);
    // Buckets of 1000 bytes: the output layer's 120 weights + 10 biases do not fill one.
    const auto big = PlanLayerwise(layout, flops, 3.0, 0.3, 1000);
    ASSERT_GE(big.size(), 2u);
    EXPECT_EQ(big[0].firstTensor + big[0].tensorCount, layout.TensorCount());
    uint64_t bytes = 0;
    for (uint32_t t = big[0].firstTensor; t < layout.TensorCount(); ++t)
    {
        bytes += layout.Tensors()[t].Size() * 4;
    }
    EXPECT_GE(bytes, 1000u);
    EXPECT_EQ(big.back().firstTensor, 0u);
    // Encoding is sequential on the client: a bucket waits for the one before.
    const std::vector<PipelinePart> two{{1, 1, 1.0}, {0, 1, 1.5}};
    const std::vector<double> sendAt = PartSendTimes(two, std::vector<double>{0.7, 0.1});
    EXPECT_DOUBLE_EQ(sendAt[0], 1.7);
    EXPECT_DOUBLE_EQ(sendAt[1], 1.8);
}

/// One round of three clients; returns the server's model after it.
std::vector<float>
RunRound(const std::shared_ptr<FederatedTask>& task, double* firstSendS = nullptr)
{
    CoordinatorConfig config;
    config.rounds = 1;
    config.clientsPerRound = 3;
    config.expectedClients = 3;
    config.deadlineTicks = 60'000;
    config.joinTimeoutTicks = 30'000;
    config.ticksPerSecond = 1000.0;
    FakeHost host;
    RoundCoordinator server(config, task, host);
    server.Start();
    std::vector<std::unique_ptr<ClientSession>> sessions;
    for (uint32_t c = 0; c < 3; ++c)
    {
        sessions.push_back(std::make_unique<ClientSession>(SessionOf(c), task));
        sessions.back()->BeginConnection();
        server.OnJoin(c);
    }
    for (uint32_t c = 0; c < 3; ++c)
    {
        sessions[c]->AcceptModel(host.Take(c));
        EncodedUpdate update = sessions[c]->TrainAndEncode(1);
        if (update.parts.empty())
        {
            EXPECT_EQ(server.OnFrame(DecodeFrame(update.frame)), std::nullopt);
            continue;
        }
        EXPECT_GE(update.parts.size(), 2u);
        if (firstSendS && c == 0)
        {
            *firstSendS = update.parts.front().sendAtS;
            EXPECT_LT(*firstSendS, sessions[c]->ComputeSeconds());
        }
        uint64_t bytes = 0;
        for (const EncodedPart& part : update.parts)
        {
            bytes += part.frame.size();
            EXPECT_EQ(server.OnFrame(DecodeFrame(part.frame)), std::nullopt);
        }
        EXPECT_EQ(update.record.frameBytes, bytes);
    }
    EXPECT_EQ(host.arrivals.size(), 3u);
    for (const auto& arrival : host.arrivals)
    {
        EXPECT_EQ(arrival.fate, UpdateFate::Accepted) << arrival.reason;
    }
    EXPECT_EQ(host.ended.size(), 1u);
    return server.GlobalParams();
}

class LayerwiseBitIdentity : public ::testing::TestWithParam<const char*>
{
};

TEST_P(LayerwiseBitIdentity, TheModelAfterTheRoundEqualsNonPipelinedBitForBit)
{
    const json uplink = json::parse(GetParam());
    const std::vector<float> plain = RunRound(MlpTask(3, uplink, false, 1));
    double firstSendS = -1.0;
    auto pipelined = MlpTask(3, uplink, true, 300);
    pipelined->clientCompute.assign(
        3,
        DeviceCompute{1, 1.0, std::make_shared<CostProfile>(CostProfile::Reference())});
    const std::vector<float> layerwise = RunRound(pipelined, &firstSendS);
    ASSERT_EQ(plain.size(), layerwise.size());
    EXPECT_EQ(std::memcmp(plain.data(), layerwise.data(), plain.size() * sizeof(float)), 0);
    EXPECT_GT(firstSendS, 0.0);
}

INSTANTIATE_TEST_SUITE_P(
    Codecs,
    LayerwiseBitIdentity,
    ::testing::Values(R"({"type": "none"})",
                      R"({"type": "error_feedback", "base": {"type": "top_k", "ratio": 0.1}})",
                      R"({"type": "qsgd", "levels": 16})",
                      R"({"type": "quantization", "bits": 4})",
                      R"({"type": "dgc", "mode": "round", "ratio": 0.05})",
                      R"({"type": "sign"})"));

} // namespace
} // namespace fedran::test
