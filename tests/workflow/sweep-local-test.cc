// analysis/sweep.py --backend local: running, resuming and recording failures of real runs.

#include "workflow-test-util.h"

#include <gtest/gtest.h>

#include <fstream>

namespace fedran::test
{
namespace
{

const nlohmann::json kFourRuns = {
    {"name", "four"},
    {"grid", {{"compression.uplink", {{{"type", "none"}}, {{"type", "fp16"}}}}}},
    {"seeds", 2}};

TEST(SweepLocalTest, SlowFourRunsCompleteResumeAndRerunExactlyWhatIsMissing)
{
    TempDir dir("sweep-local");
    WriteTinySweep(dir.Path(), kFourRuns);
    const std::string args = "sweep.json --out out --jobs 2 " + FedranArg();
    ToolResult r = RunTool("sweep.py", args, dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;

    const std::filesystem::path out = dir.Path() / "out";
    std::vector<std::filesystem::path> runs = RunDirs(out);
    ASSERT_EQ(runs.size(), 4u);
    std::vector<std::string> manifests;
    for (const auto& run : runs)
    {
        ASSERT_TRUE(std::filesystem::exists(run / "run.json")) << run;
        nlohmann::json params = nlohmann::json::parse(ReadFile(run / "params.json"));
        EXPECT_EQ(params["id"], run.filename().string());
        // Each run trains on one thread so that --jobs processes share the cores.
        EXPECT_EQ(ReadCsv(run / "rounds.csv").size(), 2u);
        manifests.push_back(ReadFile(run / "run.json"));
    }
    auto summary = ReadCsv(out / "summary.csv");
    ASSERT_EQ(summary.size(), 4u * 2u) << "one row per run and round";
    EXPECT_TRUE(summary[0].count("compression.uplink"));
    EXPECT_TRUE(summary[0].count("test_accuracy"));
    auto final = ReadCsv(out / "final.csv");
    ASSERT_EQ(final.size(), 4u);
    for (const auto& row : final)
    {
        EXPECT_EQ(row.at("status"), "done");
        EXPECT_GT(std::stod(row.at("final_accuracy")), 0.5);
        EXPECT_GT(std::stoull(row.at("total_wire_bytes")),
                  std::stoull(row.at("uplink_wire_bytes")));
        // The tiny runs pass 70% accuracy in round 1.
        EXPECT_EQ(row.at("rounds_to_0.7"), "1");
        EXPECT_EQ(row.at("kernels").rfind("portable-", 0), 0u) << row.at("kernels");
    }
    EXPECT_EQ(r.stderrText.find("different matrix kernels"), std::string::npos) << r.stderrText;
    // fp16 halves the update frames: compare one seed of each configuration.
    const auto& none = final[0];
    const auto& fp16 = final[2];
    ASSERT_NE(none.at("compression.uplink").find("none"), std::string::npos);
    ASSERT_NE(fp16.at("compression.uplink").find("fp16"), std::string::npos);
    EXPECT_LT(std::stod(fp16.at("uplink_payload_bytes")),
              0.6 * std::stod(none.at("uplink_payload_bytes")));

    // Again: everything is finished, nothing runs (run.json holds the wall time, so a
    // re-run would change it).
    r = RunTool("sweep.py", args, dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_NE(r.stderrText.find("4 already finished, 0 to run"), std::string::npos) << r.stderrText;
    for (size_t i = 0; i < runs.size(); ++i)
    {
        EXPECT_EQ(ReadFile(runs[i] / "run.json"), manifests[i]) << runs[i];
    }

    // Without one run.json exactly that run runs again.
    std::filesystem::remove(runs[1] / "run.json");
    r = RunTool("sweep.py", args, dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_NE(r.stderrText.find("3 already finished, 1 to run"), std::string::npos) << r.stderrText;
    ASSERT_TRUE(std::filesystem::exists(runs[1] / "run.json"));
    EXPECT_NE(ReadFile(runs[1] / "run.json"), manifests[1]);
    for (size_t i : {0u, 2u, 3u})
    {
        EXPECT_EQ(ReadFile(runs[i] / "run.json"), manifests[i]) << runs[i];
    }
    EXPECT_EQ(ReadCsv(out / "summary.csv").size(), 8u);

    // A run made with the fast kernels (as on another instruction set) is flagged.
    nlohmann::json manifest = nlohmann::json::parse(ReadFile(runs[3] / "run.json"));
    manifest["kernels"] = "fast-avx2";
    std::ofstream(runs[3] / "run.json") << manifest.dump(2);
    r = RunTool("sweep.py", "collect out", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_NE(r.stderrText.find("different matrix kernels"), std::string::npos) << r.stderrText;
    EXPECT_NE(r.stderrText.find("fast-avx2"), std::string::npos) << r.stderrText;
}

TEST(SweepLocalTest, RunsAgainWhatWasKilledOrInterrupted)
{
    TempDir dir("sweep-resume");
    WriteTinySweep(dir.Path(), {{"name", "resume"}, {"seeds", 3}});
    const std::string args = "sweep.json --out out --jobs 1 " + FedranArg();
    ToolResult r = RunTool("sweep.py", args, dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    std::vector<std::filesystem::path> runs = RunDirs(dir.Path() / "out");
    ASSERT_EQ(runs.size(), 3u);
    const std::string kept = ReadFile(runs[2] / "run.json");
    // As fedran leaves them: killed (still "running") and stopped by SIGTERM.
    for (auto [run, status] : {std::pair{runs[0], "running"}, std::pair{runs[1], "interrupted"}})
    {
        nlohmann::json manifest = nlohmann::json::parse(ReadFile(run / "run.json"));
        manifest["status"] = status;
        WriteFile(run / "run.json", manifest.dump());
    }
    r = RunTool("sweep.py", args, dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_NE(r.stderrText.find("1 already finished, 2 to run"), std::string::npos) << r.stderrText;
    for (const auto& run : runs)
    {
        EXPECT_EQ(nlohmann::json::parse(ReadFile(run / "run.json"))["status"], "completed") << run;
    }
    EXPECT_EQ(ReadFile(runs[2] / "run.json"), kept);
}

TEST(SweepLocalTest, ABadKeyOrValueInTheGridExitsTwoBeforeAnyRunStarts)
{
    TempDir dir("sweep-invalid");
    // A key that does not exist, and 9 clients per round out of 4 clients: every run of the
    // grid is validated first, so the sweep lists the four that would fail and starts none.
    WriteTinySweep(dir.Path(),
                   {{"name", "invalid"},
                    {"grid", {{"server.clients_per_round", {1, 9}}}},
                    {"set", {{"server.deadline", 30}}},
                    {"seeds", 2}});
    for (const char* extra : {"", " --dry-run"})
    {
        ToolResult r =
            RunTool("sweep.py", "sweep.json --out out --jobs 2 " + FedranArg() + extra, dir.Path());
        EXPECT_EQ(r.exitCode, 2) << r.stderrText;
        EXPECT_NE(r.stderrText.find("4 of 4 runs to run would fail; none was started"),
                  std::string::npos)
            << r.stderrText;
        EXPECT_NE(r.stderrText.find("server.deadline"), std::string::npos) << r.stderrText;
        EXPECT_NE(r.stderrText.find("clients_per_round=9"), std::string::npos) << r.stderrText;
        EXPECT_FALSE(std::filesystem::exists(dir.Path() / "out")) << "no run folder created";
    }
}

TEST(SweepLocalTest, SlowARunThatFailsIsRecordedAndTheOthersFinish)
{
    TempDir dir("sweep-fail");
    WriteTinySweep(dir.Path(),
                   {{"name", "partly"}, {"grid", {{"server.clients_per_round", {1, 3, 2}}}}});
    // A valid run that fails while running (as a full disk would): this fedran fails the run
    // with 3 clients per round and is the real one otherwise, validation included.
    WriteFile(dir.Path() / "failing-fedran",
              "#!/bin/sh\n"
              "case \"$1 $*\" in 'run '*clients_per_round=3*)\n"
              "  echo 'fedran: run failed: injected failure' >&2; exit 1;;\n"
              "esac\n"
              "exec '" FEDRAN_BINARY "' \"$@\"\n");
    std::filesystem::permissions(dir.Path() / "failing-fedran", std::filesystem::perms::owner_all);
    ToolResult r =
        RunTool("sweep.py", "sweep.json --out out --jobs 2 --fedran failing-fedran", dir.Path());
    EXPECT_EQ(r.exitCode, 1) << r.stderrText;
    EXPECT_NE(r.stderrText.find("clients_per_round=3"), std::string::npos) << r.stderrText;

    auto final = ReadCsv(dir.Path() / "out" / "final.csv");
    ASSERT_EQ(final.size(), 3u);
    EXPECT_EQ(final[0].at("status"), "done");
    EXPECT_EQ(final[1].at("status"), "failed");
    EXPECT_NE(final[1].at("error").find("injected failure"), std::string::npos)
        << final[1].at("error");
    EXPECT_EQ(final[2].at("status"), "done");
    EXPECT_EQ(ReadCsv(dir.Path() / "out" / "summary.csv").size(), 2u * 2u);

    const std::filesystem::path failedRun = dir.Path() / "out" / "runs" / final[1].at("run_id");
    nlohmann::json failure = nlohmann::json::parse(ReadFile(failedRun / "failed.json"));
    EXPECT_EQ(failure["exit_code"], 1);

    // Run again with the real fedran: only the failed run runs, and now finishes.
    r = RunTool("sweep.py", "sweep.json --out out --jobs 2 " + FedranArg(), dir.Path());
    EXPECT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_NE(r.stderrText.find("2 already finished, 1 to run"), std::string::npos) << r.stderrText;
    EXPECT_FALSE(std::filesystem::exists(failedRun / "failed.json"));
}

/// True if any process's command line mentions `text` (e.g. a sweep's output folder).
bool
ProcessMentions(const std::string& text)
{
    for (const auto& entry : std::filesystem::directory_iterator("/proc"))
    {
        std::ifstream in(entry.path() / "cmdline", std::ios::binary);
        std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (cmdline.find(text) != std::string::npos)
        {
            return true;
        }
    }
    return false;
}

TEST(SweepLocalTest, InterruptStopsTheRunsAndWritesNoSummary)
{
    TempDir dir("sweep-stop");
    // Two runs long enough to be running when the signal comes.
    WriteTinySweep(dir.Path(), {{"name", "stop"}, {"set", {{"rounds", 30}}}, {"seeds", 2}});
    // SIGTERM takes the same path as Ctrl-C (a background shell job ignores SIGINT).
    WriteFile(dir.Path() / "stop.sh",
              "/usr/bin/python3 '" FEDRAN_SOURCE_DIR "/analysis/sweep.py' sweep.json --out out "
              "--jobs 2 " +
                  FedranArg() +
                  " 2> sweep-stderr.txt &\n"
                  "pid=$!\n"
                  "until [ \"$(ls out/runs/*/stderr.txt 2>/dev/null | wc -l)\" = 2 ]; do sleep "
                  "0.1; done\n"
                  "kill -TERM $pid\nwait $pid\necho $? > rc.txt\n");
    ASSERT_EQ(std::system(("cd '" + dir.Path().string() + "' && sh stop.sh").c_str()), 0);
    const std::string stderrText = ReadFile(dir.Path() / "sweep-stderr.txt");
    EXPECT_EQ(ReadFile(dir.Path() / "rc.txt"), "130\n") << stderrText;
    EXPECT_NE(stderrText.find("interrupted: stopped 2 running run(s)"), std::string::npos)
        << stderrText;
    EXPECT_FALSE(std::filesystem::exists(dir.Path() / "out" / "summary.csv"));
    EXPECT_FALSE(std::filesystem::exists(dir.Path() / "out" / "final.csv"));
    // The sweep waited for its fedran processes: none is left writing into the folder.
    EXPECT_FALSE(ProcessMentions((dir.Path() / "out").string()));
    // A run stopped mid-way is marked so (run.json is written at its start, "running", and
    // "interrupted" on the signal), never "completed".
    for (const auto& run : RunDirs(dir.Path() / "out"))
    {
        if (std::filesystem::exists(run / "run.json"))
        {
            const std::string manifest = ReadFile(run / "run.json");
            EXPECT_EQ(manifest.find("\"completed\""), std::string::npos) << run << manifest;
        }
    }
}

} // namespace
} // namespace fedran::test
