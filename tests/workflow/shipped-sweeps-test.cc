// Every shipped sweep file (scenarios/sweeps/) expands into runs that fedran accepts: each
// configuration of its grid and zip, validated with `fedran validate` as sweep.py does before
// any run starts. A sweep naming a key the scenario no longer has, or a value a codec, rule or
// policy now refuses, fails here rather than at a user's first submission. One seed per
// configuration (seeds change no key, only the draws): 607 validations on 4 December 2026,
// about two minutes, hence "Slow".

#include "workflow-test-util.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

namespace fedran::test
{
namespace
{

std::vector<std::filesystem::path>
ShippedSweeps()
{
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(
             std::filesystem::path(FEDRAN_SOURCE_DIR) / "scenarios" / "sweeps"))
    {
        if (entry.path().extension() == ".json")
        {
            files.push_back(entry.path());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

TEST(ShippedSweeps, SlowEveryConfigurationOfEverySweepFileValidates)
{
    const std::vector<std::filesystem::path> files = ShippedSweeps();
    ASSERT_GE(files.size(), 19u);
    size_t configurations = 0;
    for (const std::filesystem::path& file : files)
    {
        SCOPED_TRACE(file.filename().string());
        nlohmann::json sweep = nlohmann::json::parse(std::ifstream(file));
        ASSERT_TRUE(sweep.contains("scenario"));
        // The same sweep, one seed, its scenario found from a temp folder.
        sweep["scenario"] = std::filesystem::weakly_canonical(file.parent_path() /
                                                              sweep["scenario"].get<std::string>())
                                .string();
        sweep["seeds"] = nlohmann::json::array({1});
        TempDir dir("shipped-sweep");
        std::ofstream(dir.Path() / "sweep.json") << sweep.dump(1);
        // From the repository's root, as the runs start there (trace files are relative to it).
        const ToolResult r =
            RunTool("sweep.py",
                    (dir.Path() / "sweep.json").string() + " --dry-run --json " + FedranArg(),
                    FEDRAN_SOURCE_DIR);
        ASSERT_EQ(r.exitCode, 0) << r.stderrText;
        const nlohmann::json runs = nlohmann::json::parse(r.stdoutText);
        std::set<std::string> configs;
        for (const auto& run : runs)
        {
            configs.insert(run["config"].get<std::string>());
        }
        EXPECT_EQ(configs.size(), runs.size()) << "one run per configuration";
        EXPECT_GE(runs.size(), 2u) << "a sweep sweeps something";
        configurations += runs.size();
    }
    EXPECT_GE(configurations, 600u);
}

// The check can fail: a sweep over a key the scenario does not have is refused, naming it.
TEST(ShippedSweeps, ASweepOverAKeyTheScenarioLacksIsRefused)
{
    TempDir dir("shipped-sweep-bad");
    nlohmann::json sweep = {
        {"name", "bad"},
        {"scenario",
         (std::filesystem::path(FEDRAN_SOURCE_DIR) / "scenarios" / "quickstart.json").string()},
        {"grid", {{"server.no_such_key", {1, 2}}}},
        {"seeds", nlohmann::json::array({1})}};
    std::ofstream(dir.Path() / "sweep.json") << sweep.dump(1);
    const ToolResult r =
        RunTool("sweep.py", "sweep.json --dry-run --json " + FedranArg(), dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("no_such_key"), std::string::npos) << r.stderrText;
}

} // namespace
} // namespace fedran::test
