// analysis/adaptive_study.py on a hand-written sweep folder: one regime, two fixed rungs and
// the time policy over two seeds, so the medians, the best fixed rung in hindsight, the ratios
// and the deadline misses are known in advance.

#include "workflow-test-util.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

const nlohmann::json kLadder = {{{"type", "none"}}, {{"type", "quantization"}, {"bits", 8}}};

struct StudyRun
{
    std::string id;
    nlohmann::json uplink;
    int seed;
    std::string time; // to 0.8, empty when never reached
    int up;           // uplink wire bytes to 0.8
    int wire;         // all wire bytes to 0.8
    std::string met;  // deadline_met of the two client rows
};

void
WriteStudy(const std::filesystem::path& dir)
{
    auto fixed = [](int rung) {
        return nlohmann::json{{"type", "adaptive"},
                              {"policy", "fixed"},
                              {"ladder", kLadder},
                              {"rung", rung}};
    };
    const nlohmann::json time = {{"type", "adaptive"}, {"policy", "time"}, {"ladder", kLadder}};
    const std::vector<StudyRun> runs = {
        {"none-1", fixed(0), 1, "40", 4000000, 8000000, "1,0"},
        {"none-2", fixed(0), 2, "", 0, 0, "1,1"},
        {"q8-1", fixed(1), 1, "20", 1000000, 5000000, "1,1"},
        {"q8-2", fixed(1), 2, "30", 1200000, 5200000, "1,1"},
        {"time-1", time, 1, "18", 900000, 4900000, "1,1"},
        {"time-2", time, 2, "24", 1100000, 5100000, "1,1"},
    };
    std::string final = "run_id,status,seed,compression.uplink,rounds,final_accuracy,"
                        "time_to_0.8_s,rounds_to_0.8,uplink_bytes_to_0.8,wire_bytes_to_0.8\n";
    for (const StudyRun& run : runs)
    {
        const bool reached = !run.time.empty();
        std::string uplink;
        for (char c : run.uplink.dump())
        {
            uplink += c == '"' ? std::string("\"\"") : std::string(1, c);
        }
        final += run.id + ",done," + std::to_string(run.seed) + ",\"" + uplink + "\",3,0.85," +
                 run.time + "," + (reached ? "2" : "") + "," +
                 (reached ? std::to_string(run.up) : "") + "," +
                 (reached ? std::to_string(run.wire) : "") + "\n";
        const std::filesystem::path runDir = dir / "runs" / run.id;
        std::filesystem::create_directories(runDir);
        nlohmann::json params = {{"swept", {{"name", "adaptive-unequal"}}}};
        WriteFile(runDir / "params.json", params.dump());
        WriteFile(runDir / "rounds.csv",
                  TraceHeaderLine(
                      "rounds.csv",
                      {"round", "sim_time_s", "test_accuracy", "cumulative_uplink_wire_bytes"}) +
                      "1,10,0.7,500\n2,20,0.8,1000\n");
        WriteFile(
            runDir / "clients.csv",
            TraceHeaderLine("clients.csv", {"round", "client", "status", "rung", "deadline_met"}) +
                "1,0,completed,0," + run.met.substr(0, 1) + "\n1,1,late,1," + run.met.substr(2, 1) +
                "\n2,0,idle,,\n");
    }
    WriteFile(dir / "final.csv", final);
}

TEST(AdaptiveStudyTest, BestFixedRungRatiosAndFigures)
{
    TempDir dir("adaptive-study");
    WriteStudy(dir.Path());
    ToolResult r =
        RunTool("adaptive_study.py", ". --targets 0.8 --figures figs --csv t.csv", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    // fixed none: one seed of two reached 0.8 (40 s, 4 MB up, 4 MB down); one of its
    // four sent updates missed the deadline (the idle row does not count).
    EXPECT_NE(r.stdoutText.find("| adaptive-unequal | fixed none | 2 (1/2 reached) | 40.0 | "
                                "4.00 / 4.00 | 2 | 0.8500 | 25.0% |"),
              std::string::npos)
        << r.stdoutText;
    // 8-bit reached in both seeds (median 25 s of 20 and 30): the best fixed rung.
    EXPECT_NE(r.stdoutText.find("| adaptive-unequal | fixed quantization 8 bit (best fixed) | "
                                "2 (2/2 reached) | 25.0 [20.0–30.0] |"),
              std::string::npos)
        << r.stdoutText;
    // time: median 21 s over 8-bit's 25 s; uplink median 1 MB over none's 4 MB.
    EXPECT_NE(r.stdoutText.find("| adaptive-unequal | time | 0.84 | 0.25 |"), std::string::npos)
        << r.stdoutText;
    auto table = ReadCsv(dir.Path() / "t.csv");
    ASSERT_EQ(table.size(), 3u);
    for (const char* figure :
         {"adaptive-quality-vs-time.png", "adaptive-quality-vs-bytes.png", "adaptive-rungs.png"})
    {
        EXPECT_EQ(ReadFile(dir.Path() / "figs" / figure).substr(1, 3), "PNG") << figure;
    }

    r = RunTool("adaptive_study.py", ". --targets 0.8,0.9", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("missing column(s) time_to_0.9_s"), std::string::npos)
        << r.stderrText;
}

} // namespace
} // namespace fedran::test
