// The adaptive downlink without ns-3: the equal-finish rule on scripted throughputs, the
// download report's round trip, and the server and real client sessions over several rounds
// (a slow-downlink client gets a coarser model frame, decodes the model within the rung's
// error, and with client_view the server's mirror equals the client's copy bit for bit).

#include "compression/codec-spec.h"
#include "fl-test-util.h"
#include "models/fl/downlink-rungs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace fedran::test
{
namespace
{

using control::ChooseDownlinkRungs;
using control::DownlinkRungs;
using nlohmann::json;

/// Frame bytes of none / 8-bit / 2-bit of a 7,850-float model (header included).
const std::vector<uint64_t> kRungBytes = {31'464, 8'000, 2'100};

TEST(DownlinkRungs, LowRateClientsGetCoarserRungsAndTheUnmeasuredTheMostFaithful)
{
    // 20 kbit/s: 2-bit ends at E = 0.84 s. 200 kbit/s: none 1.26 s > 1.05 E, 8-bit 0.32 s.
    // 1 Mbit/s: none 0.25 s fits. Unmeasured: rung 0.
    const std::vector<std::optional<double>> bps = {20e3, 200e3, 1e6, std::nullopt};
    const std::vector<std::vector<uint64_t>> bytes(4, kRungBytes);
    EXPECT_EQ(ChooseDownlinkRungs(bps, bytes), (std::vector<size_t>{2, 1, 0, 0}));

    // Nobody measured (the first round): the most faithful rung for all.
    const std::vector<std::optional<double>> none(4);
    EXPECT_EQ(ChooseDownlinkRungs(none, bytes), (std::vector<size_t>(4, 0)));

    // Equal links: E is their coarsest download, which only the coarsest rung meets. The rule
    // shortens the round's downloads; it does not spend the slack of other phases.
    const std::vector<std::optional<double>> equal(2, 1e6);
    EXPECT_EQ(ChooseDownlinkRungs(equal, std::vector<std::vector<uint64_t>>(2, kRungBytes)),
              (std::vector<size_t>{2, 2}));
}

TEST(DownlinkRungs, TheSlackIsFivePercentOfTheLatestCoarseEnd)
{
    // E = 8 × 1000 / 8000 = 1 s. A rung ending at 1.04 s is kept, at 1.06 s it is not.
    const std::vector<std::vector<uint64_t>> bytes = {{4000, 1000}, {1040, 10}, {1060, 10}};
    const std::vector<std::optional<double>> bps = {8000.0, 8000.0, 8000.0};
    EXPECT_EQ(ChooseDownlinkRungs(bps, bytes), (std::vector<size_t>{1, 0, 1}));
    EXPECT_DOUBLE_EQ(control::kDownlinkFinishSlack, 1.05);
}

TEST(DownlinkRungs, ReportsFeedEachClientsOwnRobustPredictor)
{
    DownlinkRungs rungs(control::DownlinkConfig{});
    const std::vector<uint32_t> clients = {3, 8};
    const std::vector<std::vector<uint64_t>> bytes(2, kRungBytes);
    EXPECT_EQ(rungs.Choose(clients, bytes), (std::vector<size_t>{0, 0})); // round 1

    rungs.FrameSent(3, 1, 31'464);
    rungs.FrameSent(8, 1, 31'464);
    rungs.DownloadReported(3, 1, 8.0 * 31'464 / 20e3); // 20 kbit/s
    rungs.DownloadReported(8, 2, 0.1);                 // not the round it was sent: ignored
    EXPECT_NEAR(*rungs.PredictBps(3), 20e3, 1e-6);
    EXPECT_FALSE(rungs.PredictBps(8).has_value());
    EXPECT_EQ(rungs.Choose(clients, bytes), (std::vector<size_t>{2, 0}));

    rungs.DownloadReported(8, 1, 8.0 * 31'464 / 1e6); // 1 Mbit/s
    EXPECT_EQ(rungs.Choose(clients, bytes), (std::vector<size_t>{2, 0}));
    // A zero duration (the frame in one segment) measures nothing.
    rungs.FrameSent(3, 2, 2'100);
    rungs.DownloadReported(3, 2, 0.0);
    EXPECT_NEAR(*rungs.PredictBps(3), 20e3, 1e-6);
}

TEST(DownlinkRungs, TheReportRoundTripsAfterTheLossReport)
{
    std::vector<uint8_t> payload = {1, 2, 3};
    control::AppendDownloadReport(payload, 0.75);
    ASSERT_EQ(payload.size(), 3u + control::kDownloadReportBytes);
    double seconds = 0.0;
    const auto rest = control::TakeDownloadReport(payload, seconds);
    EXPECT_EQ(seconds, 0.75);
    EXPECT_EQ(rest.size(), 3u);
    EXPECT_THROW(control::TakeDownloadReport(rest, seconds), DecodeError);
}

TEST(DownlinkRungs, OnlyTheTimePolicyAndTheWindowAreKeys)
{
    const json ok = {{"type", "adaptive"}, {"policy", "time"}, {"window", 3}};
    EXPECT_EQ(control::ParseDownlinkConfig(ok, "compression.downlink").window, 3u);
    EXPECT_EQ(control::ParseDownlinkConfig({{"type", "adaptive"}}, "d").window, 5u);
    EXPECT_THROW(control::ParseDownlinkConfig({{"policy", "deadline"}}, "d"), CodecConfigError);
    EXPECT_THROW(control::ParseDownlinkConfig({{"window", 0}}, "d"), CodecConfigError);
    EXPECT_THROW(control::ParseDownlinkConfig({{"estimator", "ewma"}}, "d"), CodecConfigError);
}

/// A server and two real client sessions with an adaptive downlink; client 0 reports a
/// 20 kbit/s download, client 1 a 2 Mbit/s one.
struct DownlinkWorld
{
    std::shared_ptr<FederatedTask> task;
    FakeHost host;
    std::unique_ptr<RoundCoordinator> server;
    std::vector<std::unique_ptr<ClientSession>> clients;
    std::vector<double> bps = {20e3, 2e6};
    uint32_t mirrorsChecked = 0;

    DownlinkWorld(const json& downlink, bool clientView)
        : task(MakeTinyTask(2, {{"type", "none"}}, downlink))
    {
        task->downlinkClientView = clientView;
        CoordinatorConfig config;
        config.rounds = 4;
        config.clientsPerRound = 2;
        config.expectedClients = 2;
        config.deadlineTicks = 60'000;
        config.joinTimeoutTicks = 30'000;
        server = std::make_unique<RoundCoordinator>(config, task, host);
        for (uint32_t c = 0; c < 2; ++c)
        {
            clients.push_back(std::make_unique<ClientSession>(SessionOf(c), task));
        }
        server->Start();
        for (uint32_t c = 0; c < 2; ++c)
        {
            clients[c]->BeginConnection();
            server->OnJoin(c);
        }
    }

    /// Client `c` takes its model, reports its scripted download time, trains and answers.
    /// Returns the model frame's bytes and the client's decoded copy. With client_view, the
    /// server's mirror of the client (moved when the frame was sent) must equal that copy.
    std::pair<uint64_t, std::vector<float>> Answer(uint32_t c)
    {
        const Frame model = host.Take(c);
        clients[c]->AcceptModel(model);
        const std::vector<float> decoded(clients[c]->HeldModel().begin(),
                                         clients[c]->HeldModel().end());
        if (task->downlinkClientView)
        {
            const std::span<const float> mirror = server->ClientView(c);
            EXPECT_EQ(std::vector<float>(mirror.begin(), mirror.end()), decoded)
                << "client " << c << " round " << model.header.round;
            ++mirrorsChecked;
        }
        const uint64_t bytes = kFrameHeaderSize + model.payload.size();
        clients[c]->PrepareRound(model.header.round, bytes, 8.0 * double(bytes) / bps[c], 0.1);
        EncodedUpdate update = clients[c]->TrainAndEncode(model.header.round);
        clients[c]->UpdateSent(update.record);
        EXPECT_EQ(server->OnFrame(DecodeFrame(update.frame)), std::nullopt);
        return {bytes, decoded};
    }
};

const json kLadder = {{"type", "adaptive"},
                      {"ladder",
                       {{{"type", "none"}},
                        {{"type", "quantization"}, {"bits", 8}},
                        {{"type", "quantization"}, {"bits", 2}}}}};

TEST(DownlinkRungs, ANarrowDownlinkGetsACoarserModelWithinTheRungsError)
{
    DownlinkWorld w(kLadder, false);
    std::vector<std::string> labels;
    for (uint32_t round = 1; round <= 3; ++round)
    {
        const std::vector<float> global = w.server->GlobalParams();
        const auto [slowBytes, slowModel] = w.Answer(0);
        const auto [fastBytes, fastModel] = w.Answer(1);
        // This round's two frames (the next round's went out when this one closed).
        ASSERT_GE(w.host.modelCodecs.size(), 2 * round);
        const std::string slow = w.host.modelCodecs[2 * round - 2].second;
        const std::string fast = w.host.modelCodecs[2 * round - 1].second;
        if (round == 1)
        {
            // Nothing measured yet: the whole model for both.
            EXPECT_EQ(slow, "none[0]");
            EXPECT_EQ(fast, "none[0]");
            EXPECT_EQ(slowModel, global);
            continue;
        }
        EXPECT_EQ(slow, "quantization[2]");
        EXPECT_EQ(fast, "none[0]");
        EXPECT_LT(slowBytes * 10, fastBytes);
        EXPECT_EQ(fastModel, global);
        // 2-bit stochastic rounding (quantization-codec.cc): each value within one step,
        // 2 scale / 3, of its bucket's scale = max |x| <= the model's.
        double scale = 0.0;
        for (float x : global)
        {
            scale = std::max(scale, std::abs(double(x)));
        }
        const double step = 2.0 * scale / 3.0;
        double worst = 0.0;
        for (size_t i = 0; i < global.size(); ++i)
        {
            worst = std::max(worst, std::abs(double(slowModel[i]) - double(global[i])));
        }
        EXPECT_LE(worst, step * (1.0 + 1e-5));
        EXPECT_GT(worst, 0.0);
    }
    // The 4 download reports cost 4 bytes each: accepted updates, nothing failed.
    EXPECT_EQ(std::count_if(w.host.arrivals.begin(),
                            w.host.arrivals.end(),
                            [](const auto& r) { return r.fate == UpdateFate::Accepted; }),
              6);
}

TEST(DownlinkRungs, ClientViewMirrorsStayBitwiseEqualUnderErrorFeedbackRungs)
{
    const json ladder = {
        {"type", "adaptive"},
        {"ladder",
         {{{"type", "none"}},
          {{"type", "error_feedback"}, {"base", {{"type", "quantization"}, {"bits", 2}}}}}}};
    DownlinkWorld w(ladder, true);
    for (uint32_t round = 1; round <= 4; ++round)
    {
        w.Answer(0); // each compares the server's mirror with the client's copy
        w.Answer(1);
    }
    EXPECT_EQ(w.mirrorsChecked, 8u);
    // The slow client got the error-feedback rung from round 2 on, the fast one never.
    EXPECT_EQ(w.host.modelCodecs[2].second, "error_feedback(quantization)[1]");
    EXPECT_EQ(w.host.modelCodecs[3].second, "none[0]");
}

} // namespace
} // namespace fedran::test
