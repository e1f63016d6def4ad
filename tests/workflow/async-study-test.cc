// analysis/async_study.py on a real sweep of the tiny scenario: synchronous rounds against
// FedBuff, one seed each: the table names both settings with their final accuracies, the two
// figures are written, and a folder that is not a collected sweep exits 2.

#include "workflow-test-util.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

TEST(AsyncStudy, TableAndFiguresFromASyncAgainstFedBuffSweep)
{
    TempDir dir("async-study");
    const nlohmann::json sync = {{"clients_per_round", 2}, {"mode", "sync"}};
    const nlohmann::json fedbuff = {
        {"clients_per_round", 2},
        {"mode", "async"},
        {"async",
         {{"buffer", 2}, {"concurrency", 3}, {"staleness", {{"type", "polynomial"}, {"a", 0.5}}}}}};
    WriteTinySweep(dir.Path(),
                   {{"name", "tiny-async"},
                    {"zip", {{{"server", {sync, fedbuff}}, {"rounds", {2, 2}}}}},
                    {"seeds", 1}});
    ToolResult r = RunTool("sweep.py",
                           "sweep.json --out out --jobs 2 --targets 0.8,0.85 " + FedranArg(),
                           dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;

    r = RunTool("async_study.py", "out --figures figs --csv table.csv", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_NE(r.stdoutText.find("| out | sync | 1 |"), std::string::npos) << r.stdoutText;
    EXPECT_NE(r.stdoutText.find("| out | FedBuff K=2 | 1 |"), std::string::npos) << r.stdoutText;
    EXPECT_GT(std::filesystem::file_size(dir.Path() / "figs" / "async-accuracy.png"), 10'000u);
    EXPECT_GT(std::filesystem::file_size(dir.Path() / "figs" / "async-staleness.png"), 10'000u);
    const std::string table = ReadFile(dir.Path() / "table.csv");
    EXPECT_NE(table.find("reached_0.8"), std::string::npos) << table;

    std::filesystem::create_directories(dir.Path() / "empty");
    r = RunTool("async_study.py", "empty --figures figs", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("final.csv"), std::string::npos) << r.stderrText;
}

} // namespace
} // namespace fedran::test
