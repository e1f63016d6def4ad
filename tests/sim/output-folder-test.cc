// Output folders (docs/reliability.md, "Output folders"): one run at a time per folder (a lock
// naming its holder, a dead holder's lock taken over), a finished run never replaced without
// --overwrite, and only fedran's own files ever removed, on success or failure.

#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace fedran::test
{
namespace
{

namespace fs = std::filesystem;

/// Waits until `path` exists (true) or the process ended first (false).
bool
WaitForFile(pid_t pid, const fs::path& path)
{
    while (!fs::exists(path))
    {
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid)
        {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
}

std::string
Status(const fs::path& run)
{
    return nlohmann::json::parse(ReadFile(run / "run.json"))["status"].get<std::string>();
}

TEST(OutputFolder, ASecondRunIntoTheFolderIsRefusedWhileTheFirstRunsNamingTheHolder)
{
    TempDir dir("busy");
    WriteFile(dir.Path() / "s.json", TinyScenario(6, 3, 2000).dump());
    const pid_t first = StartFedranRun(dir.Path());
    // Once run.json exists the first run holds the lock; stopped there, it is still running
    // whatever the machine's speed.
    ASSERT_TRUE(WaitForFile(first, dir.Path() / "out" / "run.json"))
        << ReadFile(dir.Path() / "stderr.txt");
    kill(first, SIGSTOP);
    const std::string rounds = ReadFile(dir.Path() / "out" / "rounds.csv");

    const CommandResult second = RunFedran("run s.json --out out --quiet", dir.Path());
    EXPECT_EQ(second.exitCode, 2) << second.stderrText;
    EXPECT_NE(second.stderrText.find("is in use by the run of pid " + std::to_string(first)),
              std::string::npos)
        << second.stderrText;
    EXPECT_NE(second.stderrText.find("fedran.lock"), std::string::npos) << second.stderrText;
    // The second run touched nothing of the first's.
    EXPECT_EQ(ReadFile(dir.Path() / "out" / "rounds.csv"), rounds);
    EXPECT_EQ(Status(dir.Path() / "out"), "running");

    kill(first, SIGCONT);
    kill(first, SIGTERM);
    EXPECT_EQ(WaitForExit(first), 128 + SIGTERM) << ReadFile(dir.Path() / "stderr.txt");
    EXPECT_EQ(Status(dir.Path() / "out"), "interrupted");
    EXPECT_FALSE(fs::exists(dir.Path() / "out" / "fedran.lock")) << "released at the end";
}

TEST(OutputFolder, AKilledRunsStaleLockIsTakenOverAndItsRunningFolderReplaced)
{
    TempDir dir("stale");
    WriteFile(dir.Path() / "s.json", TinyScenario(6, 3, 2000).dump());
    const pid_t killed = StartFedranRun(dir.Path());
    ASSERT_TRUE(WaitForFile(killed, dir.Path() / "out" / "run.json"))
        << ReadFile(dir.Path() / "stderr.txt");
    kill(killed, SIGKILL);
    EXPECT_EQ(WaitForExit(killed), 128 + SIGKILL);
    ASSERT_TRUE(fs::exists(dir.Path() / "out" / "fedran.lock")) << "a kill leaves the file";
    EXPECT_EQ(Status(dir.Path() / "out"), "running");

    WriteFile(dir.Path() / "s.json", TinyScenario(4, 2, 2).dump());
    const CommandResult r = RunFedran("run s.json --out out --quiet", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_NE(r.stderrText.find("taking over the stale lock of pid " + std::to_string(killed)),
              std::string::npos)
        << r.stderrText;
    EXPECT_NE(r.stderrText.find("holds a killed run"), std::string::npos) << r.stderrText;
    EXPECT_EQ(Status(dir.Path() / "out"), "completed");
    EXPECT_EQ(ReadCsv(dir.Path() / "out" / "rounds.csv").size(), 2u);
    EXPECT_FALSE(fs::exists(dir.Path() / "out" / "fedran.lock"));
}

TEST(OutputFolder, ACompletedRunIsNotReplacedWithoutOverwriteWhichRemovesOnlyItsFiles)
{
    TempDir dir("rerun");
    nlohmann::json scenario = TinyScenario(4, 2, 3);
    scenario["output"] = {{"link_sample_s", 1.0}};
    WriteFile(dir.Path() / "s.json", scenario.dump());
    ASSERT_EQ(RunFedran("run s.json --out out --quiet", dir.Path()).exitCode, 0);
    const fs::path out = dir.Path() / "out";
    ASSERT_TRUE(fs::exists(out / "links.csv"));
    WriteFile(out / "notes.txt", "my notes\n");
    const std::string manifest = ReadFile(out / "run.json");

    scenario["rounds"] = 2;
    scenario["output"]["link_sample_s"] = 0; // the new run writes no links.csv
    WriteFile(dir.Path() / "s.json", scenario.dump());
    CommandResult r = RunFedran("run s.json --out out --quiet", dir.Path());
    EXPECT_EQ(r.exitCode, 2) << r.stderrText;
    EXPECT_NE(r.stderrText.find("holds a completed run"), std::string::npos) << r.stderrText;
    EXPECT_NE(r.stderrText.find("--overwrite"), std::string::npos) << r.stderrText;
    EXPECT_EQ(ReadFile(out / "run.json"), manifest) << "refused: nothing touched";
    EXPECT_EQ(ReadCsv(out / "rounds.csv").size(), 3u);

    r = RunFedran("run s.json --out out --quiet --overwrite", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_EQ(ReadCsv(out / "rounds.csv").size(), 2u);
    EXPECT_FALSE(fs::exists(out / "links.csv")) << "the previous run's file is removed";
    EXPECT_EQ(ReadFile(out / "notes.txt"), "my notes\n") << "a user's file stays";
    EXPECT_EQ(Status(out), "completed");
}

TEST(OutputFolder, AUsersFileSurvivesAFailedRunAndRunJsonSaysFailed)
{
    TempDir dir("failed");
    WriteFile(dir.Path() / "s.json", TinyScenario(4, 2, 2).dump());
    const fs::path out = dir.Path() / "out";
    fs::create_directories(out / "clients.csv"); // a folder where the trace goes: writing fails
    WriteFile(out / "notes.txt", "my notes\n");
    const CommandResult r = RunFedran("run s.json --out out --quiet", dir.Path());
    EXPECT_EQ(r.exitCode, 1) << r.stderrText;
    EXPECT_NE(r.stderrText.find("clients.csv: Is a directory"), std::string::npos) << r.stderrText;
    EXPECT_EQ(ReadFile(out / "notes.txt"), "my notes\n");
    EXPECT_TRUE(fs::is_directory(out / "clients.csv"));
    const auto manifest = nlohmann::json::parse(ReadFile(out / "run.json"));
    EXPECT_EQ(manifest["status"], "failed");
    EXPECT_NE(manifest["error"].get<std::string>().find("clients.csv"), std::string::npos);
    // The half-written traces are gone; the run can be run again without --overwrite.
    EXPECT_FALSE(fs::exists(out / "partition.csv"));
    EXPECT_FALSE(fs::exists(out / "rounds.csv"));
    EXPECT_FALSE(fs::exists(out / "fedran.lock"));
    fs::remove(out / "clients.csv");
    const CommandResult again = RunFedran("run s.json --out out --quiet", dir.Path());
    EXPECT_EQ(again.exitCode, 0) << again.stderrText;
    EXPECT_EQ(Status(out), "completed");
    EXPECT_EQ(ReadFile(out / "notes.txt"), "my notes\n");
}

TEST(OutputFolder, BadInputLeavesNoFolderAndAFolderOfOthersUntouched)
{
    TempDir dir("nothing");
    nlohmann::json scenario = TinyScenario(4, 2, 2);
    scenario["data"]["path"] = "/nonexistent";
    WriteFile(dir.Path() / "s.json", scenario.dump());
    CommandResult r = RunFedran("run s.json --out out --quiet", dir.Path());
    EXPECT_EQ(r.exitCode, 2) << r.stderrText;
    EXPECT_FALSE(fs::exists(dir.Path() / "out"));

    fs::create_directories(dir.Path() / "mine");
    WriteFile(dir.Path() / "mine" / "notes.txt", "x");
    r = RunFedran("run s.json --out mine --quiet", dir.Path());
    EXPECT_EQ(r.exitCode, 2) << r.stderrText;
    EXPECT_EQ(fs::directory_iterator(dir.Path() / "mine")->path().filename(), "notes.txt");
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.Path() / "mine"), fs::directory_iterator()),
              1);
}

} // namespace
} // namespace fedran::test
