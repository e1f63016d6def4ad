// analysis/sweep.py --backend slurm against a real single-node Slurm on localhost.

#include "slurm-cluster.h"
#include "workflow-test-util.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

TEST(SweepSlurmTest, SlowTwoRunArrayOnALocalhostClusterIsCollected)
{
    const std::string unavailable = SlurmCluster::Unavailable();
    if (!unavailable.empty())
    {
        GTEST_SKIP() << "no local Slurm: " << unavailable;
    }
    TempDir dir("slurm");
    SlurmCluster cluster(dir.Path() / "cluster");
    ASSERT_TRUE(cluster.WaitUntilReady()) << cluster.Logs();

    WriteTinySweep(dir.Path(),
                   {{"name", "array"},
                    {"grid", {{"compression.uplink", {{{"type", "none"}}, {{"type", "fp16"}}}}}}});
    ToolResult r = RunTool("sweep.py",
                           "sweep.json --out out --backend slurm --poll 0.5 --time 00:10:00 "
                           "--mem 500M --partition test " +
                               FedranArg(),
                           dir.Path(),
                           cluster.Env());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText << cluster.Logs();
    EXPECT_NE(r.stderrText.find("submitted array job"), std::string::npos) << r.stderrText;

    const std::filesystem::path out = dir.Path() / "out";
    auto final = ReadCsv(out / "final.csv");
    ASSERT_EQ(final.size(), 2u);
    for (const auto& row : final)
    {
        EXPECT_EQ(row.at("status"), "done") << row.at("error");
        EXPECT_GT(std::stod(row.at("final_accuracy")), 0.5);
    }
    EXPECT_EQ(ReadCsv(out / "summary.csv").size(), 2u * 2u);

    // One array job with the requested resources; each task's log names its run.
    std::string script, logs;
    for (const auto& entry : std::filesystem::directory_iterator(out / "slurm"))
    {
        const std::string name = entry.path().filename().string();
        if (name.starts_with("job-"))
        {
            script += ReadFile(entry.path());
        }
        if (name.ends_with(".out"))
        {
            logs += ReadFile(entry.path());
        }
    }
    EXPECT_NE(script.find("#SBATCH --array=0-1\n"), std::string::npos) << script;
    EXPECT_NE(script.find("#SBATCH --mem=500M\n"), std::string::npos) << script;
    EXPECT_NE(script.find("#SBATCH --partition=test\n"), std::string::npos) << script;
    EXPECT_NE(logs.find(final[0].at("run_id") + ": finished"), std::string::npos) << logs;
    EXPECT_NE(logs.find(final[1].at("run_id") + ": finished"), std::string::npos) << logs;

    // Resubmitting runs only the unfinished run; --no-wait returns at once, collect gathers.
    const std::filesystem::path rerun = out / "runs" / final[1].at("run_id");
    const std::string kept = ReadFile(out / "runs" / final[0].at("run_id") / "run.json");
    std::filesystem::remove(rerun / "run.json");
    r = RunTool("sweep.py",
                "sweep.json --out out --backend slurm --no-wait " + FedranArg(),
                dir.Path(),
                cluster.Env());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_NE(r.stderrText.find("1 already finished, 1 to run"), std::string::npos);
    EXPECT_NE(r.stderrText.find("submitted array job"), std::string::npos) << r.stderrText;
    ASSERT_TRUE(cluster.WaitUntilIdle()) << cluster.Logs();
    r = RunTool("sweep.py", "collect out", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_TRUE(std::filesystem::exists(rerun / "run.json"));
    EXPECT_EQ(ReadFile(out / "runs" / final[0].at("run_id") / "run.json"), kept);
    EXPECT_EQ(ReadCsv(out / "final.csv").size(), 2u);
}

TEST(SweepSlurmTest, SlowSubmitsFromAFolderWithASpaceInItsName)
{
    // The job script names the output folder in #SBATCH --output (read by sbatch) and in the
    // task's command line (read by sh); a space, a quote or a # must survive both.
    const std::string unavailable = SlurmCluster::Unavailable();
    if (!unavailable.empty())
    {
        GTEST_SKIP() << "no local Slurm: " << unavailable;
    }
    TempDir dir("slurm-space");
    SlurmCluster cluster(dir.Path() / "cluster");
    ASSERT_TRUE(cluster.WaitUntilReady()) << cluster.Logs();
    const std::filesystem::path work = dir.Path() / "my study";
    std::filesystem::create_directories(work);
    WriteTinySweep(work,
                   {{"name", "spaced"}, {"grid", {{"compression.uplink", {{{"type", "none"}}}}}}});
    ToolResult r =
        RunTool("sweep.py",
                "sweep.json --out \"out dir #1's\" --backend slurm --poll 0.5 " + FedranArg(),
                work,
                cluster.Env());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText << cluster.Logs();
    const std::filesystem::path out = work / "out dir #1's";
    const auto final = ReadCsv(out / "final.csv");
    ASSERT_EQ(final.size(), 1u);
    EXPECT_EQ(final[0].at("status"), "done") << final[0].at("error");
    // The task's log went where --output said, inside the spaced folder.
    std::string logs;
    std::string script;
    for (const auto& entry : std::filesystem::directory_iterator(out / "slurm"))
    {
        const std::string name = entry.path().filename().string();
        if (name.ends_with(".out"))
        {
            logs += ReadFile(entry.path());
        }
        if (name.starts_with("job-"))
        {
            script += ReadFile(entry.path());
        }
    }
    EXPECT_NE(logs.find(final[0].at("run_id") + ": finished"), std::string::npos) << logs << script;
    EXPECT_NE(script.find("#SBATCH --output=\""), std::string::npos) << script;
}

} // namespace
} // namespace fedran::test
