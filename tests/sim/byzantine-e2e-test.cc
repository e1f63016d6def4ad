// Byzantine clients and robust rules end to end, on the shipped scenarios/byzantine.json
// (the quickstart's 20 sites, 10 per round, 30 rounds; 6 of the 20 compromised, 30%).

#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <set>

namespace fedran::test
{
namespace
{

std::string
Scenario()
{
    return std::string(FEDRAN_SOURCE_DIR) + "/scenarios/byzantine.json";
}

/// Runs the Byzantine scenario into `out` with `sets` (--set arguments); returns the final
/// test accuracy.
double
FinalAccuracy(const TempDir& dir, const std::string& out, const std::string& sets)
{
    CommandResult r =
        RunFedran("run " + Scenario() + " --out " + out + " --quiet " + sets, dir.Path());
    EXPECT_EQ(r.exitCode, 0) << r.stderrText;
    auto rounds = ReadCsv(dir.Path() / out / "rounds.csv");
    return rounds.empty() ? 0.0 : std::stod(rounds.back()["test_accuracy"]);
}

TEST(SlowByzantine, ThirtyPercentSignFlipBreaksTheMeanAndNotTheRobustRules)
{
    TempDir dir("byzantine-rules");
    // The scenario's attack: sign_flip with scale 10.
    const double mean = FinalAccuracy(dir, "mean", "--set 'server.robust={\"type\":\"mean\"}'");
    EXPECT_LT(mean, 0.5);
    const char* const robust[] = {
        R"({"type":"median"})",
        R"({"type":"trimmed_mean","beta":0.3})",
        R"({"type":"multi_krum"})",
        R"({"type":"geometric_median"})",
    };
    for (const char* rule : robust)
    {
        // --overwrite: each rule's run replaces the previous rule's in r.
        const std::string sets = std::string("--overwrite --set 'server.robust=") + rule + "'";
        EXPECT_GT(FinalAccuracy(dir, "r", sets), 0.75) << rule;
    }
}

TEST(SlowByzantine, SignMajorityVoteSurvivesThirtyPercentRandomSigns)
{
    TempDir dir("byzantine-vote");
    const double accuracy = FinalAccuracy(
        dir,
        "vote",
        "--set 'server.robust={\"type\":\"mean\"}' "
        "--set 'compression.uplink={\"type\":\"sign\",\"aggregation\":\"majority_vote\"}' "
        "--set clients.groups.1.attack.type=random_sign");
    EXPECT_GT(accuracy, 0.70);
}

TEST(Byzantine, SameSeedGivesByteIdenticalTracesWithAttackersAtAnyThreadCount)
{
    TempDir dir("byzantine-determinism");
    for (const char* attack : {"alie", "gaussian", "label_flip"})
    {
        // --overwrite: each attack's runs replace the previous attack's in a and b.
        const std::string sets =
            std::string("--overwrite --set rounds=2 --set clients.groups.1.attack.type=") + attack +
            " --set 'server.robust={\"type\":\"multi_krum\"}'";
        ASSERT_EQ(
            RunFedran("run " + Scenario() + " --out a --quiet --threads 1 " + sets, dir.Path())
                .exitCode,
            0);
        ASSERT_EQ(
            RunFedran("run " + Scenario() + " --out b --quiet --threads 2 " + sets, dir.Path())
                .exitCode,
            0);
        ExpectSameTraces(dir.Path() / "a", dir.Path() / "b");
    }
}

TEST(Byzantine, TracesNameTheAttackTheRuleAndWhatEachUpdateCounted)
{
    TempDir dir("byzantine-traces");
    ASSERT_EQ(RunFedran("run " + Scenario() +
                            " --out t --quiet --set rounds=3 "
                            "--set 'server.robust={\"type\":\"multi_krum\",\"f\":3,\"m\":7}'",
                        dir.Path())
                  .exitCode,
              0);
    for (auto& row : ReadCsv(dir.Path() / "t" / "rounds.csv"))
    {
        EXPECT_EQ(row["robust_rule"], "multi_krum");
    }
    struct Round
    {
        size_t attackers = 0;
        double total = 0.0;
        double attackerWeight = 0.0;
    };
    std::map<std::string, Round> rounds;
    for (auto& row : ReadCsv(dir.Path() / "t" / "clients.csv"))
    {
        const bool compromised = row["group"] == "compromised";
        EXPECT_EQ(row["attack"], compromised ? "sign_flip" : "");
        ASSERT_EQ(row["status"], "completed");
        const double weight = std::stod(row["aggregate_weight"]);
        EXPECT_TRUE(weight == 0.0 || std::abs(weight - 1.0 / 7.0) < 1e-5) << weight;
        Round& round = rounds[row["round"]];
        round.total += weight;
        if (compromised)
        {
            ++round.attackers;
            round.attackerWeight += weight;
        }
    }
    size_t attacked = 0;
    for (const auto& [number, round] : rounds)
    {
        EXPECT_NEAR(round.total, 1.0, 1e-4) << number;
        // A sign-flipped update 10x as long lies far from the honest ones: none is among the
        // m = 7 chosen while the round has 7 honest updates.
        if (round.attackers > 0 && round.attackers <= 3)
        {
            ++attacked;
            EXPECT_EQ(round.attackerWeight, 0.0) << number;
        }
    }
    EXPECT_GT(attacked, 0u);
}

TEST(Byzantine, InadmissibleRuleExitsTwoNamingThePath)
{
    TempDir dir("byzantine-bad");
    CommandResult r =
        RunFedran("validate " + Scenario() + " --set 'server.robust={\"type\":\"krum\",\"f\":4}'",
                  dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("server.robust.f: krum needs clients_per_round n > 2f + 2"),
              std::string::npos)
        << r.stderrText;
    r = RunFedran("validate " + Scenario() +
                      " --set clients.groups.1.attack.type=scaled"
                      " --set clients.groups.1.attack.scale=-1",
                  dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("clients.groups.1.attack.scale"), std::string::npos)
        << r.stderrText;
}

} // namespace
} // namespace fedran::test
