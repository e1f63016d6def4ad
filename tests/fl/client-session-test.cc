// A client's side without ns-3: its join, what it accepts from the server, training and
// encoding, the two-exchange state, and what it measures of its uploads.

#include "compression/codec-spec.h"
#include "fl-test-util.h"
#include "models/learning/gradient-spread.h"

#include <gtest/gtest.h>

#include <set>

namespace fedran::test
{
namespace
{

using nlohmann::json;

Frame
ModelFrame(const FederatedTask& task, uint32_t client, uint32_t round, std::span<const float> w)
{
    auto codec = MakeCodec(task.downlinkCodec);
    std::vector<uint8_t> payload;
    Rng rng(1, 1);
    codec->Encode(task.model->Layout(), w, rng, payload);
    FrameHeader header;
    header.type = FrameType::GlobalModel;
    header.codec = codec->Id();
    header.round = round;
    header.client = client;
    return DecodeFrame(EncodeFrame(header, payload));
}

ClientSession
Session(std::shared_ptr<FederatedTask> task, uint32_t client)
{
    ClientSessionConfig config;
    config.clientId = client;
    config.samplesPerSecond = 100.0;
    return ClientSession(config, std::move(task));
}

TEST(ClientSession, JoinFrameNamesTheClient)
{
    auto task = MakeTinyTask(3);
    ClientSession session = Session(task, 2);
    const Frame join = DecodeFrame(session.BeginConnection());
    EXPECT_EQ(join.header.type, FrameType::Join);
    EXPECT_EQ(join.header.client, 2u);
    EXPECT_TRUE(join.payload.empty());
    EXPECT_THROW(Session(task, 3), std::invalid_argument);
}

TEST(ClientSession, ClassifiesServerFrames)
{
    auto task = MakeTinyTask(2);
    ClientSession session = Session(task, 1);
    std::vector<float> w(task->model->Layout().TotalSize(), 0.5f);
    Frame model = ModelFrame(*task, 1, 1, w);
    EXPECT_EQ(session.Classify(model), ServerFrameKind::Model);
    model.header.client = 0;
    EXPECT_EQ(session.Classify(model), ServerFrameKind::Unexpected);
    model.header.client = 1;
    model.header.codec += 1;
    EXPECT_EQ(session.Classify(model), ServerFrameKind::Unexpected);
    Frame update = model;
    update.header.type = FrameType::ClientUpdate;
    EXPECT_EQ(session.Classify(update), ServerFrameKind::Unexpected);
}

TEST(ClientSession, TrainsFromTheModelItReceivedAndEncodesARealUpdate)
{
    auto task = MakeTinyTask(2);
    ClientSession session = Session(task, 0);
    session.BeginConnection();
    std::vector<float> w(task->model->Layout().TotalSize(), 0.0f);
    session.AcceptModel(ModelFrame(*task, 0, 1, w));
    // 36 training examples of 40 (10% held out), one epoch, at 100 examples/s.
    EXPECT_DOUBLE_EQ(session.ComputeSeconds(), double(task->partition[0].size()) / 100.0);
    EncodedUpdate update = session.TrainAndEncode(1);
    const Frame frame = DecodeFrame(update.frame);
    EXPECT_EQ(frame.header.type, FrameType::ClientUpdate);
    EXPECT_EQ(frame.header.round, 1u);
    EXPECT_EQ(frame.header.samples, task->partition[0].size());
    EXPECT_EQ(update.record.frameBytes, update.frame.size());
    EXPECT_EQ(update.record.rawBytes, w.size() * sizeof(float));
    EXPECT_GT(update.record.updateNorm, 0.0);
    EXPECT_EQ(update.record.codec, "none");
    // The payload decodes to the update the record describes.
    std::vector<float> decoded(w.size());
    MakeCodec(task->uplinkCodec)->Decode(task->model->Layout(), frame.payload, decoded);
    double norm = 0.0;
    for (float x : decoded)
    {
        norm += double(x) * x;
    }
    EXPECT_NEAR(std::sqrt(norm), update.record.updateNorm, 1e-4 * update.record.updateNorm);
}

TEST(ClientSession, HoldsAModelCopyOnlyWhileTraining)
{
    auto task = MakeTinyTask(1);
    ClientSession session = Session(task, 0);
    const size_t size = task->model->Layout().TotalSize();
    session.BeginConnection();
    EXPECT_EQ(session.HeldModelFloats(), 0u);
    std::vector<float> w(size, 0.0f);
    session.AcceptModel(ModelFrame(*task, 0, 1, w));
    EXPECT_EQ(session.HeldModelFloats(), size);
    session.TrainAndEncode(1);
    EXPECT_EQ(session.HeldModelFloats(), 0u);

    // Relative downlink frames need the copy they are relative to, from the connection on.
    task->downlinkClientView = true;
    ClientSession relative = Session(task, 0);
    relative.BeginConnection();
    EXPECT_EQ(relative.HeldModelFloats(), size);
    relative.AcceptModel(ModelFrame(*task, 0, 1, w));
    relative.TrainAndEncode(1);
    EXPECT_EQ(relative.HeldModelFloats(), size);
}

TEST(ClientSession, ACorruptModelIsRefused)
{
    auto task = MakeTinyTask(1);
    ClientSession session = Session(task, 0);
    std::vector<float> w(task->model->Layout().TotalSize(), 0.0f);
    Frame model = ModelFrame(*task, 0, 1, w);
    model.payload.resize(3);
    EXPECT_THROW(session.AcceptModel(model), DecodeError);
}

TEST(ClientSession, ClientViewDownlinkAddsTheDeltaAndRestartsFromZerosOnReconnect)
{
    auto task = MakeTinyTask(1);
    task->downlinkClientView = true;
    ClientSession session = Session(task, 0);
    session.BeginConnection();
    std::vector<float> delta(task->model->Layout().TotalSize(), 0.25f);
    session.AcceptModel(ModelFrame(*task, 0, 1, delta));
    session.AcceptModel(ModelFrame(*task, 0, 2, delta));
    const EncodedUpdate twice = session.TrainAndEncode(2);
    session.BeginConnection();
    session.AcceptModel(ModelFrame(*task, 0, 3, delta));
    const EncodedUpdate once = session.TrainAndEncode(3);
    // From 0.5 everywhere and from 0.25 everywhere the local training differs.
    EXPECT_NE(twice.record.updateNorm, once.record.updateNorm);
}

TEST(ClientSession, MeasuresOnlyItsUpdatesInSendingOrder)
{
    auto task = MakeTinyTask(1);
    ClientSession session = Session(task, 0);
    session.BeginConnection();
    UpdateSentRecord sent;
    sent.round = 4;
    session.UpdateSent(sent);
    // The join is acknowledged first: nothing measured.
    EXPECT_EQ(session.Delivered({28, 0.01, 0.02}), std::nullopt);
    auto measured = session.Delivered({100'000, 0.5, 0.02});
    ASSERT_TRUE(measured.has_value());
    EXPECT_EQ(measured->round, 4u);
    EXPECT_DOUBLE_EQ(measured->Bps(), 1.6e6);
    EXPECT_EQ(session.Delivered({1, 1.0, 0.02}), std::nullopt); // nothing outstanding
    UpdateSentRecord skip;
    skip.round = 5;
    skip.skipped = true;
    session.UpdateSent(skip);
    EXPECT_EQ(session.Delivered({28, 0.01, 0.02}), std::nullopt);
}

TEST(ClientSession, AdaptiveUplinkRecordsItsDecision)
{
    json uplink = {{"type", "adaptive"},
                   {"ladder", json::array({{{"type", "none"}}, {{"type", "fp16"}}})},
                   {"policy", "fixed"},
                   {"rung", 1}};
    auto task = MakeTinyTask(1, uplink);
    ClientSession session = Session(task, 0);
    EXPECT_TRUE(session.IsAdaptive());
    session.BeginConnection();
    std::vector<float> w(task->model->Layout().TotalSize(), 0.0f);
    session.AcceptModel(ModelFrame(*task, 0, 1, w));
    session.PrepareRound(1, 1000, 0.01, session.ComputeSeconds());
    const EncodedUpdate update = session.TrainAndEncode(1);
    EXPECT_EQ(update.record.rung, 1);
    EXPECT_FALSE(update.record.skipped);
    const Frame frame = DecodeFrame(update.frame);
    EXPECT_EQ(frame.payload.back(), 1u); // the rung index trails the rung's payload
    EXPECT_FALSE(Session(MakeTinyTask(1), 0).IsAdaptive());
}

TEST(ClientSession, AdaptiveRungsAreJudgedOnTheRealUpdateAndSendExactlyThat)
{
    // Ten rounds of real training per data-dependent rung (sizes follow the update; dgc and
    // error feedback carry state). The ladder [none, X] with a budget nothing fits trials both
    // rungs and sends X: its predicted frame must be the one sent, byte for byte what X alone
    // sends from the same updates (so trials of none never touch X's state), and with the
    // variance rule its error is on what X compressed.
    const std::vector<json> rungs = {
        {{"type", "threshold"}, {"threshold", 0.01}},
        {{"type", "dgc"}, {"mode", "round"}, {"ratio", 0.05}, {"warmup_rounds", 3}},
        {{"type", "qsgd"}, {"levels", 4}},
        {{"type", "error_feedback"}, {"base", {{"type", "top_k"}, {"ratio", 0.05}}}},
    };
    for (const json& rung : rungs)
    {
        SCOPED_TRACE(rung.dump());
        const json uplink = {{"type", "adaptive"},
                             {"ladder", json::array({{{"type", "none"}}, rung})},
                             {"policy", "deadline"},
                             {"initial_bps", 1}};
        auto adaptiveTask = MakeTinyTask(1, uplink);
        auto plainTask = MakeTinyTask(1, rung);
        ClientSession adaptive = Session(adaptiveTask, 0);
        ClientSession plain = Session(plainTask, 0);
        adaptive.BeginConnection();
        plain.BeginConnection();
        const TensorLayout& layout = plainTask->model->Layout();
        auto decoder = MakeCodec(rung, "u");
        std::vector<float> w(layout.TotalSize(), 0.0f);
        std::set<uint64_t> sizes;
        for (uint32_t round = 1; round <= 10; ++round)
        {
            adaptive.AcceptModel(ModelFrame(*adaptiveTask, 0, round, w));
            plain.AcceptModel(ModelFrame(*plainTask, 0, round, w));
            adaptive.PrepareRound(round, 1000, 0.01, adaptive.ComputeSeconds());
            const EncodedUpdate a = adaptive.TrainAndEncode(round);
            const EncodedUpdate p = plain.TrainAndEncode(round);
            ASSERT_EQ(a.record.rung, 1) << "round " << round;
            EXPECT_EQ(a.record.predictedPayloadBytes, int64_t(a.frame.size())) << "round " << round;
            EXPECT_EQ(p.record.predictedPayloadBytes, -1) << "no prediction without a ladder";
            const Frame af = DecodeFrame(a.frame);
            const Frame pf = DecodeFrame(p.frame);
            ASSERT_EQ(af.payload.size(), pf.payload.size() + 1) << "round " << round;
            EXPECT_TRUE(std::equal(pf.payload.begin(), pf.payload.end(), af.payload.begin()))
                << "round " << round;
            sizes.insert(pf.payload.size());
            // The next model: w plus the decoded update, so the updates change as training goes.
            std::vector<float> delta(w.size());
            decoder->BeginRound(round);
            decoder->Decode(layout, pf.payload, delta);
            for (size_t i = 0; i < w.size(); ++i)
            {
                w[i] += delta[i];
            }
        }
        if (rung["type"] != "error_feedback")
        {
            EXPECT_GT(sizes.size(), 1u) << "the sizes follow the data (or the warm-up)";
        }
    }
}

TEST(ClientSession, VarianceRuleReadsTheGradientSpreadAtTheStartModel)
{
    const json uplink = {{"type", "adaptive"},
                         {"ladder", json::array({{{"type", "none"}}, {{"type", "sign"}}})},
                         {"policy", "variance"}};
    auto task = MakeTinyTask(1, uplink);
    ClientSession session = Session(task, 0);
    session.BeginConnection();
    std::vector<float> w(task->model->Layout().TotalSize(), 0.0f);
    session.AcceptModel(ModelFrame(*task, 0, 1, w));
    // 4 extra minibatches of 8 at training's speed.
    EXPECT_DOUBLE_EQ(session.ComputeSeconds(), double(task->partition[0].size() + 4 * 8) / 100.0);
    session.PrepareRound(1, 1000, 0.01, session.ComputeSeconds());
    const EncodedUpdate update = session.TrainAndEncode(1);
    Rng rng(task->seed, kClientSpreadStreamBase + 0);
    const double expected = GradientSpread(*task->model,
                                           w,
                                           task->data->train,
                                           task->partition[0],
                                           task->training.batchSize,
                                           kGradientSpreadBatches,
                                           rng);
    EXPECT_GT(expected, 0.0);
    EXPECT_EQ(update.record.gradVariance, expected);
}

TEST(ClientSession, CodecStateBeforeTheModelIsTakenAndAfterItIsAnswered)
{
    auto task = MakeTinyTask(1, {{"type", "power_sgd"}, {"rank", 1}});
    ClientSession session = Session(task, 0);
    EXPECT_FALSE(session.IsAdaptive());
    FrameHeader header;
    header.type = FrameType::CodecState;
    header.codec = MakeCodec(task->uplinkCodec)->Id();
    header.round = 1;
    Frame bad = DecodeFrame(EncodeFrame(header, std::vector<uint8_t>{1, 2, 3}));
    EXPECT_EQ(session.Classify(bad), ServerFrameKind::CodecState);
    EXPECT_THROW(session.AcceptCodecState(bad), DecodeError);
}

} // namespace
} // namespace fedran::test
