// privacy.dp local mode and adaptive clipping end to end on the quickstart scenario (20 sites,
// 10 per round): the epsilon column is the most-selected site's, the clip_norm column follows
// the estimator, each update carries its clipped-count byte, the traces do not depend on the
// thread count, and what these modes cannot honour is refused (exit 2 naming the key).

#include "models/fl/dp-aggregation.h"
#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>

namespace fedran::test
{
namespace
{

std::string
Scenario(const std::string& name = "quickstart")
{
    return std::string(FEDRAN_SOURCE_DIR) + "/scenarios/" + name + ".json";
}

const char* const kLocal =
    " --set 'privacy.dp={\"mode\":\"local\",\"clip_norm\":0.5,\"noise_multiplier\":1}'";
const char* const kAdaptive =
    " --set 'privacy.dp={\"mode\":\"central\",\"clip_norm\":0.05,\"noise_multiplier\":0.5,"
    "\"adaptive_clipping\":{\"update\":\"geometric\"}}'";

std::string
Significant6(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", value);
    return text;
}

/// Runs `sets` for 4 rounds at --threads 1 and 2 into t1 and t2 and checks the traces match.
void
RunAtOneAndTwoThreads(const TempDir& dir, const std::string& sets)
{
    for (const char* threads : {"1", "2"})
    {
        const CommandResult r = RunFedran("run " + Scenario() + " --set rounds=4 --quiet" + sets +
                                              " --threads " + threads + " --out t" + threads,
                                          dir.Path());
        ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    }
    ExpectSameTraces(dir.Path() / "t1", dir.Path() / "t2");
}

TEST(PrivacyLocal, EpsilonIsTheMostSelectedSitesAndTracesIgnoreThreads)
{
    TempDir dir("privacy-local");
    RunAtOneAndTwoThreads(dir, kLocal);

    DpConfig config;
    config.mode = "local";
    config.clipNorm = 0.5;
    config.noiseMultiplier = 1.0;
    const DpLedger ledger(config, 10, 20);
    // Selections per site, from clients.csv (a late_arrival row is no selection).
    std::map<std::string, uint32_t> count;
    std::map<uint32_t, uint32_t> maxBy;
    for (auto row : ReadCsv(dir.Path() / "t1" / "clients.csv"))
    {
        if (row["status"] == "late_arrival")
        {
            continue;
        }
        const uint32_t round = std::stoul(row["round"]);
        maxBy[round] = std::max(maxBy[round], ++count[row["client"]]);
    }
    const auto rounds = ReadCsv(dir.Path() / "t1" / "rounds.csv");
    ASSERT_EQ(rounds.size(), 4u);
    uint32_t steps = 0;
    for (auto row : rounds)
    {
        const uint32_t round = std::stoul(row["round"]);
        steps = std::max(steps, maxBy.at(round)); // the worst site so far
        EXPECT_EQ(row["epsilon"], Significant6(ledger.After(steps).epsilon)) << round;
        EXPECT_EQ(row["clip_norm"], "0.5");
        EXPECT_EQ(row["robust_rule"], "mean"); // the server averages as usual
    }
    EXPECT_GE(steps, 2u); // 40 selections among 20 sites: some site twice at least
    const auto json = nlohmann::json::parse(ReadFile(dir.Path() / "t1" / "run.json"));
    const auto& privacy = json.at("privacy");
    EXPECT_EQ(privacy.at("steps").get<uint32_t>(), steps);
    EXPECT_EQ(privacy.at("epsilon").get<double>(), ledger.After(steps).epsilon);
    EXPECT_EQ(privacy.at("accountant").get<std::string>(),
              "rdp_gaussian_per_site_no_amplification_tight");
    EXPECT_EQ(privacy.at("sampling_rate").get<double>(), 1.0);

    // The noise is real: the same run without DP ends elsewhere.
    ASSERT_EQ(
        RunFedran("run " + Scenario() + " --set rounds=4 --quiet --out none", dir.Path()).exitCode,
        0);
    EXPECT_NE(ReadCsv(dir.Path() / "none" / "rounds.csv").back()["test_accuracy"],
              rounds.back().at("test_accuracy"));
}

TEST(PrivacyAdaptive, ClipNormFollowsTheCountAndEachUpdateCarriesItsByte)
{
    TempDir dir("privacy-adaptive");
    RunAtOneAndTwoThreads(dir, kAdaptive);
    const auto rounds = ReadCsv(dir.Path() / "t1" / "rounds.csv");
    ASSERT_EQ(rounds.size(), 4u);
    // From C = 0.05 (float32) the updates of the quickstart (norms ~0.5-2) are all clipped:
    // C grows every round, by at most exp(0.2 x 0.5) and at least exp(0.2 x 0.5) shrunk by
    // the count's noise (sigma_b = 10 / 20).
    EXPECT_EQ(rounds[0].at("clip_norm"), Significant6(double(float(0.05))));
    for (size_t r = 1; r < rounds.size(); ++r)
    {
        EXPECT_GT(std::stod(rounds[r].at("clip_norm")), std::stod(rounds[r - 1].at("clip_norm")))
            << r;
        EXPECT_LE(std::stod(rounds[r].at("clip_norm")),
                  std::stod(rounds[r - 1].at("clip_norm")) * std::exp(0.1) * (1 + 1e-5))
            << r;
    }
    // Each update frame is the plain one (28 + 31,408 bytes) plus the clipped-count byte.
    for (auto row : ReadCsv(dir.Path() / "t1" / "clients.csv"))
    {
        if (row["status"] == "completed")
        {
            EXPECT_EQ(row["payload_bytes"], "31437");
        }
    }
    const auto json = nlohmann::json::parse(ReadFile(dir.Path() / "t1" / "run.json"));
    const auto& adaptive = json.at("privacy").at("adaptive_clipping");
    EXPECT_EQ(adaptive.at("clipped_count_stddev").get<double>(), 0.5);
    EXPECT_NEAR(adaptive.at("sum_noise_multiplier").get<double>(), 0.5 / std::sqrt(0.75), 1e-12);
    EXPECT_EQ(json.at("scenario")
                  .at("privacy")
                  .at("dp")
                  .at("adaptive_clipping")
                  .at("clipped_count_stddev")
                  .get<double>(),
              0.5);
    EXPECT_EQ(json.at("privacy").at("accountant").get<std::string>(),
              "rdp_poisson_subsampled_gaussian_tight");
    EXPECT_EQ(json.at("privacy").at("steps").get<uint32_t>(), 4u);
}

TEST(PrivacyLocal, WhatLocalModeAndAdaptiveClippingCannotHonourIsRefused)
{
    TempDir dir("privacy-local-bad");
    const std::string local = kLocal;
    const std::string adaptive = kAdaptive;
    const struct
    {
        std::string scenario;
        std::string sets;
        std::string field;
    } cases[] = {
        {"async", local, "server.mode"},
        {"hierarchical", local, "network.hubs"},
        {"quickstart",
         local + " --set 'compression.uplink={\"type\":\"dgc\",\"ratio\":0.01}'",
         "compression.uplink.mode"},
        {"quickstart",
         local + " --set 'compression.uplink={\"type\":\"adaptive\",\"policy\":\"dadaquant\"}'",
         "compression.uplink.type"},
        {"quickstart",
         local + " --set 'server.selection={\"type\":\"oort\"}'",
         "server.selection.type"},
        {"pipelining", local, "training.pipelining.mode"},
        {"quickstart",
         " --set "
         "'privacy.dp={\"mode\":\"local\",\"adaptive_clipping\":{\"update\":\"geometric\"}}'",
         "privacy.dp.adaptive_clipping"},
        {"quickstart",
         " --set "
         "'privacy.dp={\"mode\":\"central\",\"adaptive_clipping\":{\"update\":\"arithmetic\"}}'",
         "privacy.dp.adaptive_clipping.update"},
        {"quickstart",
         " --set 'privacy.dp={\"mode\":\"central\",\"adaptive_clipping\":{}}'",
         "update"},
        // z = 1 with sigma_b = 10 / 20: the count alone would cost z.
        {"quickstart",
         " --set 'privacy.dp={\"mode\":\"central\",\"noise_multiplier\":1,"
         "\"adaptive_clipping\":{\"update\":\"geometric\"}}'",
         "privacy.dp.adaptive_clipping.clipped_count_stddev"},
        {"quickstart",
         adaptive + " --set 'compression.uplink={\"type\":\"adaptive\",\"policy\":\"dadaquant\"}'",
         "compression.uplink.policy"},
        {"pipelining", adaptive, "training.pipelining.mode"},
    };
    for (const auto& c : cases)
    {
        const CommandResult r = RunFedran("validate " + Scenario(c.scenario) + c.sets, dir.Path());
        EXPECT_EQ(r.exitCode, 2) << c.sets;
        EXPECT_NE(r.stderrText.find(c.field), std::string::npos) << c.sets << "\n" << r.stderrText;
    }
    // Post-processing of noised updates: a robust rule, a majority vote and a two-exchange
    // codec are fine in local mode.
    for (const std::string sets : {" --set 'server.robust={\"type\":\"median\"}'",
                                   " --set compression.uplink.type=power_sgd",
                                   " --set 'compression.uplink={\"type\":\"sign\","
                                   "\"aggregation\":\"majority_vote\"}'"})
    {
        const CommandResult r = RunFedran("validate " + Scenario() + local + sets, dir.Path());
        EXPECT_EQ(r.exitCode, 0) << sets << "\n" << r.stderrText;
    }
}

} // namespace
} // namespace fedran::test
