// privacy.secure_aggregation end to end: the quickstart cut to six sites, all selected, over
// TCP and over the flow model. The protocol's frames cross the simulated network, the rounds
// report their bytes and seconds, the model learns as it does without secure aggregation,
// dropouts are unmasked, a round below the threshold fails cleanly, the traces do not depend
// on the thread count, and what cannot compose is refused (exit 2).

#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <cmath>

namespace fedran::test
{
namespace
{

std::string
Small(const std::string& transport, uint32_t rounds = 3)
{
    return "run " + std::string(FEDRAN_SOURCE_DIR) +
           "/scenarios/quickstart.json --quiet --set rounds=" + std::to_string(rounds) +
           " --set clients.groups.0.count=6 --set server.clients_per_round=6"
           " --set network.transport=" +
           transport;
}

const char* const kPlus = " --set 'privacy.secure_aggregation={\"type\":\"secagg_plus\","
                          "\"num_shares\":3,\"threshold\":2}'";

double
FinalAccuracy(const std::filesystem::path& run)
{
    return std::stod(ReadCsv(run / "rounds.csv").back()["test_accuracy"]);
}

TEST(SecAggE2e, OverTcpAndFlowItLearnsAsWithoutAndCountsItsFrames)
{
    TempDir dir("secagg-e2e");
    for (const std::string transport : {"tcp", "flow"})
    {
        const CommandResult plain =
            RunFedran(Small(transport) + " --out plain-" + transport, dir.Path());
        ASSERT_EQ(plain.exitCode, 0) << plain.stderrText;
        const CommandResult secure =
            RunFedran(Small(transport) + kPlus + " --out sa-" + transport, dir.Path());
        ASSERT_EQ(secure.exitCode, 0) << secure.stderrText;
        const auto rounds = ReadCsv(dir.Path() / ("sa-" + transport) / "rounds.csv");
        ASSERT_EQ(rounds.size(), 3u);
        for (auto row : rounds)
        {
            EXPECT_EQ(row["secagg_status"], "ok") << transport;
            EXPECT_EQ(row["participants"], "6");
            // Per client, frames with their 28-byte headers (docs/privacy.md): setup 64,
            // AdvertiseKeys 458, two neighbours' keys 900, two ciphertexts up 1,264 and
            // relayed 1,264, unmask request 48, three seed shares 203.
            EXPECT_EQ(row["secagg_bytes"], std::to_string(6 * 4201)) << transport;
            EXPECT_GT(std::stod(row["secagg_s"]), 0.0);
            // The masked vector: 7,851 elements of 32 bits and a count, in the update frame.
            EXPECT_EQ(row["uplink_payload_bytes"], std::to_string(6 * (28 + 4 + 7851 * 4)));
            EXPECT_GT(std::stod(row["round_duration_s"]), std::stod(row["secagg_s"]));
        }
        const double a = FinalAccuracy(dir.Path() / ("plain-" + transport));
        const double b = FinalAccuracy(dir.Path() / ("sa-" + transport));
        EXPECT_NEAR(a, b, 0.01) << transport;
        auto plainRows = ReadCsv(dir.Path() / ("plain-" + transport) / "rounds.csv");
        EXPECT_EQ(plainRows[0]["secagg_status"], "");
        EXPECT_EQ(plainRows[0]["secagg_bytes"], "");
        const auto manifest =
            nlohmann::json::parse(ReadFile(dir.Path() / ("sa-" + transport) / "run.json"));
        EXPECT_EQ(manifest.at("secure_aggregation").at("secagg_bytes").get<uint64_t>(),
                  3u * 6u * 4201u);
        EXPECT_TRUE(manifest.at("secure_aggregation").at("failed_rounds").empty());
    }
}

TEST(SecAggE2e, TracesIgnoreThreads)
{
    TempDir dir("secagg-threads");
    for (const char* threads : {"1", "2"})
    {
        const CommandResult r =
            RunFedran(Small("tcp", 2) + kPlus + " --threads " + threads + " --out t" + threads,
                      dir.Path());
        ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    }
    ExpectSameTraces(dir.Path() / "t1", dir.Path() / "t2");
}

TEST(SecAggE2e, DropoutsAfterSharingKeysAreUnmasked)
{
    TempDir dir("secagg-dropout");
    // A site that drops out leaves during its training: after ShareKeys, before its masked
    // input. With every site masking with every other and t = 3, the survivors unmask it.
    const CommandResult r =
        RunFedran(Small("tcp", 4) +
                      " --set 'privacy.secure_aggregation={\"type\":\"secagg\",\"threshold\":3}'"
                      " --set 'clients.groups.0.availability={\"dropout\":0.3}' --out t",
                  dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    bool someDropped = false;
    for (auto row : ReadCsv(dir.Path() / "t" / "rounds.csv"))
    {
        const int participants = std::stoi(row["participants"]);
        if (participants >= 3)
        {
            EXPECT_EQ(row["secagg_status"], "ok") << row["round"];
        }
        someDropped = someDropped || participants < 6;
    }
    EXPECT_TRUE(someDropped);
    for (auto row : ReadCsv(dir.Path() / "t" / "clients.csv"))
    {
        EXPECT_TRUE(row["status"] == "completed" || row["status"] == "dropped") << row["status"];
    }
}

TEST(SecAggE2e, BelowTheThresholdARoundFailsCleanly)
{
    TempDir dir("secagg-fail");
    // t = 6 of 6: any dropout leaves too few masked inputs.
    const CommandResult r =
        RunFedran(Small("flow", 4) +
                      " --set 'privacy.secure_aggregation={\"type\":\"secagg\",\"threshold\":6}'"
                      " --set 'clients.groups.0.availability={\"dropout\":0.3}' --out t",
                  dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    int failed = 0;
    std::string accuracyBefore;
    for (auto row : ReadCsv(dir.Path() / "t" / "rounds.csv"))
    {
        if (row["secagg_status"] != "ok")
        {
            ++failed;
            EXPECT_EQ(row["secagg_status"], "failed_masked_input");
            EXPECT_EQ(row["participants"], "0");
            if (!accuracyBefore.empty())
            {
                EXPECT_EQ(row["test_accuracy"], accuracyBefore); // the model did not move
            }
        }
        accuracyBefore = row["test_accuracy"];
    }
    ASSERT_GT(failed, 0);
    EXPECT_NE(r.stderrText.find("secure aggregation failed (failed_masked_input)"),
              std::string::npos)
        << r.stderrText;
    const auto manifest = nlohmann::json::parse(ReadFile(dir.Path() / "t" / "run.json"));
    EXPECT_EQ(manifest.at("secure_aggregation").at("failed_rounds").size(), size_t(failed));
}

TEST(SecAggE2e, WithCentralDpTheSitesClipAndTheServerNoises)
{
    TempDir dir("secagg-dp");
    const std::string dp =
        " --set 'privacy.dp={\"mode\":\"central\",\"clip_norm\":0.5,\"noise_multiplier\":0.5}'";
    CommandResult r = RunFedran(Small("tcp", 3) + dp + " --out dp", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    r = RunFedran(Small("tcp", 3) + dp + kPlus + " --out both", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    const auto a = ReadCsv(dir.Path() / "dp" / "rounds.csv");
    const auto b = ReadCsv(dir.Path() / "both" / "rounds.csv");
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
    {
        auto ra = a[i];
        auto rb = b[i];
        EXPECT_EQ(rb["secagg_status"], "ok");
        EXPECT_EQ(ra["epsilon"], rb["epsilon"]); // the same accountant, the same steps
    }
    // Client-side clipping of the same updates and the same noise stream: close to the
    // server-side DP run (the quantization and the clipping's place differ).
    EXPECT_NEAR(FinalAccuracy(dir.Path() / "dp"), FinalAccuracy(dir.Path() / "both"), 0.02);
}

TEST(SecAggE2e, WhatCannotComposeIsRefusedNamingBothKeys)
{
    TempDir dir("secagg-refusals");
    const std::string base = std::string(FEDRAN_SOURCE_DIR) + "/scenarios/";
    const std::string sa = " --set 'privacy.secure_aggregation={\"type\":\"secagg\","
                           "\"threshold\":5}'";
    const struct
    {
        std::string args;
        std::string key;
    } cases[] = {
        {"quickstart.json --set 'compression.uplink={\"type\":\"top_k\",\"ratio\":0.01}'",
         "compression.uplink.type"},
        {"quickstart.json --set 'compression.uplink={\"type\":\"threshold\"}'",
         "compression.uplink.type"},
        {"quickstart.json --set 'compression.uplink={\"type\":\"dgc\"}'",
         "compression.uplink.type"},
        {"quickstart.json --set compression.uplink.type=power_sgd", "compression.uplink.type"},
        {"quickstart.json --set 'compression.uplink={\"type\":\"sign\",\"aggregation\":"
         "\"majority_vote\"}'",
         "compression.uplink.type"},
        {"quickstart.json --set 'server.robust={\"type\":\"median\"}'", "server.robust.type"},
        {"quickstart.json --set server.over_select=1.5", "server.over_select"},
        {"quickstart.json --set 'server.selection={\"type\":\"power_of_choice\",\"variant\":"
         "\"pow-d\",\"d\":20}'",
         "server.selection.type"},
        {"quickstart.json --set 'training.pipelining={\"mode\":\"layerwise\"}'",
         "training.pipelining.mode"},
        {"async.json", "server.mode"},
        {"hierarchical.json", "network.hubs"},
    };
    for (const auto& c : cases)
    {
        const CommandResult r = RunFedran("validate " + base + c.args + sa, dir.Path());
        EXPECT_EQ(r.exitCode, 2) << c.args;
        EXPECT_NE(r.stderrText.find(c.key), std::string::npos) << c.args << "\n" << r.stderrText;
        EXPECT_NE(r.stderrText.find("privacy.secure_aggregation"), std::string::npos)
            << c.args << "\n"
            << r.stderrText;
    }
    const struct
    {
        std::string sa;
        std::string key;
    } bad[] = {
        {R"({"type":"secagg","threshold":11})", "privacy.secure_aggregation.threshold"},
        {R"({"type":"secagg_plus","threshold":2})", "privacy.secure_aggregation.num_shares"},
        {R"({"type":"secagg","threshold":2,"num_shares":5})",
         "privacy.secure_aggregation.num_shares"},
        {R"({"type":"secagg","threshold":2,"field_bits":24})",
         "privacy.secure_aggregation.field_bits"},
        {R"({"type":"secagg_plus","num_shares":3,"threshold":5})",
         "privacy.secure_aggregation.threshold"},
    };
    for (const auto& c : bad)
    {
        const CommandResult r = RunFedran("validate " + base +
                                              "quickstart.json --set "
                                              "'privacy.secure_aggregation=" +
                                              c.sa + "'",
                                          dir.Path());
        EXPECT_EQ(r.exitCode, 2) << c.sa;
        EXPECT_NE(r.stderrText.find(c.key), std::string::npos) << c.sa << "\n" << r.stderrText;
    }
    // The weights' sum: 10 sites of 3,000 examples at max_weight 10 would wrap 2^32.
    const CommandResult r =
        RunFedran("run " + base +
                      "quickstart.json --set rounds=1 --out w --set 'privacy.secure_aggregation="
                      R"({"type":"secagg","threshold":2,"max_weight":10})"
                      "'",
                  dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("privacy.secure_aggregation.field_bits"), std::string::npos)
        << r.stderrText;
}

} // namespace
} // namespace fedran::test
