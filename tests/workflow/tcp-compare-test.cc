// analysis/tcp_compare.py on real runs of the tiny scenario with two congestion controls: the
// figure is written and each run's medians are printed; a folder without traces exits 2.

#include "workflow-test-util.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

TEST(TcpCompare, FigureAndMediansFromTwoCongestionControls)
{
    TempDir dir("tcp-compare");
    WriteFile(dir.Path() / "s.json", TinyScenario(4, 2, 2).dump());
    for (const char* cc : {"cubic", "newreno"})
    {
        const CommandResult run = RunFedran(std::string("run s.json --quiet --out ") + cc +
                                                " --set network.tcp.congestion_control=" + cc,
                                            dir.Path());
        ASSERT_EQ(run.exitCode, 0) << run.stderrText;
    }
    ToolResult r = RunTool("tcp_compare.py",
                           "--case tiny cubic=cubic newreno=newreno --out fig.png",
                           dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_NE(r.stdoutText.find("tiny cubic uploads: 4 transfers"), std::string::npos)
        << r.stdoutText;
    EXPECT_NE(r.stdoutText.find("tiny newreno downloads: 4 transfers"), std::string::npos)
        << r.stdoutText;
    EXPECT_GT(std::filesystem::file_size(dir.Path() / "fig.png"), 10'000u);

    r = RunTool("tcp_compare.py", "--case tiny cubic=nowhere --out fig.png", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("nowhere: no rounds.csv"), std::string::npos) << r.stderrText;
    r = RunTool("tcp_compare.py", "--out fig.png", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
}

} // namespace
} // namespace fedran::test
