// server.selection end to end over ns-3, on the shipped stragglers scenario (30 sites, 10 per
// round, over-selection 1.3, a 10 s deadline that the rural sites often miss): every policy
// completes, writes its scores, and gives the same traces at any thread count; the modes a
// policy does not run in are refused by name.

#include "sim-test-util.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

std::string
Scenario(const char* name)
{
    return std::string(FEDRAN_SOURCE_DIR) + "/scenarios/" + name + ".json";
}

const char* const kPolicies[] = {
    R"({"type":"network","fairness_rounds":3})",
    R"({"type":"fedcs"})",
    R"({"type":"oort","pacer_step":2})",
    R"({"type":"power_of_choice","d":20})",
    R"({"type":"power_of_choice","variant":"pow-d","d":20})",
};

TEST(Selection, EveryPolicyRunsAndGivesTheSameTracesAtAnyThreadCount)
{
    TempDir dir("selection-threads");
    for (const char* policy : kPolicies)
    {
        const std::string sets =
            std::string("--overwrite --set rounds=4 --set 'server.selection=") + policy + "'";
        CommandResult r =
            RunFedran("run " + Scenario("stragglers") + " --out a --quiet --threads 1 " + sets,
                      dir.Path());
        ASSERT_EQ(r.exitCode, 0) << policy << r.stderrText;
        r = RunFedran("run " + Scenario("stragglers") + " --out b --quiet --threads 2 " + sets,
                      dir.Path());
        ASSERT_EQ(r.exitCode, 0) << policy << r.stderrText;
        ExpectSameTraces(dir.Path() / "a", dir.Path() / "b");
        const auto rounds = ReadCsv(dir.Path() / "a" / "rounds.csv");
        EXPECT_EQ(rounds.size(), 4u) << policy;
        size_t scored = 0;
        size_t rows = 0;
        for (auto& row : ReadCsv(dir.Path() / "a" / "clients.csv"))
        {
            ASSERT_TRUE(row.count("selection_score")) << policy;
            scored += !row["selection_score"].empty();
            ++rows;
        }
        // From round 2 on the policies have measurements to score by.
        EXPECT_GE(rows, 4u) << policy;
        EXPECT_GT(scored, 0u) << policy;
    }
}

TEST(Selection, PowDPollBytesAreCountedAndTrainingStartsAfterTheReplies)
{
    // The quickstart (20 sites of 3000 examples at 2000 examples/s, 10 a round, no losses,
    // no deadline trouble) with d = 20: every site is polled and answers, the 10 highest train.
    TempDir dir("selection-powd");
    const std::string base = "run " + Scenario("quickstart") + " --quiet --set rounds=2 ";
    ASSERT_EQ(RunFedran(base + "--out p --set 'server.selection={\"type\":\"power_of_choice\","
                               "\"variant\":\"pow-d\",\"d\":20}'",
                        dir.Path())
                  .exitCode,
              0);
    ASSERT_EQ(RunFedran(base + "--out r --set 'server.selection={\"type\":\"power_of_choice\","
                               "\"d\":20}'",
                        dir.Path())
                  .exitCode,
              0);
    auto rounds = ReadCsv(dir.Path() / "p" / "rounds.csv");
    auto rpowd = ReadCsv(dir.Path() / "r" / "rounds.csv");
    auto clients = ReadCsv(dir.Path() / "p" / "clients.csv");
    ASSERT_EQ(rounds.size(), 2u);
    ASSERT_EQ(clients.size(), 20u);
    const uint64_t kTrainStart = 28; // a header: the kept hold the model from the poll
    const uint64_t kReply = 28 + 4;
    for (const std::string round : {"1", "2"})
    {
        uint64_t model = 0;
        uint64_t updates = 0;
        size_t kept = 0;
        for (auto& row : clients)
        {
            if (row["round"] != round)
            {
                continue;
            }
            ++kept;
            EXPECT_EQ(row["status"], "completed");
            // The poll's model frame and the TrainStart header: the model went once.
            model = std::stoull(row["downlink_payload_bytes"]) - kTrainStart;
            updates += std::stoull(row["payload_bytes"]);
            // Training started after the client's own loss evaluation (one pass over its 3000
            // examples at 2000/s) had been answered: 1.5 s of poll, then 1.5 s of training.
            const double received = std::stod(row["model_received_s"]);
            EXPECT_GE(std::stod(row["upload_start_s"]) - received,
                      3000.0 / 2000.0 + std::stod(row["compute_s"]) - 1e-9);
            EXPECT_FALSE(row["selection_score"].empty()); // the polled loss
        }
        ASSERT_EQ(kept, 10u);
        auto& r = rounds[std::stoul(round) - 1];
        // 20 polls of the model, 10 TrainStart headers; 10 updates and 20 loss replies.
        EXPECT_EQ(std::stoull(r["downlink_payload_bytes"]), 20 * model + 10 * kTrainStart);
        EXPECT_EQ(std::stoull(r["uplink_payload_bytes"]), updates + 20 * kReply);
        // On the wire the 10 extra model copies show: more than rpow-d's 10 downloads.
        auto& other = rpowd[std::stoul(round) - 1];
        EXPECT_GT(std::stoull(r["downlink_wire_bytes"]),
                  std::stoull(other["downlink_wire_bytes"]) + 9 * model);
        // The round includes the poll: at least a poll and a training pass long.
        EXPECT_GT(std::stod(r["round_duration_s"]), 3.0);
        EXPECT_LT(std::stod(other["round_duration_s"]), 3.0);
    }
}

TEST(Selection, RandomRunsHaveNoScoreColumn)
{
    TempDir dir("selection-random");
    ASSERT_EQ(RunFedran("run " + Scenario("stragglers") +
                            " --out r --quiet --set rounds=1 "
                            "--set 'server.selection={\"type\":\"random\"}'",
                        dir.Path())
                  .exitCode,
              0);
    for (auto& row : ReadCsv(dir.Path() / "r" / "clients.csv"))
    {
        EXPECT_FALSE(row.count("selection_score"));
    }
}

TEST(Selection, AsyncAndEdgeAggregationRefuseOtherPoliciesByName)
{
    TempDir dir("selection-refused");
    for (const char* scenario : {"async", "hierarchical"})
    {
        CommandResult r = RunFedran("run " + Scenario(scenario) +
                                        " --out x --quiet --set 'server.selection={\"type\":"
                                        "\"oort\"}'",
                                    dir.Path());
        EXPECT_EQ(r.exitCode, 2) << scenario;
        EXPECT_NE(r.stderrText.find("server.selection.type: \"oort\""), std::string::npos)
            << r.stderrText;
    }
    CommandResult r = RunFedran("run " + Scenario("stragglers") +
                                    " --out x --quiet --set 'server.selection={\"type\":"
                                    "\"network\",\"d\":3}'",
                                dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("server.selection.d: not a setting of selection type "
                                "\"network\""),
              std::string::npos)
        << r.stderrText;
}

} // namespace
} // namespace fedran::test
