// The progress line of `fedran run`: updating line on a terminal, sparse lines in logs
// (tests/sim/progress-log-test.cc: what a run prints).

#include "simulator/core/progress-reporter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

namespace ns3
{
namespace
{

/// Reports `rounds` rounds of a 10-round run through a reporter writing to a temp file.
std::string
Report(ProgressReporter::Mode mode, uint32_t rounds, double intervalS)
{
    std::FILE* out = std::tmpfile();
    ProgressReporter reporter(out, mode, 10, intervalS);
    RunTotals totals;
    for (uint32_t r = 1; r <= rounds; ++r)
    {
        fedran::RoundRecord record;
        record.round = r;
        record.endS = 1.5 * r;
        record.testAccuracy = 0.5 + 0.01 * r;
        totals.uplinkWireBytes += 2'000'000;
        totals.downlinkWireBytes += 1'000'000;
        reporter.RoundEnded(record, totals);
    }
    reporter.Finish();
    std::string text(static_cast<size_t>(std::ftell(out)), '\0');
    std::rewind(out);
    EXPECT_EQ(std::fread(text.data(), 1, text.size(), out), text.size());
    std::fclose(out);
    return text;
}

TEST(ProgressReporterTest, TerminalRewritesOneLineEveryRound)
{
    const std::string text = Report(ProgressReporter::Mode::TERMINAL, 10, 1e9);
    EXPECT_EQ(std::count(text.begin(), text.end(), '\r'), 10);
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << "only Finish ends the line";
    EXPECT_NE(text.find("round 3/10  accuracy 0.5300  sim 4.5 s  uplink 6.00 MB  total 9.00 MB"
                        "  ETA "),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("round 10/10  accuracy 0.6000"), std::string::npos);
    EXPECT_NE(text.find("wall "), std::string::npos) << "the last round shows the wall time";
}

TEST(ProgressReporterTest, LogsGetTheFirstAndLastRoundAndAtMostOneLinePerInterval)
{
    const std::string text = Report(ProgressReporter::Mode::LINES, 10, 1e9);
    EXPECT_EQ(text.find('\r'), std::string::npos);
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2) << text;
    EXPECT_EQ(text.find("round 1/10"), 0u) << text;
    EXPECT_NE(text.find("round 10/10"), std::string::npos) << text;

    // With no interval every round gets its line.
    const std::string every = Report(ProgressReporter::Mode::LINES, 4, 0.0);
    EXPECT_EQ(std::count(every.begin(), every.end(), '\n'), 4) << every;
}

TEST(ProgressReporterTest, QuietWritesNothing)
{
    EXPECT_EQ(Report(ProgressReporter::Mode::QUIET, 10, 0.0), "");
    EXPECT_EQ(ProgressReporter::ModeFor(-1, true), ProgressReporter::Mode::QUIET);
    EXPECT_EQ(ProgressReporter::ModeFor(-1, false), ProgressReporter::Mode::LINES);
}

} // namespace
} // namespace ns3
