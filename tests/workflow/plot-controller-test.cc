// analysis/plot_controller.py on a hand-written adaptive run: the figure, and the per group
// and round summary it draws (mean rung, predicted and measured bandwidth, link capacity).

#include "workflow-test-util.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

// The hand-written traces' columns, each one of the trace table's.
std::string
ClientsHeader()
{
    return TraceHeaderLine("clients.csv",
                           {"round",
                            "client",
                            "group",
                            "status",
                            "upload_start_s",
                            "rung",
                            "predicted_bps",
                            "measured_bps",
                            "skipped"});
}

/// Three rounds; the "fading" group's link drops from 200 to 20 kbit/s at t = 4 s, its two
/// clients step down the ladder in round 2, and one skips in round 3.
void
WriteAdaptiveRun(const std::filesystem::path& dir)
{
    WriteFile(dir / "clients.csv",
              ClientsHeader() + "1,0,steady,completed,1.0,0,200000,,0\n"
                                "1,1,fading,completed,1.0,0,200000,,0\n"
                                "1,2,fading,completed,1.2,0,200000,,0\n"
                                "2,0,steady,completed,5.0,0,190000,190000,0\n"
                                "2,1,fading,completed,5.0,1,60000,20000,0\n"
                                "2,2,fading,completed,5.2,2,40000,18000,0\n"
                                "3,0,steady,completed,9.0,0,190000,190000,0\n"
                                "3,1,fading,completed,9.0,,19000,19000,1\n"
                                "3,2,fading,late,9.4,3,18000,17000,0\n");
    WriteFile(dir / "population.csv",
              TraceHeaderLine("population.csv", {"client", "group"}) +
                  "0,steady\n1,fading\n2,fading\n");
    std::string links = TraceHeaderLine("links.csv");
    for (int t = 0; t <= 10; ++t)
    {
        for (int c = 0; c < 3; ++c)
        {
            const bool low = c > 0 && t >= 4;
            links += std::to_string(t) + ",client-" + std::to_string(c) + "-up," +
                     (low ? "20000" : "200000") + ",0,0,\n";
        }
    }
    WriteFile(dir / "links.csv", links);
    WriteFile(dir / "run.json",
              R"({"name": "abr", "scenario": {"compression": {"uplink": {"type": "adaptive",
                  "ladder": [{"type": "none"}, {"type": "quantization", "bits": 8},
                             {"type": "top_k", "ratio": 0.01}, {"type": "sign"}]}}}})");
}

TEST(PlotControllerTest, DecisionsPerGroupBesideTheLinkCapacity)
{
    TempDir dir("plot-controller");
    WriteAdaptiveRun(dir.Path());
    ToolResult r = RunTool("plot_controller.py", ". --data summary.csv", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_EQ(ReadFile(dir.Path() / "controller.png").substr(1, 3), "PNG");
    EXPECT_GT(std::filesystem::file_size(dir.Path() / "controller.png"), 5000u);

    std::map<std::string, std::map<std::string, std::string>> byKey;
    for (const auto& row : ReadCsv(dir.Path() / "summary.csv"))
    {
        byKey[row.at("group") + "/" + row.at("round")] = row;
    }
    ASSERT_EQ(byKey.size(), 6u);
    const auto& fading2 = byKey.at("fading/2");
    EXPECT_EQ(fading2.at("decisions"), "2");
    EXPECT_DOUBLE_EQ(std::stod(fading2.at("mean_rung")), 1.5);
    EXPECT_DOUBLE_EQ(std::stod(fading2.at("predicted_bps")), 50000);
    EXPECT_DOUBLE_EQ(std::stod(fading2.at("measured_bps")), 19000);
    EXPECT_DOUBLE_EQ(std::stod(fading2.at("time_s")), 5.1);
    EXPECT_DOUBLE_EQ(std::stod(fading2.at("capacity_bps")), 20000) << "the drop at t = 4 s";
    // Round 3: one skip (no rung) and one late upload on rung 3.
    const auto& fading3 = byKey.at("fading/3");
    EXPECT_EQ(fading3.at("skips"), "1");
    EXPECT_DOUBLE_EQ(std::stod(fading3.at("mean_rung")), 3);
    EXPECT_DOUBLE_EQ(std::stod(byKey.at("fading/1").at("capacity_bps")), 200000);
    EXPECT_DOUBLE_EQ(std::stod(byKey.at("steady/3").at("capacity_bps")), 200000);
    EXPECT_EQ(byKey.at("steady/1").at("measured_bps"), "");

    // Without links.csv: the figure still, capacity empty.
    std::filesystem::remove(dir.Path() / "links.csv");
    r = RunTool("plot_controller.py", ". --out c.png --data s.csv", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_TRUE(std::filesystem::exists(dir.Path() / "c.png"));
    EXPECT_EQ(ReadCsv(dir.Path() / "s.csv").front().at("capacity_bps"), "");
}

TEST(PlotControllerTest, ARunWithoutControllerColumnsExitsTwo)
{
    TempDir dir("plot-controller-bad");
    WriteAdaptiveRun(dir.Path());
    WriteFile(
        dir.Path() / "clients.csv",
        TraceHeaderLine("clients.csv", {"round", "client", "group", "status", "upload_start_s"}) +
            "1,0,steady,completed,1.0\n");
    ToolResult r = RunTool("plot_controller.py", ".", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("plot_controller: ./clients.csv: missing column(s) rung"),
              std::string::npos)
        << r.stderrText;
    EXPECT_FALSE(std::filesystem::exists(dir.Path() / "controller.png"));

    // The columns, but every one empty: a fixed (non-adaptive) codec.
    WriteFile(dir.Path() / "clients.csv", ClientsHeader() + "1,0,steady,completed,1.0,,,,\n");
    r = RunTool("plot_controller.py", ".", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("no controller decisions"), std::string::npos) << r.stderrText;
}

} // namespace
} // namespace fedran::test
