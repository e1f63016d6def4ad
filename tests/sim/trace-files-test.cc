// A run writes every file of the trace table (models/trace/trace-columns.cc), each with the
// table's header and cells that fit their columns.

#include "../trace/trace-test-util.h"
#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace fedran::test
{
namespace
{

namespace fs = std::filesystem;
using nlohmann::json;

TEST(TraceSchema, ARunWritesEveryTableFileWithItsHeader)
{
    TempDir dir("trace-schema-run");
    json scenario = TinyScenario(3, 2, 2);
    scenario["output"] = {{"link_sample_s", 0.5}};
    // Two of the sites behind an edge aggregator (edge_rounds.csv), one reporting directly.
    json behindHub = scenario["clients"]["groups"][0];
    behindHub["name"] = "behind-hub";
    behindHub["count"] = 2;
    behindHub["hub"] = "edge";
    scenario["clients"]["groups"][0]["count"] = 1;
    scenario["clients"]["groups"].push_back(behindHub);
    scenario["network"]["hubs"] = {
        {{"name", "edge"},
         {"backhaul", {{"type", "p2p"}, {"rate", "100Mbps"}, {"delay", "1ms"}}},
         {"aggregator", {{"clients_per_round", 2}}}}};
    WriteFile(dir.Path() / "s.json", scenario.dump());
    const CommandResult r = RunFedran("run s.json --out out --quiet", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    std::vector<std::string> written;
    for (const auto& entry : fs::directory_iterator(dir.Path() / "out"))
    {
        if (entry.path().extension() == ".csv")
        {
            written.push_back(entry.path().filename().string());
        }
    }
    std::sort(written.begin(), written.end());
    std::vector<std::string> listed;
    for (const TraceFile& file : TraceFiles())
    {
        listed.push_back(file.file);
    }
    std::sort(listed.begin(), listed.end());
    EXPECT_EQ(written, listed) << "every CSV file a run writes is in the trace table";
    for (const std::string& file : listed)
    {
        SCOPED_TRACE(file);
        ExpectFileFitsTable(dir.Path() / "out" / file, {{"classes", 10}}); // Fashion-MNIST
    }
}

} // namespace
} // namespace fedran::test
