// docs/traces.md's column tables are the trace table's (analysis/trace_doc.py --check), and
// analysis/trace_schema.py reads the same table: the golden traces pass its --check, and a
// header out of order or missing a column fails it, naming the file and the column.

#include "workflow-test-util.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

const std::string kSource = FEDRAN_SOURCE_DIR;

TEST(TraceDoc, TracesMdIsUpToDate)
{
    TempDir dir("trace-doc");
    const ToolResult r = RunTool("trace_doc.py", "--check", dir.Path());
    EXPECT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_EQ(r.stderrText, "");
}

TEST(TraceDoc, CheckFailsOnAStaleTableAndWriteRepairsIt)
{
    TempDir dir("trace-doc-stale");
    std::string doc = ReadFile(kSource + "/docs/traces.md");
    const std::string row = "| `sim_time_s` | number | s |";
    const size_t at = doc.find(row);
    ASSERT_NE(at, std::string::npos) << "docs/traces.md has no generated rounds.csv table";
    doc.replace(at, row.size(), "| `sim_time_s` | integer | s |");
    WriteFile(dir.Path() / "traces.md", doc);

    ToolResult r = RunTool("trace_doc.py", "--check --doc traces.md", dir.Path());
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(
        r.stderrText.find("traces.md: column tables differ from models/trace/trace-columns.cc: "
                          "run /usr/bin/python3 analysis/trace_doc.py --write"),
        std::string::npos)
        << r.stderrText;

    r = RunTool("trace_doc.py", "--write --doc traces.md", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_EQ(ReadFile(dir.Path() / "traces.md"), ReadFile(kSource + "/docs/traces.md"));

    // A file of the table without its markers.
    const std::string end = "<!-- trace-columns:end links.csv -->";
    doc = ReadFile(dir.Path() / "traces.md");
    doc.erase(doc.find(end), end.size());
    WriteFile(dir.Path() / "traces.md", doc);
    r = RunTool("trace_doc.py", "--check --doc traces.md", dir.Path());
    EXPECT_NE(r.exitCode, 0);
    EXPECT_NE(r.stderrText.find("no markers for links.csv"), std::string::npos) << r.stderrText;
}

TEST(TraceSchemaPy, GoldenTracesFitTheTable)
{
    TempDir dir("trace-schema-golden");
    const ToolResult r =
        RunTool("trace_schema.py", "--check '" + kSource + "'/tests/golden/*/*.csv", dir.Path());
    EXPECT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_EQ(r.stderrText, "");
}

TEST(TraceSchemaPy, HeadersOutOfOrderOrMissingAColumnFail)
{
    TempDir dir("trace-schema-bad");
    const std::string golden = ReadFile(kSource + "/tests/golden/quickstart/rounds.csv");
    const std::string header = golden.substr(0, golden.find('\n'));
    ASSERT_EQ(header + "\n", TraceHeaderLine("rounds.csv"));

    // Two columns swapped: same names, another order.
    std::string swapped = golden;
    const std::string pair = "sim_time_s,round_duration_s";
    ASSERT_EQ(swapped.find(pair), header.find(pair));
    swapped.replace(swapped.find(pair), pair.size(), "round_duration_s,sim_time_s");
    std::filesystem::create_directories(dir.Path() / "swapped");
    WriteFile(dir.Path() / "swapped" / "rounds.csv", swapped);
    ToolResult r = RunTool("trace_schema.py", "--check swapped/rounds.csv", dir.Path());
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.stderrText.find("trace_schema: swapped/rounds.csv: columns out of order"),
              std::string::npos)
        << r.stderrText;

    // A column renamed: one missing, one the table does not know.
    std::string renamed = golden;
    renamed.replace(renamed.find("test_loss"), 9, "loss");
    std::filesystem::create_directories(dir.Path() / "renamed");
    WriteFile(dir.Path() / "renamed" / "rounds.csv", renamed);
    r = RunTool("trace_schema.py", "--check renamed/rounds.csv", dir.Path());
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.stderrText.find("renamed/rounds.csv: missing column(s) test_loss"),
              std::string::npos)
        << r.stderrText;
    EXPECT_NE(r.stderrText.find("column(s) not in the trace table: loss"), std::string::npos)
        << r.stderrText;
}

TEST(TraceSchemaPy, APlotScriptNamesTheTraceAndTheColumnItMisses)
{
    TempDir dir("trace-schema-plot");
    WriteFile(dir.Path() / "rounds.csv",
              TraceHeaderLine("rounds.csv", {"round", "sim_time_s", "test_accuracy"}) +
                  "1,1.5,0.70\n");
    const ToolResult r = RunTool("plot_run.py", ".", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("plot_run: ./rounds.csv: missing column(s) cumulative_wire_bytes"),
              std::string::npos)
        << r.stderrText;
}

} // namespace
} // namespace fedran::test
