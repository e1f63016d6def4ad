// analysis/abr_study.py on a hand-written sweep folder: per configuration the share of updates
// meeting the deadline, of client-rounds with an update in time, and the time and bytes to the
// target, as mean ± spread over seeds; the figures; a folder without the target exits 2.

#include "workflow-test-util.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

const char* kFixedNone = R"({"type":"adaptive","policy":"fixed","rung":0,)"
                         R"("ladder":[{"type":"none"},{"type":"sign"}]})";
const char* kDeadline = R"({"type":"adaptive","policy":"deadline",)"
                        R"("ladder":[{"type":"none"},{"type":"sign"}]})";

std::string
Quoted(const std::string& json)
{
    std::string out = "\"";
    for (char c : json)
    {
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    }
    return out + "\"";
}

/// Two configurations x two seeds, 2 rounds of 2 clients each.
void
WriteSweep(const std::filesystem::path& dir)
{
    std::string final = "run_id,seed,compression.uplink,rounds,final_accuracy,time_to_0.8_s,"
                        "uplink_bytes_to_0.8\n";
    std::string summary = "run_id,label,seed,compression.uplink,round,sim_time_s,test_accuracy,"
                          "cumulative_uplink_wire_bytes\n";
    struct Run
    {
        std::string id;
        const char* uplink;
        int seed;
        std::string time;
        std::string bytes;
        std::string clients; // rows after the header
    };
    const std::vector<Run> runs = {
        {"none-s1",
         kFixedNone,
         1,
         "10",
         "1000000",
         "1,0,completed,1\n1,1,late,0\n2,0,completed,1\n"},
        {"none-s2", kFixedNone, 2, "", "", "1,0,completed,1\n1,1,late,0\n2,0,completed,1\n"},
        {"dl-s1",
         kDeadline,
         1,
         "20",
         "400000",
         "1,0,completed,1\n1,1,completed,1\n2,0,completed,1\n2,1,completed,1\n"},
        {"dl-s2",
         kDeadline,
         2,
         "30",
         "600000",
         "1,0,completed,1\n1,1,completed,1\n2,0,completed,1\n2,1,late,0\n"},
    };
    for (const Run& run : runs)
    {
        final += run.id + "," + std::to_string(run.seed) + "," + Quoted(run.uplink) + ",2,0.81," +
                 run.time + "," + run.bytes + "\n";
        for (int round = 1; round <= 2; ++round)
        {
            summary += run.id + ",x," + std::to_string(run.seed) + "," + Quoted(run.uplink) + "," +
                       std::to_string(round) + "," + std::to_string(5 * round) + ",0." +
                       std::to_string(7 + round) + "," + std::to_string(300 * round) + "\n";
        }
        std::filesystem::create_directories(dir / "runs" / run.id);
        WriteFile(dir / "runs" / run.id / "clients.csv",
                  TraceHeaderLine("clients.csv", {"round", "client", "status", "deadline_met"}) +
                      run.clients);
    }
    WriteFile(dir / "final.csv", final);
    WriteFile(dir / "summary.csv", summary);
}

TEST(AbrStudySummaryTest, MeanAndSpreadPerConfigurationAndFigures)
{
    TempDir dir("abr-summary");
    WriteSweep(dir.Path());
    ToolResult r = RunTool("abr_study.py", ". --figures figs --csv runs.csv", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    // fixed none: 2 of 3 sent updates in time in both seeds; 2 of 4 client-rounds; one seed
    // reached 0.8 (at 10 s, 1000 kB).
    EXPECT_NE(r.stdoutText.find("| fixed none | 2 (1/2 reached) | 66.7% ± 0.0% [66.7%–66.7%] | "
                                "50.0% ± 0.0% [50.0%–50.0%] | 10.0 | 1000 | 0.810 ± 0.000"),
              std::string::npos)
        << r.stdoutText;
    // deadline: 100% and 75% met; 20 and 30 s (mean 25, sd 7.1); 400 and 600 kB.
    EXPECT_NE(r.stdoutText.find("| deadline | 2 | 87.5% ± 17.7% [75.0%–100.0%] | "
                                "87.5% ± 17.7% [75.0%–100.0%] | 25.0 ± 7.1 [20.0–30.0] | "
                                "500 ± 141 [400–600] |"),
              std::string::npos)
        << r.stdoutText;
    EXPECT_EQ(ReadCsv(dir.Path() / "runs.csv").size(), 4u);
    for (const char* figure : {"accuracy-vs-time.png", "accuracy-vs-uplink.png"})
    {
        EXPECT_EQ(ReadFile(dir.Path() / "figs" / figure).substr(1, 3), "PNG") << figure;
    }

    r = RunTool("abr_study.py", ". --target 0.9", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("abr_study: ./final.csv: missing column(s) time_to_0.9_s"),
              std::string::npos)
        << r.stderrText;
}

} // namespace
} // namespace fedran::test
