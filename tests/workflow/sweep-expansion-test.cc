// analysis/sweep.py: expanding sweep files into runs, stable ids, and bad sweep files.

#include "workflow-test-util.h"

#include <gtest/gtest.h>

#include <set>
#include <tuple>

namespace fedran::test
{
namespace
{

nlohmann::json
DryRun(const std::filesystem::path& dir, const std::string& sweepFile = "sweep.json")
{
    // The dry run validates every run with the fedran of this build.
    ToolResult r = RunTool("sweep.py", sweepFile + " --dry-run --json " + FedranArg(), dir);
    EXPECT_EQ(r.exitCode, 0) << r.stderrText;
    return nlohmann::json::parse(r.stdoutText);
}

TEST(SweepExpansionTest, GridTimesZipTimesSeedsGivesEveryRunWithItsOverrides)
{
    TempDir dir("sweep-expand");
    WriteTinySweep(dir.Path(),
                   {{"name", "expand"},
                    {"set", {{"rounds", 3}}},
                    {"grid",
                     {{"server.deadline_s", {30, 60}},
                      {"clients.groups.0.backhaul.rate", {"10Mbps", "50Mbps", "1Gbps"}}}},
                    {"zip", {{{"training.lr", {0.01, 0.1}}, {"training.local_epochs", {1, 5}}}}},
                    {"seeds", {3, 5}}});
    nlohmann::json runs = DryRun(dir.Path());
    ASSERT_EQ(runs.size(), 2u * 3u * 2u * 2u);

    std::set<std::string> ids;
    std::set<std::tuple<int, std::string, double, int>> combinations;
    for (const auto& run : runs)
    {
        ids.insert(run["id"].get<std::string>());
        const nlohmann::json& o = run["overrides"];
        EXPECT_EQ(o["rounds"], 3) << "set applies to every run";
        // Zip paths vary together: lr 0.01 always with 1 epoch, 0.1 with 5.
        EXPECT_EQ(o["training.local_epochs"], o["training.lr"] == 0.01 ? 1 : 5) << o;
        EXPECT_EQ(run["swept"].size(), 4u) << "set values are not swept";
        EXPECT_FALSE(run["swept"].contains("rounds"));
        combinations.emplace(o["server.deadline_s"].get<int>(),
                             o["clients.groups.0.backhaul.rate"].get<std::string>(),
                             o["training.lr"].get<double>(),
                             run["seed"].get<int>());
    }
    EXPECT_EQ(ids.size(), runs.size()) << "ids are unique";
    EXPECT_EQ(combinations.size(), runs.size()) << "every combination once";
    // Seeds of one configuration share its config id.
    EXPECT_EQ(runs[0]["config"], runs[1]["config"]);
    EXPECT_EQ(runs[0]["seed"], 3);
    EXPECT_EQ(runs[1]["seed"], 5);
    EXPECT_NE(runs[0]["config"], runs[2]["config"]);
}

TEST(SweepExpansionTest, IdsAreStableReadableAndIndependentOfWhereTheSweepRuns)
{
    TempDir dir("sweep-ids");
    WriteTinySweep(dir.Path(),
                   {{"name", "ids"},
                    {"grid", {{"compression.uplink", {{{"type", "none"}}, {{"type", "fp16"}}}}}},
                    {"seeds", 2}});
    nlohmann::json first = DryRun(dir.Path());
    ASSERT_EQ(first.size(), 4u);
    // The same overrides always hash the same: a pinned id catches accidental changes.
    EXPECT_EQ(first[0]["id"], "uplink=none-03214e86-s1");
    EXPECT_EQ(first[3]["id"], "uplink=fp16-7c18b9c7-s2");
    std::filesystem::create_directory(dir.Path() / "elsewhere");
    nlohmann::json again = DryRun(dir.Path() / "elsewhere", "../sweep.json");
    EXPECT_EQ(first, again);

    // Another fixed value changes every id (runs of different settings never mix).
    WriteTinySweep(dir.Path(),
                   {{"name", "ids"},
                    {"set", {{"rounds", 1}}},
                    {"grid", {{"compression.uplink", {{{"type", "none"}}, {{"type", "fp16"}}}}}},
                    {"seeds", 2}});
    nlohmann::json changed = DryRun(dir.Path());
    EXPECT_NE(changed[0]["id"], first[0]["id"]);
    EXPECT_EQ(changed[0]["id"].get<std::string>().substr(0, 12), "uplink=none-");
}

struct BadSweepCase
{
    const char* name;
    nlohmann::json sweep;
    const char* expectedInMessage;
};

void
PrintTo(const BadSweepCase& c, std::ostream* os)
{
    *os << c.name;
}

class BadSweepTest : public testing::TestWithParam<BadSweepCase>
{
};

TEST_P(BadSweepTest, ExitsTwoNamingTheFieldAndWritesNothing)
{
    TempDir dir("sweep-bad");
    WriteTinySweep(dir.Path(), GetParam().sweep);
    ToolResult r = RunTool("sweep.py", "sweep.json --out out " + FedranArg(), dir.Path());
    EXPECT_EQ(r.exitCode, 2) << r.stderrText;
    EXPECT_NE(r.stderrText.find(GetParam().expectedInMessage), std::string::npos) << r.stderrText;
    EXPECT_FALSE(std::filesystem::exists(dir.Path() / "out"));
}

const nlohmann::json kGrid = {{"rounds", {1, 2}}};

INSTANTIATE_TEST_SUITE_P(
    SweepFiles,
    BadSweepTest,
    testing::Values(
        BadSweepCase{"UnknownKey", {{"name", "x"}, {"gird", kGrid}}, "gird: unknown key"},
        BadSweepCase{"NoName", {{"grid", kGrid}}, "name: required"},
        BadSweepCase{"GridNotAList",
                     {{"name", "x"}, {"grid", {{"rounds", 3}}}},
                     "grid.rounds: must be a non-empty list"},
        BadSweepCase{"EmptyGridList",
                     {{"name", "x"}, {"grid", {{"rounds", nlohmann::json::array()}}}},
                     "grid.rounds: must be a non-empty list"},
        BadSweepCase{"ZipLengthsDiffer",
                     {{"name", "x"}, {"zip", {{{"rounds", {1, 2}}, {"training.lr", {0.1}}}}}},
                     "zip.0: its lists must have the same length"},
        // One path may repeat a value within a zip group; the same tuple twice is an error.
        BadSweepCase{"ZipRepeatsATuple",
                     {{"name", "x"}, {"zip", {{{"rounds", {1, 1}}, {"training.lr", {0.1, 0.1}}}}}},
                     "zip.0: lists the same value twice"},
        BadSweepCase{"SweptTwice",
                     {{"name", "x"}, {"grid", kGrid}, {"zip", {{{"rounds", {1, 2}}}}}},
                     "rounds: swept twice"},
        BadSweepCase{"SetAndSwept",
                     {{"name", "x"}, {"grid", kGrid}, {"set", {{"rounds", 4}}}},
                     "set.rounds: also swept"},
        BadSweepCase{"SeedInGrid",
                     {{"name", "x"}, {"grid", {{"seed", {1, 2}}}}},
                     "grid.seed: 'seed' is set by the sweep itself"},
        BadSweepCase{"ZeroSeeds", {{"name", "x"}, {"seeds", 0}}, "seeds: a count must be"},
        BadSweepCase{"RepeatedSeed", {{"name", "x"}, {"seeds", {1, 1}}}, "seeds: lists the same"},
        BadSweepCase{"BadPath",
                     {{"name", "x"}, {"grid", {{"server..x", {1}}}}},
                     "grid.server..x: 'server..x' is not a dotted scenario path"}),
    [](const testing::TestParamInfo<BadSweepCase>& info) { return info.param.name; });

TEST(SweepExpansionTest, MissingScenarioAndBrokenJsonAreBadInput)
{
    TempDir dir("sweep-bad-files");
    WriteFile(dir.Path() / "sweep.json", R"({"name": "x", "scenario": "nowhere.json"})");
    ToolResult r = RunTool("sweep.py", "sweep.json --out out " + FedranArg(), dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("scenario: "), std::string::npos) << r.stderrText;
    EXPECT_NE(r.stderrText.find("nowhere.json: no such file"), std::string::npos);

    WriteFile(dir.Path() / "sweep.json", "{\"name\": \"x\",\n \"grid\": {]");
    r = RunTool("sweep.py", "sweep.json --out out " + FedranArg(), dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("line 2 column"), std::string::npos) << r.stderrText;
    EXPECT_FALSE(std::filesystem::exists(dir.Path() / "out"));
}

} // namespace
} // namespace fedran::test
