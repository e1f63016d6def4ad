// Behaviour does not change by accident: 3 rounds of every shipped scenario give exactly the
// traces recorded in tests/golden/ (by tests/golden/record.sh). A change meant to change
// behaviour re-records them and says why in its commit.

#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

namespace fedran::test
{
namespace
{

namespace fs = std::filesystem;

/// The first line where `actual` differs from `expected`, rather than two whole files.
void
ExpectSameLines(const fs::path& expected, const fs::path& actual)
{
    std::istringstream a(ReadFile(expected));
    std::istringstream b(ReadFile(actual));
    std::string la, lb;
    for (size_t line = 1;; ++line)
    {
        const bool moreA = bool(std::getline(a, la));
        const bool moreB = bool(std::getline(b, lb));
        if (!moreA && !moreB)
        {
            return;
        }
        if (moreA != moreB || la != lb)
        {
            ADD_FAILURE() << actual.filename() << " line " << line << ":\n  golden: " << la
                          << "\n  now:    " << lb;
            return;
        }
    }
}

class GoldenTraces : public ::testing::TestWithParam<std::string>
{
};

TEST_P(GoldenTraces, ThreeRoundsMatchTheRecordedTraces)
{
    const std::string name = GetParam();
    const fs::path source = FEDRAN_SOURCE_DIR;
    const fs::path golden = source / "tests/golden" / name;
    ASSERT_TRUE(fs::is_directory(golden))
        << "no golden traces for " << name << ": run tests/golden/record.sh";
    TempDir dir("golden-" + name);
    // Scenarios name their trace files relative to the repository root, where record.sh runs.
    fs::create_directory_symlink(source / "scenarios", dir.Path() / "scenarios");
    const CommandResult r =
        RunFedran("run scenarios/" + name + ".json" + " --set rounds=3 --quiet --threads 2 --out " +
                      (dir.Path() / "out").string(),
                  dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(golden))
    {
        files.push_back(entry.path().filename().string());
    }
    std::sort(files.begin(), files.end());
    ASSERT_FALSE(files.empty());
    for (const std::string& file : files)
    {
        ExpectSameLines(golden / file, dir.Path() / "out" / file);
    }
}

std::vector<std::string>
ShippedScenarios()
{
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(fs::path(FEDRAN_SOURCE_DIR) / "scenarios"))
    {
        const fs::path& p = entry.path();
        if (p.extension() == ".json" && p.stem() != "scenario.schema")
        {
            names.push_back(p.stem().string());
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

INSTANTIATE_TEST_SUITE_P(Scenarios,
                         GoldenTraces,
                         ::testing::ValuesIn(ShippedScenarios()),
                         [](const auto& info) {
                             std::string name = info.param;
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

} // namespace
} // namespace fedran::test
