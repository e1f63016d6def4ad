// A run folder's record of its own files (outputs.txt): the plot scripts add their figures,
// so `fedran run --overwrite` removes the previous run's traces and plots and nothing else
// (docs/reliability.md, "Output folders"); a sweep file that is a FIFO is refused at once.

#include "workflow-test-util.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

namespace fedran::test
{
namespace
{

namespace fs = std::filesystem;

TEST(RunFolder, OverwriteRemovesThePreviousRunsTracesAndPlotsAndNothingElse)
{
    TempDir dir("run-folder");
    WriteFile(dir.Path() / "s.json", TinyScenario(4, 2, 3).dump());
    CommandResult r = RunFedran("run s.json --out out --quiet", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    const fs::path out = dir.Path() / "out";
    ToolResult plot = RunTool("plot_run.py", "out", dir.Path());
    ASSERT_EQ(plot.exitCode, 0) << plot.stderrText;
    plot = RunTool("plot.py", "out --formats png", dir.Path());
    ASSERT_EQ(plot.exitCode, 0) << plot.stderrText;
    ASSERT_TRUE(fs::exists(out / "accuracy.svg"));
    ASSERT_TRUE(fs::exists(out / "plots" / "accuracy-vs-round.png"));
    const std::string record = ReadFile(out / "outputs.txt");
    for (const char* name :
         {"run.json\n", "rounds.csv\n", "accuracy.svg\n", "plots/accuracy-vs-round.png\n"})
    {
        EXPECT_NE(record.find(name), std::string::npos) << name << " not in\n" << record;
    }
    WriteFile(out / "notes.txt", "mine\n");
    WriteFile(out / "plots" / "my-figure.svg", "<svg/>");

    r = RunFedran("run s.json --out out --quiet --set rounds=2", dir.Path());
    EXPECT_EQ(r.exitCode, 2) << r.stderrText;
    EXPECT_TRUE(fs::exists(out / "accuracy.svg"));

    r = RunFedran("run s.json --out out --quiet --set rounds=2 --overwrite", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_FALSE(fs::exists(out / "accuracy.svg")) << "a plot of the data that is gone";
    EXPECT_FALSE(fs::exists(out / "plots" / "accuracy-vs-round.png"));
    EXPECT_EQ(ReadFile(out / "notes.txt"), "mine\n");
    EXPECT_EQ(ReadFile(out / "plots" / "my-figure.svg"), "<svg/>");
    EXPECT_EQ(ReadCsv(out / "rounds.csv").size(), 2u);
    EXPECT_EQ(ReadFile(out / "outputs.txt").find("accuracy.svg"), std::string::npos);
}

TEST(RunFolder, ASweepFileThatIsAFifoIsRefusedAtOnce)
{
    TempDir dir("sweep-fifo");
    ASSERT_EQ(mkfifo((dir.Path() / "sweep.json").c_str(), 0644), 0);
    const ToolResult r = RunTool("sweep.py", "sweep.json --dry-run", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("sweep.json: is a FIFO, not a sweep file"), std::string::npos)
        << r.stderrText;
}

} // namespace
} // namespace fedran::test
