// links.csv from a whole run: one row per link direction per sample, capacity and SNR from
// the link models, and byte-identical for the same seed.

#include "sim-test-util.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

using nlohmann::json;

json
MixedScenario()
{
    json scenario = TinyScenario(2, 2, 2);
    scenario["clients"]["groups"].push_back(
        {{"name", "radio"},
         {"count", 1},
         {"compute", {{"samples_per_second", 20000}}},
         {"backhaul",
          {{"type", "microwave"},
           {"bandwidth_mhz", 7},
           {"snr_db", 30},
           {"fade", {{"type", "script"}, {"points", {{0.5, 8}}}}}}}});
    scenario["server"]["clients_per_round"] = 3;
    scenario["output"] = {{"link_sample_s", 0.25}};
    return scenario;
}

TEST(LinksCsv, OneRowPerLinkDirectionWithCapacityAndSnr)
{
    TempDir dir("links");
    WriteFile(dir.Path() / "s.json", MixedScenario().dump());
    CommandResult r = RunFedran("run s.json --out out --quiet", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    auto rows = ReadCsv(dir.Path() / "out" / "links.csv");
    // core up/down + 3 clients x up/down = 8 rows per sample.
    ASSERT_GE(rows.size(), 8u * 2);
    EXPECT_EQ(rows.size() % 8, 0u);
    EXPECT_EQ(rows[0]["time_s"], "0.250000");
    EXPECT_EQ(rows[0]["link"], "core-up");
    uint64_t uplinkBits = 0;
    for (auto& row : rows)
    {
        if (row["link"] == "client-0-up")
        {
            EXPECT_EQ(row["capacity_bps"], "50000000");
            EXPECT_EQ(row["snr_db"], "");
            uplinkBits += std::stoull(row["throughput_bps"]);
        }
        if (row["link"] == "client-2-up")
        {
            // 30 dB: 256-QAM (8 bits) at 7 MHz x 0.75; from 0.5 s 22 dB: 64-QAM (6 bits).
            const bool faded = std::stod(row["time_s"]) >= 0.5; // the fade applies first
            EXPECT_EQ(row["snr_db"], faded ? "22.000" : "30.000");
            EXPECT_EQ(row["capacity_bps"], faded ? "31500000" : "42000000");
        }
    }
    EXPECT_GT(uplinkBits, 0u); // the client's update crossed its link
}

TEST(LinksCsv, SameSeedGivesIdenticalTracesForEveryLinkTypeAndZeroDisablesIt)
{
    // Every link type that draws random numbers: p2p with loss, microwave in rain, a trace
    // with a loss column (lte has its own test). Another seed must change the rain.
    TempDir dir("links-seed");
    json scenario = MixedScenario();
    scenario["clients"]["groups"][0]["backhaul"]["loss"] = 0.002;
    scenario["clients"]["groups"][1]["backhaul"]["fade"] = {{"type", "rain"},
                                                            {"median_db", 6},
                                                            {"sigma", 0.8},
                                                            {"correlation_s", 0.5},
                                                            {"mean_rain_s", 1},
                                                            {"mean_dry_s", 1},
                                                            {"step_s", 0.05}};
    WriteFile(dir.Path() / "lossy.csv", "time_s,rate_bps,delay_ms,loss\n0,20000000,5,0.002\n");
    scenario["clients"]["groups"].push_back(
        {{"name", "traced"},
         {"count", 1},
         {"compute", {{"samples_per_second", 20000}}},
         {"backhaul", {{"type", "trace"}, {"file", "lossy.csv"}}}});
    scenario["server"]["clients_per_round"] = 4;
    WriteFile(dir.Path() / "s.json", scenario.dump());
    ASSERT_EQ(RunFedran("run s.json --out a --quiet", dir.Path()).exitCode, 0);
    ASSERT_EQ(RunFedran("run s.json --out b --quiet", dir.Path()).exitCode, 0);
    const std::string a = ReadFile(dir.Path() / "a" / "links.csv");
    EXPECT_FALSE(a.empty());
    ExpectSameTraces(dir.Path() / "a",
                     dir.Path() / "b",
                     {"rounds.csv", "clients.csv", "links.csv"});
    ASSERT_EQ(RunFedran("run s.json --out d --quiet --set seed=2", dir.Path()).exitCode, 0);
    EXPECT_NE(a, ReadFile(dir.Path() / "d" / "links.csv"));
    ASSERT_EQ(
        RunFedran("run s.json --out c --quiet --set output.link_sample_s=0", dir.Path()).exitCode,
        0);
    EXPECT_FALSE(std::filesystem::exists(dir.Path() / "c" / "links.csv"));
}

} // namespace
} // namespace fedran::test
