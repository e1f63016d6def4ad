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
