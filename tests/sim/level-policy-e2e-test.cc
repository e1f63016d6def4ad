// The level policies end to end over ns-3 TCP (models/fl/level-policy.h): an adaptive uplink
// with "policy" and no ladder runs, every update goes at the level the server chose (shown in
// clients.csv's codec column), the level sequence follows the rule, and the traces do not
// depend on the thread count.

#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace fedran::test
{
namespace
{

/// Round -> the levels its updates were sent at (from "qsgd(s=N)").
std::map<int, std::set<int>>
LevelsByRound(const std::filesystem::path& out)
{
    std::map<int, std::set<int>> levels;
    for (const auto& row : ReadCsv(out / "clients.csv"))
    {
        const std::string& codec = row.at("codec");
        EXPECT_EQ(codec.rfind("qsgd(s=", 0), 0u) << codec;
        EXPECT_EQ(row.at("payload_bytes"), row.at("predicted_payload_bytes"));
        levels[std::stoi(row.at("round"))].insert(std::stoi(codec.substr(7)));
    }
    return levels;
}

/// Four equal sites, all sampled: a large step size keeps the loss from falling steadily, so
/// DAdaQuant's smoothed loss rises within a few rounds and the level doubles.
void
WriteScenario(const std::filesystem::path& dir)
{
    nlohmann::json s = TinyScenario(4, 4, 12);
    s["training"]["lr"] = 1.0;
    s["compression"] = {
        {"uplink", {{"type", "adaptive"}, {"policy", "dadaquant"}, {"psi", 0.5}, {"phi", 1}}}};
    WriteFile(dir / "s.json", s.dump());
}

/// Runs `uplink` on four equal sites at the tiny scenario's step size, at 1 and 2 threads.
std::map<int, std::set<int>>
RunTwice(const std::filesystem::path& dir, const nlohmann::json& uplink)
{
    nlohmann::json s = TinyScenario(4, 4, 10);
    s["compression"] = {{"uplink", uplink}};
    WriteFile(dir / "s.json", s.dump());
    CommandResult r = RunFedran("run s.json --out one --quiet --threads 1", dir);
    EXPECT_EQ(r.exitCode, 0) << r.stderrText;
    r = RunFedran("run s.json --out two --quiet --threads 2", dir);
    EXPECT_EQ(r.exitCode, 0) << r.stderrText;
    ExpectSameTraces(dir / "one", dir / "two");
    return LevelsByRound(dir / "one");
}

TEST(LevelPolicyE2e, DadaquantDoublesTheServersLevelOnARisingLoss)
{
    TempDir dir("dadaquant");
    WriteScenario(dir.Path());
    CommandResult r = RunFedran("run s.json --out one --quiet --threads 1", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    r = RunFedran("run s.json --out two --quiet --threads 2", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    ExpectSameTraces(dir.Path() / "one", dir.Path() / "two");

    const std::map<int, std::set<int>> levels = LevelsByRound(dir.Path() / "one");
    ASSERT_EQ(levels.size(), 12u);
    // Equal weights: the client split gives every client the round's level q_t.
    for (const auto& [round, set] : levels)
    {
        EXPECT_EQ(set.size(), 1u) << "round " << round;
    }
    // Round 1 starts at q_min = 1; round 2 uses the rule's first level (q_min again: the
    // level lags the losses by one round).
    EXPECT_EQ(*levels.at(1).begin(), 1);
    EXPECT_EQ(*levels.at(2).begin(), 1);
    // Afterwards the level only doubles, up to q_max = 8, and it did double here.
    int doublings = 0;
    for (int round = 2; round <= 12; ++round)
    {
        const int before = *levels.at(round - 1).begin();
        const int now = *levels.at(round).begin();
        EXPECT_TRUE(now == before || now == 2 * before) << "round " << round;
        EXPECT_LE(now, 8);
        doublings += now == 2 * before;
    }
    EXPECT_GE(doublings, 1);
}

TEST(LevelPolicyE2e, AdaquantflRaisesTheLevelAsTheLossFalls)
{
    TempDir dir("adaquantfl");
    const std::map<int, std::set<int>> levels =
        RunTwice(dir.Path(), {{"type", "adaptive"}, {"policy", "adaquantfl"}});
    ASSERT_EQ(levels.size(), 10u);
    for (const auto& [round, set] : levels)
    {
        EXPECT_EQ(set.size(), 1u) << "round " << round; // one level for all clients
    }
    // s_0 = 2 in round 1, and in round 2 (F_0 / F_0: the level lags the losses by a round);
    // the training loss falls below F_0, so the level rises above s_0, never below it.
    EXPECT_EQ(*levels.at(1).begin(), 2);
    EXPECT_EQ(*levels.at(2).begin(), 2);
    for (const auto& [round, set] : levels)
    {
        EXPECT_GE(*set.begin(), 2) << "round " << round;
    }
    EXPECT_GT(*levels.at(10).begin(), 2);
}

TEST(LevelPolicyE2e, AdagqStartsAtEightBitsAndThenStepsTheWidth)
{
    TempDir dir("adagq");
    const std::map<int, std::set<int>> levels =
        RunTwice(dir.Path(), {{"type", "adaptive"}, {"policy", "adagq"}});
    ASSERT_EQ(levels.size(), 10u);
    // Every level is a whole bit width's, s = 2^b - 1 with b in [1, 8].
    for (const auto& [round, set] : levels)
    {
        for (int level : set)
        {
            EXPECT_TRUE(level >= 1 && level <= 255 && ((level + 1) & level) == 0)
                << "round " << round << ": " << level;
        }
    }
    // Rounds 1 and 2 at the start width, 8 bits (no rate is known before round 2 closes).
    EXPECT_EQ(levels.at(1), std::set<int>{255});
    EXPECT_EQ(levels.at(2), std::set<int>{255});
}

} // namespace
} // namespace fedran::test
