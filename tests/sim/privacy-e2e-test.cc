// privacy.dp end to end on the quickstart scenario (20 sites, 10 per round): the epsilon
// column is the accountant's, the traces do not depend on the thread count, run.json reports
// the final epsilon and the orders, and the settings DP cannot honour are refused (exit 2).

#include "models/fl/dp-aggregation.h"
#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace fedran::test
{
namespace
{

std::string
Quickstart()
{
    return std::string(FEDRAN_SOURCE_DIR) + "/scenarios/quickstart.json";
}

const char* const kDp =
    " --set 'privacy.dp={\"mode\":\"central\",\"clip_norm\":0.5,\"noise_multiplier\":0.8}'";

TEST(Privacy, EpsilonColumnIsTheAccountantsAndTracesIgnoreThreads)
{
    TempDir dir("privacy-e2e");
    for (const char* threads : {"1", "2"})
    {
        const CommandResult r = RunFedran("run " + Quickstart() + " --set rounds=4 --quiet" + kDp +
                                              " --threads " + threads + " --out t" + threads,
                                          dir.Path());
        ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    }
    ExpectSameTraces(dir.Path() / "t1", dir.Path() / "t2");

    DpConfig config;
    config.mode = "central";
    config.clipNorm = 0.5;
    config.noiseMultiplier = 0.8;
    const DpLedger ledger(config, 10, 20);
    const auto rounds = ReadCsv(dir.Path() / "t1" / "rounds.csv");
    ASSERT_EQ(rounds.size(), 4u);
    for (auto row : rounds)
    {
        char expected[32];
        std::snprintf(expected,
                      sizeof expected,
                      "%.6g",
                      ledger.After(std::stoul(row["round"])).epsilon);
        EXPECT_EQ(row["epsilon"], expected) << row["round"];
    }
    for (auto row : ReadCsv(dir.Path() / "t1" / "clients.csv"))
    {
        // Each update counts at most 1 / clients_per_round (clipped if longer than C).
        if (row["status"] == "completed")
        {
            EXPECT_LE(std::stod(row["aggregate_weight"]), 0.1 + 1e-9);
        }
    }
    const std::string manifest = ReadFile(dir.Path() / "t1" / "run.json");
    const auto json = nlohmann::json::parse(manifest);
    EXPECT_EQ(json.at("privacy").at("epsilon").get<double>(), ledger.After(4).epsilon);
    EXPECT_EQ(json.at("privacy").at("orders").size(), ledger.Orders().size());
    EXPECT_EQ(json.at("privacy").at("sampling_rate").get<double>(), 0.5);
}

TEST(Privacy, WithoutDpTheEpsilonColumnIsEmpty)
{
    TempDir dir("privacy-none");
    ASSERT_EQ(
        RunFedran("run " + Quickstart() + " --set rounds=1 --quiet --out t", dir.Path()).exitCode,
        0);
    for (auto row : ReadCsv(dir.Path() / "t" / "rounds.csv"))
    {
        EXPECT_EQ(row["epsilon"], "");
    }
}

TEST(Privacy, BadSettingsExitTwoNamingTheField)
{
    TempDir dir("privacy-bad");
    const struct
    {
        std::string sets;
        std::string field;
    } cases[] = {
        {" --set 'privacy.dp={\"mode\":\"central\",\"clip_norm\":0}'", "privacy.dp.clip_norm"},
        {" --set 'privacy.dp={\"mode\":\"central\",\"noise_multiplier\":-1}'",
         "privacy.dp.noise_multiplier"},
        {" --set 'privacy.dp={\"mode\":\"central\",\"delta\":1}'", "privacy.dp.delta"},
        {" --set 'privacy.dp={\"mode\":\"sometimes\"}'", "privacy.dp.mode"},
        {" --set 'privacy.dp={\"mode\":\"central\",\"clip\":1}'", "privacy.dp.clip"},
        {std::string(kDp) + " --set 'server.robust={\"type\":\"median\"}'", "server.robust.type"},
        {std::string(kDp) + " --set compression.uplink.type=power_sgd", "compression.uplink.type"},
        {std::string(kDp) +
             " --set 'compression.uplink={\"type\":\"sign\",\"aggregation\":\"majority_vote\"}'",
         "compression.uplink.aggregation"},
    };
    for (const auto& c : cases)
    {
        const CommandResult r = RunFedran("validate " + Quickstart() + c.sets, dir.Path());
        EXPECT_EQ(r.exitCode, 2) << c.sets;
        EXPECT_NE(r.stderrText.find(c.field), std::string::npos) << c.sets << "\n" << r.stderrText;
    }
}

TEST(Privacy, AsyncAndEdgeAggregationAreRefused)
{
    TempDir dir("privacy-modes");
    const std::string scenarios = std::string(FEDRAN_SOURCE_DIR) + "/scenarios/";
    CommandResult r = RunFedran("validate " + scenarios + "async.json" + kDp, dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("server.mode"), std::string::npos) << r.stderrText;
    r = RunFedran("validate " + scenarios + "hierarchical.json" + kDp, dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("network.hubs"), std::string::npos) << r.stderrText;
}

} // namespace
} // namespace fedran::test
