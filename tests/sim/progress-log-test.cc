// What `fedran run` prints of its progress (simulator/core/progress-reporter.h), unless quiet.

#include "sim-test-util.h"

#include <gtest/gtest.h>

namespace ns3
{
namespace
{

TEST(ProgressReporterTest, FedranRunLogsProgressUnlessQuiet)
{
    fedran::test::TempDir dir("progress");
    fedran::test::WriteFile(dir.Path() / "s.json", fedran::test::TinyScenario(4, 2, 2).dump());
    fedran::test::CommandResult r = fedran::test::RunFedran("run s.json --out a", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_NE(r.stderrText.find("round 1/2  accuracy "), std::string::npos) << r.stderrText;
    EXPECT_NE(r.stderrText.find("round 2/2  accuracy "), std::string::npos) << r.stderrText;
    r = fedran::test::RunFedran("run s.json --out b --quiet", dir.Path());
    ASSERT_EQ(r.exitCode, 0);
    EXPECT_EQ(r.stderrText, "");
}

} // namespace
} // namespace ns3
