// analysis/plot.py on a sweep folder and on a single run folder; analysis/plot_run.py and
// analysis/plot_timeline.py on one run.

#include "workflow-test-util.h"

#include <gtest/gtest.h>

#include <sstream>

namespace fedran::test
{
namespace
{

void
ExpectFigures(const std::filesystem::path& plots, const std::vector<std::string>& stems)
{
    for (const auto& stem : stems)
    {
        for (const char* ext : {".png", ".pdf"})
        {
            const std::filesystem::path file = plots / (stem + ext);
            ASSERT_TRUE(std::filesystem::exists(file)) << file;
            EXPECT_GT(std::filesystem::file_size(file), 5000u) << file;
        }
        EXPECT_EQ(ReadFile(plots / (stem + ".png")).substr(1, 3), "PNG");
    }
}

TEST(PlotTest, SlowFiguresFromASweepAndFromOneRun)
{
    TempDir dir("plot");
    WriteTinySweep(dir.Path(),
                   {{"name", "plots"}, {"seeds", 2}}); // two seeds: a line with its band
    ToolResult r = RunTool("sweep.py", "sweep.json --out out " + FedranArg(), dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;

    r = RunTool("plot.py", "out", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    const std::vector<std::string> stems = {"accuracy-vs-uplink",
                                            "accuracy-vs-time",
                                            "accuracy-vs-round",
                                            "client-traffic"};
    ExpectFigures(dir.Path() / "out" / "plots", stems);

    const std::filesystem::path run = RunDirs(dir.Path() / "out").front();
    r = RunTool("plot.py",
                std::string("'").append(run.string()).append("' --out single"),
                dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    ExpectFigures(dir.Path() / "single", stems);
}

TEST(PlotTest, LinksAndControllerFiguresAppearWhenTheirColumnsDo)
{
    // A hand-written run folder with the optional traces (links.csv, clients.csv's rung).
    TempDir dir("plot-optional");
    std::string rounds =
        TraceHeaderLine("rounds.csv",
                        {"round", "sim_time_s", "test_accuracy", "cumulative_uplink_wire_bytes"});
    rounds.insert(rounds.size() - 1, ",extra"); // a column the scripts do not know is ignored
    WriteFile(dir.Path() / "rounds.csv",
              rounds + "1,1.5,0.70,1000,x\n2,3.0,0.75,2000,x\n3,4.5,0.78,400000,x\n");
    WriteFile(dir.Path() / "clients.csv",
              TraceHeaderLine("clients.csv", {"round", "client", "payload_bytes", "rung"}) +
                  "1,0,500,0\n1,1,500,1\n2,0,500,1\n2,1,500,2\n"
                  "3,0,199000,2\n3,1,199000,2\n");
    WriteFile(dir.Path() / "links.csv",
              TraceHeaderLine("links.csv") +
                  "0.5,bh0,5e7,1e7,0,20\n1.0,bh0,4e7,3e7,100,18\n0.5,bh1,5e7,2e7,0,21\n"
                  "1.0,bh1,5e7,2.5e7,0,22\n");
    ToolResult r = RunTool("plot.py", ". --formats png", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    for (const char* stem : {"accuracy-vs-uplink", "client-traffic", "links", "controller"})
    {
        const std::filesystem::path file = dir.Path() / "plots" / (std::string(stem) + ".png");
        ASSERT_TRUE(std::filesystem::exists(file)) << file;
        EXPECT_GT(std::filesystem::file_size(file), 5000u);
    }
    EXPECT_FALSE(std::filesystem::exists(dir.Path() / "plots" / "links.pdf"));
}

TEST(PlotTest, AFolderWithoutTracesOrAMissingColumnIsBadInput)
{
    TempDir dir("plot-bad");
    ToolResult r = RunTool("plot.py", ".", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("neither a sweep folder"), std::string::npos) << r.stderrText;

    WriteFile(dir.Path() / "rounds.csv", "round,sim_time_s\n1,1.0\n");
    r = RunTool("plot.py", ".", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("missing column(s) test_accuracy"), std::string::npos)
        << r.stderrText;
}

/// Makes matplotlib, pandas and numpy unimportable under dir/blocked (PYTHONPATH=blocked), as
/// on a machine where only the quickstart ran: it installs none of them.
void
BlockPlottingStack(const std::filesystem::path& dir)
{
    std::filesystem::create_directory(dir / "blocked");
    for (const char* module : {"matplotlib", "pandas", "numpy"})
    {
        WriteFile(dir / "blocked" / (std::string(module) + ".py"),
                  "raise ImportError('blocked by the test')\n");
    }
}

TEST(PlotRunTest, ScriptsNeedingThePlottingStackNameItAndTheCommandWhenItIsMissing)
{
    TempDir dir("plot-stack");
    BlockPlottingStack(dir.Path());
    for (const char* script : {"plot.py",
                               "plot_controller.py",
                               "plot_forecast.py",
                               "plot_timeline.py",
                               "abr_study.py",
                               "adaptive_study.py",
                               "async_study.py",
                               "byzantine_study.py",
                               "downlink_study.py",
                               "hierarchical_study.py",
                               "pipelining_study.py",
                               "selection_study.py",
                               "tcp_compare.py",
                               "validate_flow.py"})
    {
        const ToolResult r = RunTool(script, "--help", dir.Path(), "PYTHONPATH=blocked");
        EXPECT_EQ(r.exitCode, 2) << script << ": " << r.stderrText;
        EXPECT_NE(r.stderrText.find(std::string(script) +
                                    ": matplotlib is not installed: `sh .ci/deps` installs"),
                  std::string::npos)
            << script << ": " << r.stderrText;
    }
}

TEST(PlotRunTest, OneRunGetsItsAccuracySvgWithTheStandardLibraryAlone)
{
    TempDir dir("plot-run");
    // 47.7 s lies past the last round tick of a 20 s step (0, 20, 40): the axis must reach it.
    WriteFile(dir.Path() / "rounds.csv",
              TraceHeaderLine("rounds.csv",
                              {"round", "sim_time_s", "test_accuracy", "cumulative_wire_bytes"}) +
                  "1,2.6,0.70,1000\n2,20.0,0.75,1000000\n3,47.7,0.83,2000000\n");
    BlockPlottingStack(dir.Path());
    ToolResult r = RunTool("plot_run.py", ".", dir.Path(), "PYTHONPATH=blocked");
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    const std::string svg = ReadFile(dir.Path() / "accuracy.svg");
    EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u) << svg.substr(0, 80);
    EXPECT_NE(svg.find("final accuracy 0.830"), std::string::npos);
    EXPECT_NE(svg.find("traffic on the backhaul wire, up + down (MB)"), std::string::npos);
    // Every round drawn in both panels (traffic and time): one line and three markers each,
    // inside the frame drawn before it.
    auto occurrences = [&svg](const std::string& what) {
        std::size_t n = 0;
        for (std::size_t at = svg.find(what); at != std::string::npos; at = svg.find(what, at + 1))
        {
            ++n;
        }
        return n;
    };
    EXPECT_EQ(occurrences("<polyline "), 2u);
    EXPECT_EQ(occurrences("<circle "), 6u);
    auto attribute = [&svg](std::size_t from, const std::string& name) {
        const std::size_t at = svg.find(" " + name + "=\"", from) + name.size() + 3;
        return svg.substr(at, svg.find('"', at) - at);
    };
    for (std::size_t line = svg.find("<polyline "); line != std::string::npos;
         line = svg.find("<polyline ", line + 1))
    {
        const std::size_t frame = svg.rfind("<rect x=", line);
        const double left = std::stod(attribute(frame, "x"));
        const double top = std::stod(attribute(frame, "y"));
        const double right = left + std::stod(attribute(frame, "width"));
        const double bottom = top + std::stod(attribute(frame, "height"));
        std::istringstream points(attribute(line, "points"));
        double x = 0;
        double y = 0;
        char comma = 0;
        int count = 0;
        while (points >> x >> comma >> y)
        {
            ++count;
            EXPECT_TRUE(x >= left && x <= right && y >= top && y <= bottom)
                << x << "," << y << " outside " << left << "-" << right << " x " << top << "-"
                << bottom;
        }
        EXPECT_EQ(count, 3);
    }
    EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");

    r = RunTool("plot_run.py", ". --out a.png", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("plot_run writes SVG"), std::string::npos) << r.stderrText;

    std::filesystem::remove(dir.Path() / "rounds.csv");
    r = RunTool("plot_run.py", ".", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("plot_run: ./rounds.csv: no such file"), std::string::npos)
        << r.stderrText;
}

TEST(PlotTimelineTest, OneRunGetsItsTimelineAndBadInputExitsTwo)
{
    // A hand-written microwave run: two groups, a late client, an outage in links.csv.
    TempDir dir("plot-timeline");
    WriteFile(dir.Path() / "rounds.csv",
              TraceHeaderLine("rounds.csv", {"round", "sim_time_s", "round_duration_s"}) +
                  "1,2.0,2.0\n2,5.0,3.0\n");
    WriteFile(dir.Path() / "clients.csv",
              TraceHeaderLine("clients.csv", {"round", "client", "group", "status"}) +
                  "1,0,near,completed\n1,1,far,late\n2,0,near,completed\n2,2,far,completed\n");
    WriteFile(dir.Path() / "population.csv",
              TraceHeaderLine("population.csv", {"client", "group"}) + "0,near\n1,far\n2,far\n");
    std::string links = TraceHeaderLine("links.csv");
    for (int t = 1; t <= 5; ++t)
    {
        for (int c = 0; c < 3; ++c)
        {
            const bool out = c == 1 && t == 2;
            links += std::to_string(t) + ",client-" + std::to_string(c) + "-up," +
                     (out ? "0,0,0,-150" : "2e9,1e6,0,40") + "\n";
        }
    }
    WriteFile(dir.Path() / "links.csv", links);
    ToolResult r = RunTool("plot_timeline.py", ".", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_EQ(ReadFile(dir.Path() / "timeline.png").substr(1, 3), "PNG");
    EXPECT_GT(std::filesystem::file_size(dir.Path() / "timeline.png"), 5000u);

    r = RunTool("plot_timeline.py", ". --clients 0,7 --out x.png", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("--clients: no client 7"), std::string::npos) << r.stderrText;
    EXPECT_FALSE(std::filesystem::exists(dir.Path() / "x.png"));

    std::filesystem::remove(dir.Path() / "links.csv");
    r = RunTool("plot_timeline.py", ".", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("plot_timeline: ./links.csv: no such file"), std::string::npos)
        << r.stderrText;
}

} // namespace
} // namespace fedran::test
