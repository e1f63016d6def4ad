// analysis/selection_study.py on a hand-written sweep folder: one regime of four sites, random
// and fedcs over two seeds, so the medians, the fairness figures and the ratios to random are
// known in advance.

#include "workflow-test-util.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

struct SelectionRun
{
    std::string id;
    std::string type;
    int seed;
    std::string time; // to 0.8, empty when never reached
    int wire;         // wire bytes to 0.8
    int energy;       // joules to 0.8
    std::string rows; // clients.csv rows after the header
};

void
WriteStudy(const std::filesystem::path& dir)
{
    // random selects each of the four sites once (Jain 1, none left out); fedcs selects
    // sites 0 and 1 twice and never 2 or 3 (Jain 16 / (4 x 8) = 0.5, half left out). A
    // late_arrival row repeats a selection and does not count.
    const std::string everyone = "1,0,completed\n1,1,completed\n2,2,completed\n2,3,late\n";
    const std::string two = "1,0,completed\n1,1,late\n2,0,completed\n2,1,completed\n"
                            "2,1,late_arrival\n";
    const std::vector<SelectionRun> runs = {
        {"random-1", "random", 1, "40", 8000000, 2000, everyone},
        {"random-2", "random", 2, "20", 4000000, 1000, everyone},
        {"fedcs-1", "fedcs", 1, "15", 3000000, 600, two},
        {"fedcs-2", "fedcs", 2, "", 0, 0, two},
    };
    std::string final = "run_id,status,seed,server.selection,rounds,final_accuracy,"
                        "time_to_0.8_s,rounds_to_0.8,wire_bytes_to_0.8,energy_to_0.8_j\n";
    const nlohmann::json scenario = {
        {"clients", {{"groups", {{{"name", "a"}, {"count", 3}}, {{"name", "b"}, {"count", 1}}}}}}};
    for (const SelectionRun& run : runs)
    {
        const bool reached = !run.time.empty();
        final += run.id + ",done," + std::to_string(run.seed) + ",\"{\"\"type\"\": \"\"" +
                 run.type + "\"\"}\",2,0.85," + run.time + "," + (reached ? "2" : "") + "," +
                 (reached ? std::to_string(run.wire) : "") + "," +
                 (reached ? std::to_string(run.energy) : "") + "\n";
        const std::filesystem::path runDir = dir / "runs" / run.id;
        std::filesystem::create_directories(runDir);
        WriteFile(runDir / "run.json", nlohmann::json{{"scenario", scenario}}.dump());
        WriteFile(runDir / "rounds.csv",
                  TraceHeaderLine("rounds.csv", {"round", "sim_time_s", "test_accuracy"}) +
                      "1,10,0.7\n2,20,0.8\n");
        WriteFile(runDir / "clients.csv",
                  TraceHeaderLine("clients.csv", {"round", "client", "status"}) + run.rows);
    }
    WriteFile(dir / "final.csv", final);
    WriteFile(dir / "plan.json", R"({"name": "sel"})");
}

TEST(SelectionStudyTest, MediansFairnessAndRatiosToRandom)
{
    TempDir dir("selection-study");
    WriteStudy(dir.Path());
    ToolResult r =
        RunTool("selection_study.py", ". --targets 0.8 --figures figs --csv t.csv", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    // random: 20 and 40 s (median 30), 4 and 8 MB (6), 1 and 2 kJ (1.5).
    EXPECT_NE(r.stdoutText.find("| sel | random | 2 (2/2 reached) | 30.0 [20.0–40.0] | 6.0 | "
                                "1.50 | 2 | 0.8500 | 1.00 | 0% |"),
              std::string::npos)
        << r.stdoutText;
    EXPECT_NE(r.stdoutText.find("| sel | fedcs | 2 (1/2 reached) | 15.0 | 3.0 | 0.60 | 2 | "
                                "0.8500 | 0.50 | 50% |"),
              std::string::npos)
        << r.stdoutText;
    // fedcs over random: time 15 / 30, energy 0.6 / 1.5.
    EXPECT_NE(r.stdoutText.find("| sel | fedcs | 0.50 | 0.40 |"), std::string::npos)
        << r.stdoutText;
    EXPECT_EQ(ReadCsv(dir.Path() / "t.csv").size(), 2u);
    for (const char* figure : {"selection-quality-vs-time.png", "selection-counts.png"})
    {
        EXPECT_EQ(ReadFile(dir.Path() / "figs" / figure).substr(1, 3), "PNG") << figure;
    }

    r = RunTool("selection_study.py", ". --targets 0.8,0.9", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("missing column(s) time_to_0.9_s"), std::string::npos)
        << r.stderrText;
}

} // namespace
} // namespace fedran::test
