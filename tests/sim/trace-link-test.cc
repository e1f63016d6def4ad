// The trace link replays its file: throughput measured per interval follows the trace's rate
// (within 10%) for CSV and Mahimahi traces, loops, and a bad file is a bad-input exit naming
// the file and line.

#include "link-harness.h"
#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <sstream>

namespace fedran::test
{
namespace
{

using nlohmann::json;

/// Checks every sampled interval that lies inside one step of `steps` (start s, rate bit/s),
/// skipping the first half second of each step, where queues and TCP adjust to the new rate.
void
ExpectFollows(const std::vector<LinkSample>& samples,
              const std::vector<std::pair<double, double>>& steps,
              double periodS)
{
    int checked = 0;
    for (const LinkSample& s : samples)
    {
        const double start = std::fmod(s.startS, periodS);
        const double end = start + (s.timeS - s.startS);
        for (size_t i = 0; i < steps.size(); ++i)
        {
            const double stepEnd = i + 1 < steps.size() ? steps[i + 1].first : periodS;
            if (start + 1e-9 >= steps[i].first + 0.5 && end <= stepEnd + 1e-9)
            {
                EXPECT_NEAR(s.throughputBps, steps[i].second, 0.1 * steps[i].second)
                    << "interval ending at " << s.timeS << " s";
                ++checked;
            }
        }
    }
    EXPECT_GE(checked, 6);
}

TEST(TraceLink, CsvThroughputFollowsTheTraceAndLoops)
{
    TempDir dir("trace");
    WriteFile(dir.Path() / "steps.csv",
              "time_s,rate_bps,delay_ms\n0,8000000,5\n2,2000000,20\n4,5000000,5\n");
    LinkRunOptions options;
    options.durationS = 10.0;
    options.intervalS = 0.5;
    auto samples =
        RunLink({{"type", "trace"}, {"file", (dir.Path() / "steps.csv").string()}}, options);
    ExpectFollows(samples, {{0, 8e6}, {2, 2e6}, {4, 5e6}}, 6.0);
    EXPECT_EQ(samples.back().capacityBps, 5000000u); // at 10 s the second loop is at 4 s
}

TEST(TraceLink, MahimahiThroughputFollowsTheOpportunities)
{
    TempDir dir("mahimahi");
    std::ostringstream text;
    // 2 s with an opportunity every ms (12 Mbit/s), then 2 s with one every 4 ms (3 Mbit/s).
    for (int ms = 1; ms <= 2000; ++ms)
    {
        text << ms << "\n";
    }
    for (int ms = 2004; ms <= 4000; ms += 4)
    {
        text << ms << "\n";
    }
    WriteFile(dir.Path() / "link.mahi", text.str());
    LinkRunOptions options;
    options.durationS = 6.0;
    options.intervalS = 0.5;
    auto samples = RunLink({{"type", "trace"},
                            {"format", "mahimahi"},
                            {"bin_s", 0.5},
                            {"file", (dir.Path() / "link.mahi").string()}},
                           options);
    ExpectFollows(samples, {{0, 12e6}, {2, 3e6}}, 4.0);
}

TEST(TraceLink, BadTraceFileExitsTwoNamingFileAndLine)
{
    TempDir dir("badtrace");
    WriteFile(dir.Path() / "bad.csv", "time_s,rate_bps\n0,1000000\n1,fast\n");
    json scenario = TinyScenario(2, 2, 1);
    scenario["clients"]["groups"][0]["backhaul"] = {{"type", "trace"}, {"file", "bad.csv"}};
    WriteFile(dir.Path() / "s.json", scenario.dump());
    CommandResult r = RunFedran("run s.json --out out --quiet", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("clients.groups.0.backhaul.file: bad.csv:3: rate_bps \"fast\""),
              std::string::npos)
        << r.stderrText;
    EXPECT_FALSE(std::filesystem::exists(dir.Path() / "out"));

    WriteFile(dir.Path() / "bad.csv", "0,1000000\n2,500000\n1,300000\n");
    r = RunFedran("validate s.json", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("bad.csv:3: time_s must increase"), std::string::npos)
        << r.stderrText;
    std::filesystem::remove(dir.Path() / "bad.csv");
    r = RunFedran("validate s.json", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("bad.csv: cannot open"), std::string::npos) << r.stderrText;
}

} // namespace
} // namespace fedran::test
