// Byzantine attacks (models/fl/byzantine-attack.h, ClientSession): what each sends, that an
// attacker's frame is as large as an honest one for every codec, and the collusion oracle.

#include "compression/codec-spec.h"
#include "fl-test-util.h"
#include "models/fl/byzantine-attack.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace fedran::test
{
namespace
{

using nlohmann::json;

AttackConfig
Attack(const std::string& type)
{
    AttackConfig attack;
    attack.type = type;
    return attack;
}

TEST(ByzantineAttack, EachTypeSendsWhatItSays)
{
    Rng rng(1, 2);
    const std::vector<float> honest = {1.0f, -2.0f, 0.5f, 0.0f};
    auto corrupt = [&](AttackConfig attack, const HonestStatistics* stats = nullptr) {
        std::vector<float> u = honest;
        CorruptUpdate(attack, u, stats, rng);
        return u;
    };
    AttackConfig flip = Attack("sign_flip");
    flip.scale = 10.0;
    EXPECT_EQ(corrupt(flip), (std::vector<float>{-10.0f, 20.0f, -5.0f, -0.0f}));
    AttackConfig boost = Attack("scaled");
    boost.scale = 3.0;
    EXPECT_EQ(corrupt(boost), (std::vector<float>{3.0f, -6.0f, 1.5f, 0.0f}));
    EXPECT_EQ(corrupt(Attack("zero")), (std::vector<float>(4, 0.0f)));
    EXPECT_EQ(corrupt(Attack("label_flip")), honest); // it poisons the data, not the update

    // random_sign keeps magnitudes; about half the signs flip.
    std::vector<float> many(4000, 1.5f);
    CorruptUpdate(Attack("random_sign"), many, nullptr, rng);
    size_t negative = 0;
    for (float v : many)
    {
        EXPECT_EQ(std::abs(v), 1.5f);
        negative += v < 0;
    }
    EXPECT_NEAR(double(negative) / many.size(), 0.5, 0.05); // 6.3 sigma

    AttackConfig noise = Attack("gaussian");
    noise.sigma = 0.2;
    std::vector<float> drawn(20000, 7.0f);
    CorruptUpdate(noise, drawn, nullptr, rng);
    const double mean = std::accumulate(drawn.begin(), drawn.end(), 0.0) / drawn.size();
    double var = 0;
    for (float v : drawn)
    {
        var += (v - mean) * (v - mean);
    }
    var /= drawn.size();
    EXPECT_NEAR(mean, 0.0, 0.01);            // 7 standard errors
    EXPECT_NEAR(std::sqrt(var), 0.2, 0.006); // ~6 standard errors

    HonestStatistics stats;
    stats.mean = {1.0f, 2.0f, -1.0f, 0.0f};
    stats.stddev = {0.5f, 0.0f, 1.0f, 2.0f};
    stats.honest = 7;
    stats.selected = 10;
    stats.attackers = 3;
    AttackConfig alie = Attack("alie");
    alie.z = 1.5;
    EXPECT_EQ(corrupt(alie, &stats), (std::vector<float>{0.25f, 2.0f, -2.5f, -3.0f}));
    alie.z.reset(); // Baruch et al.'s z for n = 10, f = 3
    const auto paper = corrupt(alie, &stats);
    EXPECT_NEAR(paper[3], -2.0 * AlieZ(10, 3), 1e-6);
    AttackConfig ipm = Attack("ipm");
    ipm.epsilon = 0.5;
    EXPECT_EQ(corrupt(ipm, &stats), (std::vector<float>{-0.5f, -1.0f, 0.5f, -0.0f}));
    // Nothing known of the round: nothing to shift, zeros.
    EXPECT_EQ(corrupt(ipm, nullptr), (std::vector<float>(4, 0.0f)));
}

TEST(ByzantineAttack, AlieZFollowsThePaper)
{
    // s = floor(n/2 + 1) - f, z = Phi^-1((n - s) / n).
    EXPECT_NEAR(AlieZ(10, 3), 0.5244005, 1e-6);  // s = 3, Phi^-1(0.7)
    EXPECT_NEAR(AlieZ(50, 12), 0.5828415, 1e-6); // s = 14, Phi^-1(0.72)
    EXPECT_NEAR(AlieZ(10, 4), 0.8416212, 1e-6);  // s = 2, Phi^-1(0.8)
    EXPECT_EQ(AlieZ(10, 1), 0.0);                // s = 5: the mean itself
}

/// Every one-exchange codec. For most the model fixes the payload's size; threshold (the
/// coordinates above a threshold), qsgd (Elias-coded levels) and top_k (varint-coded index
/// gaps) have payloads whose size depends on the values, for honest sites too.
const char* const kCodecs[] = {
    R"({"type": "none"})",
    R"({"type": "fp16"})",
    R"({"type": "quantization", "bits": 4})",
    R"({"type": "qsgd"})",
    R"({"type": "sign"})",
    R"({"type": "sign", "aggregation": "majority_vote"})",
    R"({"type": "top_k", "ratio": 0.1})",
    R"({"type": "random_k", "ratio": 0.1})",
    R"({"type": "dgc", "mode": "round", "ratio": 0.1})",
    R"({"type": "threshold", "threshold": 0.01})",
    R"({"type": "error_feedback", "base": {"type": "top_k", "ratio": 0.1}})",
    R"({"type": "clipped", "base": {"type": "none"}, "clip_value": 0.05})",
};

const char* const kAttacks[] =
    {"sign_flip", "scaled", "gaussian", "random_sign", "zero", "label_flip", "alie", "ipm"};

TEST(ByzantineAttack, AttackersFramesAreAsLargeAsHonestOnesForEveryCodec)
{
    for (const char* spec : kCodecs)
    {
        const json uplink = json::parse(spec);
        for (const char* type : kAttacks)
        {
            auto task = MakeTinyTask(4, uplink);
            task->attacks.assign(4, AttackConfig{});
            task->attacks[3] = Attack(type);
            task->attacks[3].scale = 10.0;
            task->collusion = std::make_shared<CollusionOracle>();
            std::vector<float> global(task->model->Layout().TotalSize());
            Rng init(task->seed, kModelInitStream);
            task->model->InitParams(global, init);
            task->collusion->BeginRound(1, global, {0, 1, 2, 3}, task->attacks);
            auto none = MakeCodec({{"type", "none"}}, "d");
            std::vector<uint8_t> payload;
            Rng codecRng(1, 1);
            none->Encode(task->model->Layout(), global, codecRng, payload);

            std::vector<std::vector<uint8_t>> frames;
            std::vector<float> norms;
            for (uint32_t client = 0; client < 4; ++client)
            {
                ClientSessionConfig config; // 2000 examples/s, a 60 s deadline
                config.clientId = client;
                ClientSession session(config, task);
                session.BeginConnection();
                FrameHeader header;
                header.type = FrameType::GlobalModel;
                header.codec = none->Id();
                header.round = 1;
                header.client = client;
                session.AcceptModel(DecodeFrame(EncodeFrame(header, payload)));
                EncodedUpdate update = session.TrainAndEncode(1);
                frames.push_back(update.frame);
                norms.push_back(update.record.updateNorm);
            }
            const std::string what = std::string(spec) + " attack " + type;
            // The attacker's frame is a frame of the codec that decodes.
            const Frame attacker = DecodeFrame(frames[3]);
            auto decoder = MakeCodec(uplink, "u");
            decoder->BeginRound(1);
            std::vector<float> decoded(global.size());
            EXPECT_NO_THROW(decoder->DecodeUpdate(task->model->Layout(), attacker.payload, decoded))
                << what;
            const std::string kind = uplink["type"];
            const std::string base = uplink.contains("base") ? uplink["base"]["type"] : "";
            const bool valueCoded = kind == "threshold" || kind == "qsgd";
            const bool indexCoded = kind == "top_k" || base == "top_k";
            if (!valueCoded && !indexCoded)
            {
                EXPECT_EQ(frames[0].size(), frames[1].size()) << what;
                EXPECT_EQ(frames[3].size(), frames[0].size()) << what;
            }
            else if (indexCoded)
            {
                // The same k coordinates; only the index gaps' varint lengths differ.
                EXPECT_NEAR(double(frames[3].size()),
                            double(frames[0].size()),
                            0.05 * double(frames[0].size()))
                    << what;
            }
            // And it sent something other than its honest update (label_flip: trained on
            // other labels; zero: nothing).
            EXPECT_NE(frames[3], frames[2]) << what;
            if (std::string(type) == "zero")
            {
                EXPECT_EQ(norms[3], 0.0f) << what;
            }
        }
    }
}

TEST(ByzantineAttack, CollusionOracleIsDeterministicAndSeesOnlyHonestClients)
{
    auto task = MakeTinyTask(5);
    task->attacks.assign(5, AttackConfig{});
    task->attacks[4] = Attack("alie");
    task->attacks[2] = Attack("sign_flip");
    task->attacks[2].startRound = 3; // honest in round 1
    std::vector<float> global(task->model->Layout().TotalSize(), 0.01f);
    CollusionOracle a, b;
    a.BeginRound(1, global, {0, 2, 4}, task->attacks);
    b.BeginRound(1, global, {0, 2, 4}, task->attacks);
    const HonestStatistics& sa = a.Round(1)->Statistics(*task);
    const HonestStatistics& sb = b.Round(1)->Statistics(*task);
    EXPECT_EQ(sa.mean, sb.mean);
    EXPECT_EQ(sa.stddev, sb.stddev);
    EXPECT_EQ(sa.honest, 2u);
    EXPECT_EQ(sa.selected, 3u);
    EXPECT_EQ(sa.attackers, 1u);
    EXPECT_GT(
        std::sqrt(std::inner_product(sa.stddev.begin(), sa.stddev.end(), sa.stddev.begin(), 0.0)),
        0.0);
    // No colluder selected: nothing kept.
    a.BeginRound(2, global, {0, 1}, task->attacks);
    EXPECT_EQ(a.Round(2), nullptr);
    EXPECT_NE(a.Round(1), nullptr);
}

} // namespace
} // namespace fedran::test
