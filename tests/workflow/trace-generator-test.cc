// scenarios/traces/make-lte-traces.py: the shipped LTE traces are its output, byte for byte,
// so the documented model and seed are the ones that made them.

#include "workflow-test-util.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace fedran::test
{
namespace
{

TEST(TraceGeneratorTest, RewritesTheShippedLteTracesByteForByte)
{
    TempDir dir("lte-traces");
    ToolResult r = RunTool("../scenarios/traces/make-lte-traces.py",
                           "--out '" + dir.Path().string() + "'",
                           dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    const std::filesystem::path shipped =
        std::filesystem::path(FEDRAN_SOURCE_DIR) / "scenarios" / "traces";
    for (const char* name : {"lte-uplink-good.csv",
                             "lte-uplink-edge.csv",
                             "lte-downlink-good.csv",
                             "lte-downlink-edge.csv"})
    {
        const std::string written = ReadFile(dir.Path() / name);
        EXPECT_EQ(written.substr(0, 25), "time_s,rate_bps,delay_ms\n") << name;
        EXPECT_EQ(std::count(written.begin(), written.end(), '\n'), 301) << name;
        EXPECT_EQ(written, ReadFile(shipped / name)) << name;
    }
}

} // namespace
} // namespace fedran::test
