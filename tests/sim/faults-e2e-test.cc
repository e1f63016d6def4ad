// Injected faults end to end (docs/reliability.md): damaged uplink frames, a server outage,
// site crashes and scripted link outages, each through `fedran run` on real data.

#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace fedran::test
{
namespace
{

using nlohmann::json;
using Rows = std::vector<std::map<std::string, std::string>>;

std::filesystem::path
RunFaulty(const TempDir& dir, const std::string& name, const json& scenario)
{
    WriteFile(dir.Path() / (name + ".json"), scenario.dump());
    CommandResult r = RunFedran("run " + name + ".json --out " + name + " --quiet", dir.Path());
    EXPECT_EQ(r.exitCode, 0) << r.stderrText;
    const auto manifest = json::parse(ReadFile(dir.Path() / name / "run.json"));
    EXPECT_EQ(manifest["status"], "completed");
    return dir.Path() / name;
}

/// Whether `client` was selected again (has any row) in a round after `round`.
bool
SelectedAfter(const Rows& clients, uint32_t round, const std::string& client)
{
    for (const auto& row : clients)
    {
        if (std::stoul(row.at("round")) > round && row.at("client") == client &&
            row.at("status") != "late_arrival")
        {
            return true;
        }
    }
    return false;
}

/// Whether `client` has a `completed` row in a round after `round`.
bool
CompletedAfter(const Rows& clients, uint32_t round, const std::string& client)
{
    for (const auto& row : clients)
    {
        if (std::stoul(row.at("round")) > round && row.at("client") == client &&
            row.at("status") == "completed")
        {
            return true;
        }
    }
    return false;
}

TEST(FaultsEndToEnd, CorruptUplinkPointTwoMarksFortyOfTwoHundredAndForgivesThem)
{
    TempDir dir("corrupt");
    json scenario = TinyScenario(10, 10, 20); // every client in each of 20 rounds: 200 updates
    scenario["faults"] = {{"corrupt_uplink", 0.2}};
    const auto out = RunFaulty(dir, "c", scenario);
    const Rows clients = ReadCsv(out / "clients.csv");
    const Rows rounds = ReadCsv(out / "rounds.csv");
    ASSERT_EQ(rounds.size(), 20u);
    std::map<std::string, int> corruptPerRound;
    int corrupt = 0;
    int updates = 0;
    for (const auto& row : clients)
    {
        updates += row.at("status") == "completed" || row.at("status") == "corrupt";
        if (row.at("status") == "corrupt")
        {
            ++corrupt;
            ++corruptPerRound[row.at("round")];
            // The connection survived: the client is selected again in the next round
            // (every client is, unless it was the last one).
            if (row.at("round") != "20")
            {
                EXPECT_TRUE(SelectedAfter(clients, std::stoul(row.at("round")), row.at("client")))
                    << "client " << row.at("client") << " after round " << row.at("round");
            }
        }
    }
    EXPECT_EQ(updates, 200);
    const double sd = std::sqrt(200 * 0.2 * 0.8);
    EXPECT_GE(corrupt, 40 - 3 * sd);
    EXPECT_LE(corrupt, 40 + 3 * sd);
    for (const auto& round : rounds)
    {
        EXPECT_EQ(std::stoi(round.at("selected")), 10) << "everyone selectable again";
        EXPECT_EQ(std::stoi(round.at("participants")), 10 - corruptPerRound[round.at("round")])
            << "no damaged update aggregated, round " << round.at("round");
    }
}

TEST(FaultsEndToEnd, AfterATwentySecondServerOutageEveryClientRejoinsAndTheRunCompletes)
{
    TempDir dir("server-outage");
    json scenario = TinyScenario(6, 6, 12);
    scenario["server"]["deadline_s"] = 30;
    // Rounds take about half a second from 1 s on: the outage hits round 8 or so.
    scenario["faults"] = {{"server_outages", {{{"start_s", 5}, {"duration_s", 20}}}}};
    const auto out = RunFaulty(dir, "o", scenario);
    const Rows rounds = ReadCsv(out / "rounds.csv");
    const Rows clients = ReadCsv(out / "clients.csv");
    ASSERT_EQ(rounds.size(), 12u);
    uint32_t hit = 0;
    for (const auto& round : rounds)
    {
        const double end = std::stod(round.at("sim_time_s"));
        const double start = end - std::stod(round.at("round_duration_s"));
        if (start < 25.0 && end > 5.0)
        {
            hit = std::stoul(round.at("round"));
            EXPECT_EQ(round.at("participants"), "0") << "nothing reaches the server";
        }
    }
    ASSERT_GT(hit, 0u) << "the outage fell inside the run";
    ASSERT_LT(hit, 12u);
    for (int c = 0; c < 6; ++c)
    {
        EXPECT_TRUE(CompletedAfter(clients, hit, std::to_string(c))) << "client " << c;
    }
    EXPECT_EQ(rounds.back().at("participants"), "6");
}

TEST(FaultsEndToEnd, CrashedSitesComeBackAndLinkOutagesShowInLinksCsv)
{
    TempDir dir("crashes");
    json scenario = TinyScenario(6, 6, 30);
    scenario["server"]["deadline_s"] = 30;
    scenario["faults"] = {
        {"crashes", {{{"group", "sites"}, {"probability", 0.3}, {"restart_s", 5}}}},
        {"link_outages", {{{"group", "sites"}, {"start_s", 3}, {"duration_s", 4}}}}};
    const auto out = RunFaulty(dir, "k", scenario);
    const Rows clients = ReadCsv(out / "clients.csv");
    const Rows rounds = ReadCsv(out / "rounds.csv");
    const double lastEndS = std::stod(rounds.back().at("sim_time_s"));
    int crashed = 0;
    for (const auto& row : clients)
    {
        if (row.at("status") == "crashed")
        {
            ++crashed;
            EXPECT_TRUE(row.at("upload_start_s").empty()) << "it crashed while training";
            // Down for restart_s, then it reconnects and is selected again, if the run
            // lasts that long (rounds take about half a second).
            const uint32_t round = std::stoul(row.at("round"));
            if (std::stod(rounds.at(round - 1).at("sim_time_s")) + 5.0 + 2.0 < lastEndS)
            {
                EXPECT_TRUE(SelectedAfter(clients, round, row.at("client")))
                    << "client " << row.at("client") << " after round " << row.at("round");
            }
        }
    }
    EXPECT_GT(crashed, 0);
    // Every client link reads 0 capacity, both ways, while it is out; 50 Mbit/s otherwise.
    int outSamples = 0;
    for (const auto& row : ReadCsv(out / "links.csv"))
    {
        if (row.at("link").rfind("client-", 0) != 0)
        {
            continue;
        }
        const double t = std::stod(row.at("time_s"));
        if (t > 3.0 && t < 7.0)
        {
            EXPECT_EQ(row.at("capacity_bps"), "0") << row.at("link") << " at " << t;
            ++outSamples;
        }
        else if (t < 2.5 || t > 7.5)
        {
            EXPECT_EQ(row.at("capacity_bps"), "50000000") << row.at("link") << " at " << t;
        }
    }
    EXPECT_EQ(outSamples, 6 * 2 * 3) << "samples at 4, 5 and 6 s of 12 directions";
    // Without faults the same scenario has neither.
    scenario.erase("faults");
    for (const auto& row : ReadCsv(RunFaulty(dir, "plain", scenario) / "clients.csv"))
    {
        EXPECT_NE(row.at("status"), "crashed");
    }
}

TEST(FaultsEndToEnd, WithTheFlowTransportOutagesStallTransfersUntilTheLinkIsBack)
{
    // The flow transport carries no packets, so downed interfaces would not stop it: an outage
    // reaches its fluid links as capacity 0 both ways instead. Its transfers stall and go on
    // when the link is back (no retransmission timeout to wait out, unlike TCP's packets).
    TempDir dir("flow-outage");
    json scenario = TinyScenario(6, 6, 12);
    scenario["server"]["deadline_s"] = 30;
    scenario["network"]["transport"] = "flow";
    scenario["faults"] = {
        {"server_outages", {{{"start_s", 5}, {"duration_s", 20}}}},
        {"link_outages", {{{"group", "sites"}, {"start_s", 26}, {"duration_s", 2}}}}};
    const auto out = RunFaulty(dir, "f", scenario);
    const Rows rounds = ReadCsv(out / "rounds.csv");
    const Rows clients = ReadCsv(out / "clients.csv");
    ASSERT_EQ(rounds.size(), 12u);
    int serverHit = 0;
    int groupHit = 0;
    for (const auto& round : rounds)
    {
        const double end = std::stod(round.at("sim_time_s"));
        const double start = end - std::stod(round.at("round_duration_s"));
        serverHit += start < 25.0 && end > 5.0;
        if (start < 25.0 && end > 5.0)
        {
            EXPECT_GE(end, 25.0) << "nothing moves before the core link is back";
        }
        groupHit += start < 28.0 && end > 26.0;
        if (start < 28.0 && end > 26.0)
        {
            EXPECT_GE(end, 28.0) << "nothing moves before the client links are back";
        }
        EXPECT_EQ(round.at("participants"), "6") << "round " << round.at("round");
    }
    EXPECT_EQ(serverHit, 1);
    EXPECT_EQ(groupHit, 1);
    for (const auto& row : clients)
    {
        EXPECT_EQ(row.at("status"), "completed") << "round " << row.at("round");
    }
    // links.csv reads the core link's 0 during the outage, and its rate otherwise.
    int coreOut = 0;
    for (const auto& row : ReadCsv(out / "links.csv"))
    {
        const double t = std::stod(row.at("time_s"));
        if (row.at("link").rfind("core", 0) == 0 && t > 4.5 && t < 24.5)
        {
            EXPECT_EQ(row.at("capacity_bps"), "0") << row.at("link") << " at " << t;
            ++coreOut;
        }
    }
    EXPECT_EQ(coreOut, 2 * 20) << "samples at 5 ... 24 s of both directions";
}

TEST(FaultsEndToEnd, AsyncModeDropsCorruptUpdatesAndCrashedSitesComeBack)
{
    TempDir dir("async-faults");
    json scenario = TinyScenario(8, 4, 40);
    scenario["server"]["mode"] = "async";
    scenario["server"]["async"] = {{"buffer", 2}, {"concurrency", 6}};
    scenario["faults"] = {
        {"corrupt_uplink", 0.2},
        {"crashes", {{{"group", "sites"}, {"probability", 0.1}, {"restart_s", 2}}}}};
    const auto out = RunFaulty(dir, "a", scenario);
    const Rows clients = ReadCsv(out / "clients.csv");
    const Rows rounds = ReadCsv(out / "rounds.csv");
    ASSERT_EQ(rounds.size(), 40u);
    const double lastEndS = std::stod(rounds.back().at("sim_time_s"));
    int corrupt = 0;
    int completed = 0;
    int crashed = 0;
    std::map<std::string, int> completedPerStep;
    for (size_t i = 0; i < clients.size(); ++i)
    {
        const auto& row = clients[i];
        const std::string& status = row.at("status");
        completed += status == "completed";
        completedPerStep[row.at("round")] += status == "completed";
        if (status == "corrupt" || status == "crashed")
        {
            (status == "corrupt" ? corrupt : crashed) += 1;
            // Back later: a row of the same client further down (rows follow arrivals), unless
            // the run ended first.
            bool later = false;
            for (size_t j = i + 1; j < clients.size() && !later; ++j)
            {
                later = clients[j].at("client") == row.at("client");
            }
            // A crashed site is down restart_s (2 s) from a moment of its 0.375 s of training.
            const double backS = status == "corrupt" ? std::stod(row.at("upload_end_s")) + 0.5
                                                     : std::stod(row.at("model_received_s")) + 3.0;
            if (backS < lastEndS)
            {
                EXPECT_TRUE(later)
                    << status << " client " << row.at("client") << " in step " << row.at("round");
            }
        }
        if (status == "crashed")
        {
            EXPECT_TRUE(row.at("upload_start_s").empty()) << "it crashed while training";
        }
    }
    EXPECT_GT(crashed, 0);
    // Of the updates that arrived, a fifth were damaged: Binomial(n, 0.2) within 3 sd.
    const int arrived = corrupt + completed;
    const double sd = std::sqrt(arrived * 0.2 * 0.8);
    EXPECT_GE(corrupt, arrived * 0.2 - 3 * sd) << arrived << " arrived";
    EXPECT_LE(corrupt, arrived * 0.2 + 3 * sd) << arrived << " arrived";
    for (const auto& round : rounds)
    {
        EXPECT_EQ(std::stoi(round.at("participants")), completedPerStep[round.at("round")])
            << "only undamaged updates count, step " << round.at("round");
    }
}

TEST(FaultsEndToEnd, UnknownGroupsAndHubsAreScenarioErrors)
{
    TempDir dir("faults-bad");
    json scenario = TinyScenario(3, 3, 1);
    scenario["faults"] = {{"crashes", {{{"group", "nowhere"}, {"probability", 0.1}}}},
                          {"link_outages", {{{"hub", "agg"}, {"start_s", 1}, {"duration_s", 1}}}}};
    WriteFile(dir.Path() / "s.json", scenario.dump());
    CommandResult r = RunFedran("run s.json --out out --quiet", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("faults.crashes.0.group: no group is called \"nowhere\""),
              std::string::npos)
        << r.stderrText;
    EXPECT_NE(r.stderrText.find("faults.link_outages.0.hub: no hub"), std::string::npos)
        << r.stderrText;
    EXPECT_FALSE(std::filesystem::exists(dir.Path() / "out"));
}

} // namespace
} // namespace fedran::test
