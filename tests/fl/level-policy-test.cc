// The level policies' server side and protocol (level-policy.h, loss-report.h) against hand
// computations: the ladder built from the policy, the loss reports' weighted mean, the level
// that lags the rule by one round, and the loss report's bytes. No ns-3.

#include "compression/codec.h"
#include "models/fl/level-policy.h"
#include "models/fl/loss-report.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace fedran::control
{
namespace
{

TEST(LevelPolicyTest, DadaquantBuildsAQsgdLadderWithRoomForTheClientSplit)
{
    const nlohmann::json spec = WithLevelLadder({{"type", "adaptive"}, {"policy", "dadaquant"}});
    ASSERT_EQ(spec.at("ladder").size(), 32u); // 4 x q_max = 8
    EXPECT_EQ(spec.at("ladder")[0],
              nlohmann::json({{"type", "qsgd"}, {"levels", 32}, {"bucket", 512}}));
    EXPECT_EQ(spec.at("ladder")[31].at("levels"), 1);
    const LevelPolicyConfig config = ParseLevelPolicy(spec, "uplink", 50);
    EXPECT_EQ(config.dadaquant.phi, 5u); // rounds / 10
    EXPECT_DOUBLE_EQ(config.dadaquant.psi, 0.9);
    EXPECT_EQ(config.dadaquant.qMin, 1u);
    EXPECT_EQ(config.dadaquant.qMax, 8u);
    EXPECT_EQ(RungForLevel(config.rungLevels, 4), 28u);
    EXPECT_EQ(RungForLevel(config.rungLevels, 100), 0u);
    // A given ladder is kept; a policy's keys are checked.
    const nlohmann::json own = {{"type", "adaptive"},
                                {"policy", "dadaquant"},
                                {"ladder", {{{"type", "qsgd"}, {"levels", 8}}}}};
    EXPECT_EQ(WithLevelLadder(own), own);
    EXPECT_THROW(
        ParseLevelPolicy(
            {{"type", "adaptive"}, {"policy", "dadaquant"}, {"ladder", {{{"type", "sign"}}}}},
            "uplink",
            10),
        CodecConfigError);
    EXPECT_THROW(
        ParseLevelPolicy(
            WithLevelLadder(
                {{"type", "adaptive"}, {"policy", "dadaquant"}, {"q_min", 4}, {"q_max", 2}}),
            "uplink",
            10),
        CodecConfigError);
    EXPECT_FALSE(IsLevelPolicy({{"type", "adaptive"}, {"policy", "time"}}));
}

TEST(LevelPolicyTest, DadaquantLevelsLagTheRuleByOneRound)
{
    // psi = 0.5, phi = 1, q in [1, 8]. Reports (samples, loss) per round; G_t is their
    // sample-weighted mean: round 1 (100, 1.0), (300, 2.0) -> 1.75; round 2 (100, 2.0),
    // (100, 2.0) -> 2.0; round 3 nothing; round 4 (200, 3.0) -> 3.0.
    // Rule: t=1 E=1.75 q=1 (E_0 missing); t=2 E=1.875 > 1.75 and one round since round 1:
    // double, q=2; t=3 (round 4's reports) E=2.4375 > 1.875, held 1 round: double, q=4.
    // Sent levels: round 1 q_min, round 2 the rule's t=1, round 3 its t=2, round 4 the same
    // (round 3 fed nothing), round 5 its t=3.
    nlohmann::json spec =
        WithLevelLadder({{"type", "adaptive"}, {"policy", "dadaquant"}, {"psi", 0.5}, {"phi", 1}});
    ServerLevelPolicy policy(ParseLevelPolicy(spec, "uplink", 10));
    const std::vector<uint32_t> equal = {100, 100};
    std::vector<uint32_t> sent;
    sent.push_back(policy.Assign(equal).at(0));
    policy.LossReported(100, 1.0);
    policy.LossReported(300, 2.0);
    policy.RoundClosed();
    sent.push_back(policy.Assign(equal).at(0));
    policy.LossReported(100, 2.0);
    policy.LossReported(100, 2.0);
    policy.RoundClosed();
    sent.push_back(policy.Assign(equal).at(0));
    policy.RoundClosed();
    sent.push_back(policy.Assign(equal).at(0));
    policy.LossReported(200, 3.0);
    policy.RoundClosed();
    sent.push_back(policy.Assign(equal).at(0));
    EXPECT_EQ(sent, (std::vector<uint32_t>{1, 1, 2, 2, 4}));
    // The client split at q = 4 by the sampled clients' example counts (DadaquantClientLevels:
    // 100, 200, 700 of 1000 examples -> 1, 2, 5).
    EXPECT_EQ(policy.Assign(std::vector<uint32_t>{100, 200, 700}),
              (std::vector<uint32_t>{1, 2, 5}));
}

TEST(LevelPolicyTest, AdaquantflRaisesOneLevelForAllAsTheLossFalls)
{
    // s0 = 2, ladder 32..1. Round 1's reports give F_0 = 2.0 (weighted: (1 x 100 + 3 x 100)
    // / 200); round 2 sends ceil(sqrt(2 / 2) x 2) = 2, round 3 ceil(sqrt(2 / 0.5) x 2) = 4,
    // round 4 ceil(sqrt(2 / 0.4) x 2) = ceil(4.47) = 5: one round behind the losses.
    const nlohmann::json spec = WithLevelLadder({{"type", "adaptive"}, {"policy", "adaquantfl"}});
    ASSERT_EQ(spec.at("ladder").size(), 32u);
    ServerLevelPolicy policy(ParseLevelPolicy(spec, "uplink", 10));
    const std::vector<uint32_t> unequal = {100, 700};
    std::vector<uint32_t> sent;
    sent.push_back(policy.Assign(unequal).at(1));
    policy.LossReported(100, 1.0);
    policy.LossReported(100, 3.0);
    policy.RoundClosed();
    sent.push_back(policy.Assign(unequal).at(1));
    policy.LossReported(100, 0.5);
    policy.RoundClosed();
    sent.push_back(policy.Assign(unequal).at(1));
    policy.LossReported(100, 0.4);
    policy.RoundClosed();
    EXPECT_EQ(policy.Assign(unequal), (std::vector<uint32_t>{5, 5})); // one level for all
    EXPECT_EQ(sent, (std::vector<uint32_t>{2, 2, 4}));
}

TEST(LevelPolicyTest, AdagqBuildsOneRungPerBitWidth)
{
    const nlohmann::json spec = WithLevelLadder({{"type", "adaptive"}, {"policy", "adagq"}});
    ASSERT_EQ(spec.at("ladder").size(), 8u); // b = 8 .. 1, s = 2^b - 1
    EXPECT_EQ(spec.at("ladder")[0],
              nlohmann::json({{"type", "qsgd"}, {"levels", 255}, {"bucket", 512}}));
    EXPECT_EQ(spec.at("ladder")[7].at("levels"), 1);
    const LevelPolicyConfig config = ParseLevelPolicy(spec, "uplink", 10);
    EXPECT_EQ(config.rule, LevelRule::Adagq);
    EXPECT_EQ(config.startBits, 8u);
    EXPECT_DOUBLE_EQ(config.lambdaG, 1.0);
    EXPECT_EQ(RungForLevel(config.rungLevels, 63), 2u);
    EXPECT_TRUE(IsLevelPolicy({{"type", "adaptive"}, {"policy", "adagq"}}));
    EXPECT_EQ(WithLevelLadder({{"type", "adaptive"}, {"policy", "adagq"}, {"max_bits", 4}})
                  .at("ladder")
                  .size(),
              4u);
    EXPECT_THROW(
        ParseLevelPolicy(
            WithLevelLadder(
                {{"type", "adaptive"}, {"policy", "adagq"}, {"max_bits", 4}, {"start_bits", 6}}),
            "uplink",
            10),
        CodecConfigError);
}

TEST(LevelPolicyTest, AdagqWidthsFollowTheMeasuredRatesNormsAndFinishTimes)
{
    // Two clients of 100 examples. Client 0 needs 1 s before its upload (download and
    // compute) and 0.0008 s per byte, client 1 1 s and 0.0016 s per byte; an update takes
    // 125 bytes per bit of width, so 0.1 and 0.2 s per bit. Rounds start every 10 s.
    const nlohmann::json spec = WithLevelLadder({{"type", "adaptive"}, {"policy", "adagq"}});
    ServerLevelPolicy policy(ParseLevelPolicy(spec, "uplink", 10));
    const std::vector<uint32_t> samples = {100, 100};
    const std::vector<uint32_t> clients = {0, 1};
    const std::vector<double> perByte = {0.0008, 0.0016};
    std::vector<std::vector<uint32_t>> sent;
    // One round: its levels, the updates' arrivals (`bytes`: each update's frame bytes), the
    // loss reports (all `loss`) and the aggregated update's norm.
    auto round = [&](int k, std::vector<uint64_t> bytes, double loss, double norm) {
        const double startS = 10.0 * (k - 1);
        sent.push_back(policy.Assign(samples, clients, startS));
        for (uint32_t c : clients)
        {
            policy.LossReported(100, loss);
            policy.UpdateArrived(c, bytes[c], startS + 1.0 + perByte[c] * double(bytes[c]));
        }
        policy.RoundClosed(norm);
    };
    // Rounds 1 and 2 at the start width, 8 bits (round 2: no rate known yet, nor a fit of the
    // responses; one size each so far, taken as all upload: both reach the 8-bit cap).
    // Round 1's 1500-byte and round 2's 1000-byte updates (a third smaller: enough for a fit)
    // fit 1 s + 0.0008 (0.0016) s/byte; later sizes keep or repeat that fit.
    round(1, {1500, 1500}, 2.0, 1.0);
    EXPECT_EQ(policy.Level(), 255u); // no rate: 8 bits; no earlier norm
    round(2, {1000, 1000}, 1.8, 0.5);
    // R_1 = (2.0 - 1.8) / 10 = 0.02 at 8 bits, no earlier rate: one bit less (the probe's
    // direction); the norm halved: -1. Mean width 8 - 1 - 1 = 6.
    EXPECT_EQ(policy.Level(), 63u);
    // Round 3 at mean 6: equal finish 1 + 0.1 b_0 = 1 + 0.2 b_1, b_1 = b_0 / 2, and
    // 2^b_0 + 2^(b_0 / 2) = 2 x 64: 2^(b_0 / 2) = (-1 + sqrt(513)) / 2, b_0 = 6.87 -> 7,
    // b_1 = 3.44 -> 3.
    round(3, {875, 375}, 1.75, 0.5);
    // R_2 = 0.05 / 10 = 0.005 at 8 bits, as R_1: same width, one bit less; norm unchanged: 5.
    EXPECT_EQ(policy.Level(), 31u);
    // Round 4 at 5: 2^b_0 + 2^(b_0 / 2) = 64: b_0 = 5.82 -> 6, b_1 = 2.91 -> 3.
    round(4, {750, 375}, 1.6, 0.25);
    // R_3 = 0.15 / 10 = 0.015 at 6 bits against R_2 = 0.005 at 8: fewer bits went faster,
    // one bit less; the norm halved, -1: 3.
    EXPECT_EQ(policy.Level(), 7u);
    // Round 5 at 3: 2^b_0 + 2^(b_0 / 2) = 16: b_0 = 3.64 -> 4, b_1 = 1.82 -> 2.
    round(5, {500, 250}, 1.5, 0.25);
    // R_4 = 0.1 / 10 = 0.01 at 5 bits against R_3 = 0.015 at 6: more bits went faster, one
    // bit more: 4.
    EXPECT_EQ(policy.Level(), 15u);
    // Round 6 at 4: 2^b_0 + 2^(b_0 / 2) = 32: b_0 = 4.75 -> 5, b_1 = 2.37 -> 2.
    sent.push_back(policy.Assign(samples, clients, 50.0));
    const std::vector<std::vector<uint32_t>> levels =
        {{255, 255}, {255, 255}, {127, 7}, {63, 7}, {15, 3}, {31, 3}};
    EXPECT_EQ(sent, levels);
}

TEST(LossReportTest, RidesAtTheEndOfThePayload)
{
    std::vector<uint8_t> payload = {7, 8, 9};
    AppendLossReport(payload, 0.25);
    ASSERT_EQ(payload.size(), 3u + kLossReportPayloadBytes);
    double loss = 0.0;
    const std::span<const uint8_t> codec = TakeLossReport(payload, loss);
    EXPECT_EQ(loss, 0.25);
    EXPECT_EQ(std::vector<uint8_t>(codec.begin(), codec.end()), (std::vector<uint8_t>{7, 8, 9}));
    EXPECT_THROW(TakeLossReport(std::span(payload).first(3), loss), DecodeError);
}

} // namespace
} // namespace fedran::control
