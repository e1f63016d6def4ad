// The adaptive-bitrate study scenario (scenarios/abr-study.json), first 10 rounds: the fading
// group's link is at 20 kbit/s from t = 5 s to t = 125 s, rounds 3 to 9.
//
// The issue expected `deadline` to meet the deadline for >= 95% of updates while fixed `none`
// misses more than 30%, and `deadline` to reach 0.80 sooner than every fixed rung. Measured
// (README, 5 seeds x 30 rounds): `deadline` meets 100%, fixed `none` misses only 8.2% of the
// updates it sends, because a late client is not selected again until its update arrives and
// so sits rounds out instead of missing them; and fixed 8-bit quantisation reaches 0.80
// sooner than `deadline` in most seeds. This test pins what held: the deadline is met, the
// controller steps the fading clients down only during the outage, and fixed `none` loses
// client-rounds, mostly as rounds sat out rather than as misses. Time to accuracy depends on
// the seed through the round at which 0.80 is crossed and is not asserted here.

#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace fedran::test
{
namespace
{

using Rows = std::vector<std::map<std::string, std::string>>;

Rows
RunStudy(const TempDir& dir, const std::string& name, const std::string& uplinkSet)
{
    CommandResult r = RunFedran("run scenarios/abr-study.json --quiet --set rounds=10 --out " +
                                    name + " " + uplinkSet,
                                dir.Path());
    EXPECT_EQ(r.exitCode, 0) << r.stderrText;
    return ReadCsv(dir.Path() / name / "clients.csv");
}

double
Share(const Rows& rows, const std::string& column, const std::string& value)
{
    size_t n = 0;
    for (const auto& row : rows)
    {
        n += row.at(column) == value;
    }
    return rows.empty() ? 0.0 : double(n) / double(rows.size());
}

TEST(AbrStudy, SlowDeadlineMeetsTheDeadlineWhereFixedNoneSitsRoundsOut)
{
    TempDir dir("abr-study");
    const std::filesystem::path root = FEDRAN_SOURCE_DIR;
    std::filesystem::create_directory_symlink(root / "scenarios", dir.Path() / "scenarios");

    const Rows deadline = RunStudy(dir, "deadline", ""); // the scenario's own policy
    ASSERT_EQ(deadline.size(), 100u) << "10 clients selected in each of 10 rounds";
    EXPECT_GE(Share(deadline, "deadline_met", "1"), 0.95);
    std::map<std::string, double> roundStart; // round -> when it started
    for (const auto& row : ReadCsv(dir.Path() / "deadline" / "rounds.csv"))
    {
        roundStart[row.at("round")] =
            std::stod(row.at("sim_time_s")) - std::stod(row.at("round_duration_s"));
    }
    std::set<std::string> fadingRungs;
    for (const auto& row : deadline)
    {
        const std::string at = row.at("group") + " round " + row.at("round");
        const double start = std::stod(row.at("upload_start_s"));
        if (row.at("group") == "steady" || start < 5.0)
        {
            // 200 kbit/s: the full update fits the budget.
            EXPECT_EQ(row.at("rung"), "0") << at;
        }
        else if (roundStart.at(row.at("round")) >= 5.0 && start < 125.0)
        {
            // A round that began in the outage: the client chose from what it saw of the
            // faded link. (A round that began before the fade chose from the clear link; its
            // upload may start in the outage at rung 0, and is not asserted on.)
            fadingRungs.insert(row.at("rung"));
            EXPECT_NE(row.at("rung"), "0") << "in the outage: " << at;
        }
    }
    EXPECT_FALSE(fadingRungs.empty()) << "no fading upload started during the outage";

    const Rows none = RunStudy(dir,
                               "none",
                               "--set compression.uplink.policy=fixed "
                               "--set compression.uplink.rung=0");
    const double met = Share(none, "deadline_met", "1");
    EXPECT_LT(met, 0.95) << "the full update misses during the outage";
    EXPECT_GT(met, 0.70) << "misses stay rare: a late client is not selected again at once";
    size_t completed = 0;
    for (const auto& row : none)
    {
        completed += row.at("status") == "completed";
        EXPECT_EQ(row.at("rung"), "0");
    }
    // Client-rounds with an update in time, out of 10 x 10: the rounds sat out count here.
    EXPECT_LE(completed, 70u);
    EXPECT_LT(none.size(), 90u) << "late clients were left out of later rounds";
}

} // namespace
} // namespace fedran::test
