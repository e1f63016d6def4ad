// Lower-is-better targets (`--targets nrmse=0.3`) through analysis/sweep.py collect and the
// study scripts, on a hand-written sweep folder of two forecasting runs (a sync and an async
// server), so every expected figure is known in advance.

#include "workflow-test-util.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

struct ForecastRun
{
    std::string id;
    nlohmann::json server;
    std::vector<double> nrmse; // per round
};

const std::vector<ForecastRun> kRuns = {
    {"sync-s1", {{"mode", "sync"}}, {0.9, 0.4, 0.28, 0.24}},
    {"async-s1", {{"mode", "async"}, {"async", {{"buffer", 2}}}}, {0.9, 0.6, 0.35, 0.31}},
};

/// Round r ends at 10 r s with 1000 r uplink wire bytes (2000 r in all); clients.csv holds
/// one completed row per round.
void
WriteForecastSweep(const std::filesystem::path& dir)
{
    const nlohmann::json uplink = {{"type", "none"}};
    nlohmann::json plan = {{"name", "forecast"},
                           {"sweep_file", (dir / "sweep.json").string()},
                           {"scenario", "base.json"},
                           {"swept", {"compression.uplink", "server"}},
                           {"runs", nlohmann::json::array()}};
    for (const ForecastRun& run : kRuns)
    {
        plan["runs"].push_back(run.id);
        const std::filesystem::path runDir = dir / "runs" / run.id;
        std::filesystem::create_directories(runDir);
        nlohmann::json params = {
            {"id", run.id},
            {"config", run.id},
            {"label", run.id},
            {"seed", 1},
            {"swept", {{"compression.uplink", uplink}, {"server", run.server}}}};
        WriteFile(runDir / "params.json", params.dump());
        nlohmann::json manifest = {{"status", "completed"},
                                   {"result",
                                    {{"rounds", run.nrmse.size()},
                                     {"final_test_accuracy", nullptr},
                                     {"final_test_nrmse", run.nrmse.back()},
                                     {"sim_time_s", 10.0 * run.nrmse.size()},
                                     {"uplink_payload_bytes", 900 * run.nrmse.size()},
                                     {"uplink_wire_bytes", 1000 * run.nrmse.size()},
                                     {"downlink_wire_bytes", 1000 * run.nrmse.size()}}}};
        WriteFile(runDir / "run.json", manifest.dump());
        std::string rounds = TraceHeaderLine("rounds.csv",
                                             {"round",
                                              "sim_time_s",
                                              "test_accuracy",
                                              "test_loss",
                                              "test_rmse",
                                              "test_mae",
                                              "test_nrmse",
                                              "cumulative_uplink_wire_bytes",
                                              "cumulative_wire_bytes"});
        std::string clients =
            TraceHeaderLine("clients.csv",
                            {"round", "client", "status", "deadline_met", "staleness"});
        for (size_t r = 1; r <= run.nrmse.size(); ++r)
        {
            const std::string round = std::to_string(r);
            rounds += round + "," + std::to_string(10 * r) + ",,0.5,1,0.5," +
                      std::to_string(run.nrmse[r - 1]) + "," + std::to_string(1000 * r) + "," +
                      std::to_string(2000 * r) + "\n";
            clients += round + ",0,completed,1,0\n";
        }
        WriteFile(runDir / "rounds.csv", rounds);
        WriteFile(runDir / "clients.csv", clients);
    }
    WriteFile(dir / "plan.json", plan.dump());
}

std::map<std::string, std::string>
RowOf(const std::vector<std::map<std::string, std::string>>& rows, const std::string& id)
{
    for (const auto& row : rows)
    {
        if (row.at("run_id") == id)
        {
            return row;
        }
    }
    ADD_FAILURE() << "no row " << id;
    return {};
}

