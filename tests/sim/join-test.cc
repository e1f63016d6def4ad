// Sites join like real ones: at jittered instants, retrying until they get through, so that
// none is lost at join whatever the number of sites; a run says who had joined and when.

#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <fstream>

namespace fedran::test
{
namespace
{

using nlohmann::json;

struct JoinRun
{
    json result;
    std::vector<std::map<std::string, std::string>> rounds;
    std::string stderrText;
};

JoinRun
RunScenario(const json& scenario, const std::string& tag)
{
    TempDir dir(tag);
    WriteFile(dir.Path() / "s.json", scenario.dump());
    const CommandResult r = RunFedran("run s.json --quiet --out out", dir.Path());
    EXPECT_EQ(r.exitCode, 0) << r.stderrText;
    JoinRun run;
    run.stderrText = r.stderrText;
    if (r.exitCode == 0)
    {
        run.result = json::parse(ReadFile(dir.Path() / "out/run.json"))["result"];
        run.rounds = ReadCsv(dir.Path() / "out/rounds.csv");
    }
    return run;
}

/// Every one of `sites` sites selected in the first round: all must have joined.
void
ExpectEverySiteJoins(uint32_t sites)
{
    json scenario = TinyScenario(sites, sites, 1);
    const JoinRun run = RunScenario(scenario, "join-" + std::to_string(sites));
    ASSERT_FALSE(run.rounds.empty());
    EXPECT_EQ(run.result["clients_joined"], sites);
    EXPECT_EQ(run.result["clients_expected"], sites);
    EXPECT_EQ(run.rounds[0].at("selected"), std::to_string(sites));
    // The first round starts within the 1 s join window and a few round trips, not at the
    // 30 s timeout.
    EXPECT_LT(run.result["join_time_s"].get<double>(), 3.0);
    EXPECT_EQ(run.stderrText.find("had not joined"), std::string::npos) << run.stderrText;
}

TEST(Join, FiveHundredSitesAllJoin)
{
    // Past ~400 simultaneous SYNs overflowed the router's queue toward the server.
    ExpectEverySiteJoins(500);
}

TEST(Join, SlowTwoThousandSitesAllJoin)
{
    ExpectEverySiteJoins(2000);
}

TEST(Join, ASiteWhoseLinkIsOutAtFirstJoinsWhenItReturnsAndIsSelected)
{
    TempDir dir("join-outage");
    const std::string trace = (dir.Path() / "outage.csv").string();
    {
        std::ofstream out(trace);
        out << "time_s,rate_bps\n0,0\n20,50000000\n100000,50000000\n";
    }
    json scenario = TinyScenario(3, 4, 2);
    json late = scenario["clients"]["groups"][0];
    late["name"] = "late";
    late["count"] = 1;
    late["backhaul"] = {{"type", "trace"}, {"file", trace}, {"delay", "5ms"}};
    scenario["clients"]["groups"].push_back(late);
    const JoinRun run = RunScenario(scenario, "join-outage-run");
    ASSERT_EQ(run.rounds.size(), 2u);
    // The first round waited for it (it is on, just unreachable) and then selected everyone.
    EXPECT_EQ(run.result["clients_joined"], 4);
    EXPECT_GT(run.result["join_time_s"].get<double>(), 20.0);
    EXPECT_LT(run.result["join_time_s"].get<double>(), 30.0);
    EXPECT_EQ(run.rounds[0].at("selected"), "4");
    EXPECT_EQ(run.rounds[0].at("participants"), "4");
}

TEST(Join, AJoinTimeoutIsSaidOnStderrAndInRunJson)
{
    TempDir dir("join-timeout");
    const std::string trace = (dir.Path() / "outage.csv").string();
    {
        std::ofstream out(trace);
        out << "time_s,rate_bps\n0,0\n100,50000000\n100000,50000000\n";
    }
    json scenario = TinyScenario(3, 3, 1);
    scenario["server"]["join_timeout_s"] = 10;
    json late = scenario["clients"]["groups"][0];
    late["name"] = "late";
    late["count"] = 2;
    late["backhaul"] = {{"type", "trace"}, {"file", trace}, {"delay", "5ms"}};
    scenario["clients"]["groups"].push_back(late);
    const JoinRun run = RunScenario(scenario, "join-timeout-run");
    ASSERT_EQ(run.rounds.size(), 1u);
    EXPECT_EQ(run.result["clients_joined"], 3);
    EXPECT_EQ(run.result["clients_expected"], 5);
    EXPECT_DOUBLE_EQ(run.result["join_time_s"].get<double>(), 10.0);
    EXPECT_NE(run.stderrText.find("2 of 5 clients had not joined"), std::string::npos)
        << run.stderrText;
}

} // namespace
} // namespace fedran::test
