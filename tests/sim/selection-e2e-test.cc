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