TEST(ForecastTargetsTest, CollectReachesAnErrorTargetFromAbove)
{
    TempDir dir("forecast-targets");
    WriteForecastSweep(dir.Path());
    ToolResult r = RunTool("sweep.py", "collect . --targets nrmse=0.3,nrmse=0.25", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    auto final = ReadCsv(dir.Path() / "final.csv");
    ASSERT_EQ(final.size(), 2u);
    // sync: 0.28 <= 0.3 in round 3 (30 s, 3000 up, 6000 in all); 0.24 <= 0.25 in round 4.
    auto sync = RowOf(final, "sync-s1");
    EXPECT_EQ(sync.at("rounds_to_nrmse_0.3"), "3");
    EXPECT_EQ(std::stod(sync.at("time_to_nrmse_0.3_s")), 30.0);
    EXPECT_EQ(sync.at("uplink_bytes_to_nrmse_0.3"), "3000");
    EXPECT_EQ(sync.at("wire_bytes_to_nrmse_0.3"), "6000");
    EXPECT_EQ(sync.at("rounds_to_nrmse_0.25"), "4");
    EXPECT_DOUBLE_EQ(std::stod(sync.at("final_nrmse")), 0.24);
    EXPECT_DOUBLE_EQ(std::stod(sync.at("best_nrmse")), 0.24);
    // async never gets to 0.3 (0.31 at best): the columns are empty, not a number.
    auto async = RowOf(final, "async-s1");
    EXPECT_EQ(async.at("rounds_to_nrmse_0.3"), "");
    EXPECT_EQ(async.at("time_to_nrmse_0.3_s"), "");
    EXPECT_DOUBLE_EQ(std::stod(async.at("best_nrmse")), 0.31);
    EXPECT_EQ(sync.count("rounds_to_0.3"), 0u) << "an error target is not an accuracy target";

    r = RunTool("sweep.py", "collect . --targets psnr=30", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("--targets: unknown metric 'psnr' in 'psnr=30'"), std::string::npos)
        << r.stderrText;
    r = RunTool("sweep.py", "collect . --targets nrmse=-1", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("nrmse targets must be positive"), std::string::npos)
        << r.stderrText;
}

TEST(ForecastTargetsTest, StudyScriptsTakeAnErrorTarget)
{
    TempDir dir("forecast-studies");
    WriteForecastSweep(dir.Path());
    ASSERT_EQ(RunTool("sweep.py", "collect . --targets nrmse=0.3", dir.Path()).exitCode, 0);

    // abr_study: one configuration (uplink none) over the two runs; one reached 0.3 at 30 s
    // with 3 kB; final NRMSE 0.24 and 0.31 (mean 0.275).
    ToolResult r = RunTool("abr_study.py", ". --target nrmse=0.3", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_NE(r.stdoutText.find("sim time to NRMSE 0.3 (s) | uplink wire kB to NRMSE 0.3 "
                                "| final NRMSE |"),
              std::string::npos)
        << r.stdoutText;
    EXPECT_NE(r.stdoutText.find("| 2 (1/2 reached) |"), std::string::npos) << r.stdoutText;
    EXPECT_NE(r.stdoutText.find("| 30.0 | 3 | 0.275 ± 0.049 [0.240–0.310] |"), std::string::npos)
        << r.stdoutText;

    // async_study: the NRMSE column replaces the accuracy; medians per setting.
    r = RunTool("async_study.py",
                ". --figures figs --csv table.csv --targets nrmse=0.3",
                dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    auto table = ReadCsv(dir.Path() / "table.csv");
    ASSERT_EQ(table.size(), 2u);
    EXPECT_EQ(table[0].at("setting"), "sync");
    EXPECT_DOUBLE_EQ(std::stod(table[0].at("final_nrmse")), 0.24);
    EXPECT_EQ(table[0].at("reached_nrmse_0.3"), "1/1");
    EXPECT_DOUBLE_EQ(std::stod(table[0].at("time_to_nrmse_0.3_s")), 30.0);
    EXPECT_EQ(table[1].at("setting"), "FedBuff K=2");
    EXPECT_EQ(table[1].at("reached_nrmse_0.3"), "0/1");
    EXPECT_EQ(ReadFile(dir.Path() / "figs" / "async-accuracy.png").substr(1, 3), "PNG");

    // A target the sweep was not collected with names the missing column.
    r = RunTool("abr_study.py", ". --target nrmse=0.2", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("time_to_nrmse_0.2_s"), std::string::npos) << r.stderrText;
    r = RunTool("async_study.py", ". --figures figs --targets 0.8,nrmse=0.3", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("targets of one metric"), std::string::npos) << r.stderrText;
}

} // namespace
} // namespace fedran::test
