// What a run leaves behind when it is killed or interrupted (docs/reliability.md): run.json
// says "running" from the start, so a SIGKILL leaves it that way; SIGINT / SIGTERM stop at
// the next event, leave "interrupted" with the last complete round and exit 130 / 143; the
// CSV files hold whole rows of finished rounds only.

#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <set>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace fedran::test
{
namespace
{

size_t
LineCount(const std::filesystem::path& path)
{
    std::ifstream in(path);
    size_t n = 0;
    std::string line;
    while (std::getline(in, line))
    {
        ++n;
    }
    return n;
}

/// Waits until rounds.csv has `rounds` rows (true), or the process ended first (false).
bool
WaitForRounds(pid_t pid, const std::filesystem::path& out, size_t rounds)
{
    while (LineCount(out / "rounds.csv") < rounds + 1)
    {
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid)
        {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

/// Every line of a CSV file is whole: ends with a newline and has the header's cell count
/// (no cell of these runs is quoted). Returns the rows' first cells (the round).
std::vector<uint32_t>
ExpectWholeRows(const std::filesystem::path& path)
{
    const std::string text = ReadFile(path);
    EXPECT_FALSE(text.empty()) << path;
    EXPECT_EQ(text.back(), '\n') << path << ": the last row is cut";
    std::stringstream lines(text);
    std::string line;
    std::getline(lines, line);
    const auto cells = [](const std::string& l) {
        return std::count(l.begin(), l.end(), ',');
    };
    const auto header = cells(line);
    std::vector<uint32_t> rounds;
    while (std::getline(lines, line))
    {
        EXPECT_EQ(cells(line), header) << path << ": " << line;
        rounds.push_back(static_cast<uint32_t>(std::stoul(line.substr(0, line.find(',')))));
    }
    return rounds;
}

/// A run long enough to be caught mid-way: many short rounds of a small scenario.
void
WriteLongScenario(const std::filesystem::path& dir)
{
    nlohmann::json s = TinyScenario(6, 3, 2000);
    WriteFile(dir / "s.json", s.dump());
}

TEST(Interrupt, SigkillMidRoundLeavesRunJsonRunningAndOnlyWholeRows)
{
    TempDir dir("sigkill");
    WriteLongScenario(dir.Path());
    const pid_t pid = StartFedranRun(dir.Path());
    const std::filesystem::path out = dir.Path() / "out";
    ASSERT_TRUE(WaitForRounds(pid, out, 3)) << ReadFile(dir.Path() / "stderr.txt");
    kill(pid, SIGKILL);
    EXPECT_EQ(WaitForExit(pid), 128 + SIGKILL);

    const auto manifest = nlohmann::json::parse(ReadFile(out / "run.json"));
    EXPECT_EQ(manifest["status"], "running");
    EXPECT_FALSE(manifest.contains("result"));
    EXPECT_EQ(manifest["scenario"]["rounds"], 2000);
    const std::vector<uint32_t> rounds = ExpectWholeRows(out / "rounds.csv");
    ASSERT_GE(rounds.size(), 3u);
    for (size_t i = 0; i < rounds.size(); ++i)
    {
        EXPECT_EQ(rounds[i], i + 1);
    }
    // clients.csv is written out just before rounds.csv at a round's end: at most the round
    // after rounds.csv's last can be there, and only whole rows of it.
    for (uint32_t round : ExpectWholeRows(out / "clients.csv"))
    {
        EXPECT_LE(round, rounds.size() + 1);
    }
}

class InterruptBySignal : public ::testing::TestWithParam<int>
{
};

TEST_P(InterruptBySignal, StopsAtTheNextEventWritesInterruptedAndExits128PlusSignal)
{
    const int signal = GetParam();
    TempDir dir("sigterm");
    WriteLongScenario(dir.Path());
    const pid_t pid = StartFedranRun(dir.Path());
    const std::filesystem::path out = dir.Path() / "out";
    ASSERT_TRUE(WaitForRounds(pid, out, 3)) << ReadFile(dir.Path() / "stderr.txt");
    kill(pid, signal);
    EXPECT_EQ(WaitForExit(pid), 128 + signal) << ReadFile(dir.Path() / "stderr.txt");

    const auto manifest = nlohmann::json::parse(ReadFile(out / "run.json"));
    EXPECT_EQ(manifest["status"], "interrupted");
    EXPECT_EQ(manifest["interrupted_by"], signal == SIGINT ? "SIGINT" : "SIGTERM");
    const std::vector<uint32_t> rounds = ExpectWholeRows(out / "rounds.csv");
    ASSERT_GE(rounds.size(), 3u);
    EXPECT_LT(rounds.size(), 2000u);
    EXPECT_EQ(manifest["last_complete_round"], rounds.size());
    EXPECT_EQ(manifest["result"]["rounds"], rounds.size());
    // Every selected client of every complete round has its row, and nothing of the round
    // that was cut off.
    std::set<uint32_t> seen;
    for (uint32_t round : ExpectWholeRows(out / "clients.csv"))
    {
        EXPECT_LE(round, rounds.size());
        seen.insert(round);
    }
    EXPECT_EQ(seen.size(), rounds.size());
    EXPECT_NE(ReadFile(dir.Path() / "stderr.txt").find("interrupted by"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Signals,
                         InterruptBySignal,
                         ::testing::Values(SIGINT, SIGTERM),
                         [](const ::testing::TestParamInfo<int>& info) {
                             return info.param == SIGINT ? std::string("Sigint")
                                                         : std::string("Sigterm");
                         });

TEST(Interrupt, ACompletedRunSaysCompleted)
{
    TempDir dir("completed");
    WriteFile(dir.Path() / "s.json", TinyScenario(4, 2, 2).dump());
    ASSERT_EQ(RunFedran("run s.json --out out --quiet", dir.Path()).exitCode, 0);
    const auto manifest = nlohmann::json::parse(ReadFile(dir.Path() / "out" / "run.json"));
    EXPECT_EQ(manifest["status"], "completed");
    EXPECT_EQ(manifest["result"]["rounds"], 2);
    EXPECT_FALSE(std::filesystem::exists(dir.Path() / "out" / "run.json.tmp"));
}

} // namespace
} // namespace fedran::test
