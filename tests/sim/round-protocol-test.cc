// The round protocol with heterogeneous clients, end to end through the fedran executable:
// per-client compute speeds, over-selection, per-round dropout, on/off availability, and the
// per-client statuses of clients.csv.

#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

namespace fedran::test
{
namespace
{

using nlohmann::json;
using Rows = std::vector<std::map<std::string, std::string>>;

/// Runs `scenario` into <dir>/<name> and returns that folder.
std::filesystem::path
RunScenario(const TempDir& dir, const std::string& name, const json& scenario, int threads = 1)
{
    WriteFile(dir.Path() / (name + ".json"), scenario.dump());
    CommandResult r = RunFedran("run " + name + ".json --out " + name + " --quiet --threads " +
                                    std::to_string(threads),
                                dir.Path());
    EXPECT_EQ(r.exitCode, 0) << r.stderrText;
    return dir.Path() / name;
}

std::map<std::string, int>
CountStatuses(const Rows& clients, const std::string& round = "")
{
    std::map<std::string, int> counts;
    for (const auto& row : clients)
    {
        if (round.empty() || row.at("round") == round)
        {
            ++counts[row.at("status")];
        }
    }
    return counts;
}

TEST(OverSelect, AggregatesExactlyKAndTheRestAreLate)
{
    TempDir dir("overselect");
    json scenario = TinyScenario(10, 4, 4);
    scenario["server"]["over_select"] = 1.5;
    // Spread speeds, so that the six selected finish at distinct times.
    scenario["clients"]["groups"][0]["compute"]["samples_per_second"] = {{"dist", "lognormal"},
                                                                         {"median", 6000},
                                                                         {"sigma", 0.6}};
    const auto out = RunScenario(dir, "os", scenario);
    const Rows rounds = ReadCsv(out / "rounds.csv");
    const Rows clients = ReadCsv(out / "clients.csv");
    ASSERT_EQ(rounds.size(), 4u);
    for (const auto& round : rounds)
    {
        EXPECT_EQ(round.at("selected"), "6"); // ceil(1.5 x 4)
        EXPECT_EQ(round.at("participants"), "4");
        auto counts = CountStatuses(clients, round.at("round"));
        EXPECT_EQ(counts["completed"], 4) << "round " << round.at("round");
        EXPECT_EQ(counts["late"], 2) << "round " << round.at("round");
        // The round closes at its fourth update, long before the 60 s deadline, once the
        // server has decoded it (updates arrive apart: no queue), aggregated and evaluated.
        const double end = std::stod(round.at("sim_time_s"));
        double lastCompleted = 0.0;
        double lastDecode = 0.0;
        for (const auto& c : clients)
        {
            if (c.at("round") != round.at("round"))
            {
                continue;
            }
            if (c.at("status") == "completed")
            {
                if (std::stod(c.at("upload_end_s")) > lastCompleted)
                {
                    lastCompleted = std::stod(c.at("upload_end_s"));
                    lastDecode = std::stod(c.at("decode_s"));
                }
            }
            else if (!c.at("upload_end_s").empty())
            {
                // A straggler's discarded update is recorded with its arrival time.
                EXPECT_GT(std::stod(c.at("upload_end_s")), end);
            }
        }
        EXPECT_NEAR(lastCompleted + lastDecode + std::stod(round.at("aggregate_s")) +
                        std::stod(round.at("evaluate_s")),
                    end,
                    3e-6);
    }
}

TEST(ComputeSpeeds, PopulationRecordsTheDrawAndComputeTimeFollowsIt)
{
    TempDir dir("speeds");
    json scenario = TinyScenario(10, 10, 1);
    scenario["clients"]["groups"][0]["compute"]["samples_per_second"] = {
        {"dist", "tiers"},
        {"tiers",
         {{{"samples_per_second", 8000}, {"share", 0.3}},
          {{"samples_per_second", 2000}, {"share", 0.7}}}}};
    const auto a = RunScenario(dir, "a", scenario);
    const Rows population = ReadCsv(a / "population.csv");
    ASSERT_EQ(population.size(), 10u);
    std::map<std::string, double> speed;
    int fast = 0;
    for (const auto& row : population)
    {
        speed[row.at("client")] = std::stod(row.at("samples_per_second"));
        fast += row.at("samples_per_second") == "8000.000";
    }
    EXPECT_EQ(fast, 3);
    // Equal iid shares of the 60000 training examples, one epoch each.
    for (const auto& row : ReadCsv(a / "clients.csv"))
    {
        EXPECT_NEAR(std::stod(row.at("compute_s")), 6000.0 / speed.at(row.at("client")), 1e-5);
    }
    // Another seed, another assignment of clients to tiers (the same seed giving the same
    // draw is part of OnOff.StatusesAndByteIdenticalTracesAtAnyThreadCount).
    scenario["seed"] = 8;
    const auto c = RunScenario(dir, "c", scenario);
    EXPECT_NE(ReadFile(a / "population.csv"), ReadFile(c / "population.csv"));
}

TEST(Dropout, DropsAboutPOfTheSelectedClients)
{
    TempDir dir("dropout");
    json scenario = TinyScenario(30, 15, 8);
    scenario["clients"]["groups"][0]["availability"] = {{"dropout", 0.3}};
    const auto out = RunScenario(dir, "d", scenario);
    const Rows rounds = ReadCsv(out / "rounds.csv");
    const Rows clients = ReadCsv(out / "clients.csv");
    ASSERT_EQ(clients.size(), 120u);
    auto counts = CountStatuses(clients);
    // 120 Bernoulli(0.3) draws: mean 36, standard deviation 5.0; three of them either side.
    EXPECT_NEAR(counts["dropped"], 36, 15);
    EXPECT_EQ(counts["dropped"] + counts["completed"], 120);
    std::set<std::string> droppedBefore;
    int returned = 0;
    for (const auto& row : clients)
    {
        if (row.at("status") == "dropped")
        {
            // It left while training: nothing was uploaded.
            EXPECT_EQ(row.at("payload_bytes"), "0");
            EXPECT_TRUE(row.at("upload_start_s").empty());
            droppedBefore.insert(row.at("client"));
        }
        else if (droppedBefore.count(row.at("client")))
        {
            ++returned; // reconnected and completed a later round
        }
    }
    EXPECT_GT(returned, 0);
    for (const auto& round : rounds)
    {
        EXPECT_EQ(std::stoi(round.at("participants")),
                  CountStatuses(clients, round.at("round"))["completed"]);
    }
}

TEST(Rounds, ARoundWithoutUpdatesKeepsTheModel)
{
    TempDir dir("noupdate");
    json scenario = TinyScenario(4, 2, 3);
    scenario["clients"]["groups"][0]["availability"] = {{"dropout", 1.0}};
    const Rows rounds = ReadCsv(RunScenario(dir, "n", scenario) / "rounds.csv");
    ASSERT_EQ(rounds.size(), 3u);
    for (const auto& round : rounds)
    {
        EXPECT_EQ(round.at("participants"), "0");
        // The initial model, evaluated again: identical to the last digit.
        EXPECT_EQ(round.at("test_accuracy"), rounds[0].at("test_accuracy"));
        EXPECT_EQ(round.at("test_loss"), rounds[0].at("test_loss"));
    }
    EXPECT_LT(std::stod(rounds[0].at("test_accuracy")), 0.3); // an untrained model
}

/// On/off availability, lognormal speeds and over-selection together, on slow links so that
/// departures happen during uploads too.
json
EverythingScenario()
{
    json scenario = TinyScenario(12, 4, 8);
    scenario["server"]["over_select"] = 1.3;
    scenario["server"]["deadline_s"] = 6;
    json& group = scenario["clients"]["groups"][0];
    group["compute"]["samples_per_second"] = {{"dist", "lognormal"},
                                              {"median", 5000},
                                              {"sigma", 0.5}};
    group["availability"] = {{"mean_on_s", 4}, {"mean_off_s", 2}};
    group["backhaul"]["rate"] = "1Mbps";
    return scenario;
}

TEST(OnOff, StatusesAndByteIdenticalTracesAtAnyThreadCount)
{
    TempDir dir("onoff");
    const auto a = RunScenario(dir, "a", EverythingScenario(), 1);
    const auto b = RunScenario(dir, "b", EverythingScenario(), 2);
    for (const char* file : {"rounds.csv", "clients.csv", "population.csv"})
    {
        EXPECT_EQ(ReadFile(a / file), ReadFile(b / file)) << file;
    }
    const Rows clients = ReadCsv(a / "clients.csv");
    auto counts = CountStatuses(clients);
    for (const auto& [status, n] : counts)
    {
        EXPECT_TRUE(status == "completed" || status == "late" || status == "late_arrival" ||
                    status == "dropped" || status == "failed")
            << status;
    }
    // Off a third of the time, with rounds of a few seconds: clients do leave mid-round,
    // and (31 kB over 1 Mbit/s takes a quarter second) some of them mid-upload.
    EXPECT_GT(counts["dropped"], 0);
    int midUpload = 0;
    for (const auto& row : clients)
    {
        midUpload += row.at("status") == "dropped" && !row.at("upload_start_s").empty();
    }
    EXPECT_GT(midUpload, 0);
    EXPECT_GT(counts["completed"], 0);
    for (const auto& round : ReadCsv(a / "rounds.csv"))
    {
        EXPECT_LE(std::stoi(round.at("participants")), 4);
        EXPECT_LE(std::stoi(round.at("selected")), 6); // ceil(1.3 x 4), fewer if few are on
    }
}

} // namespace
} // namespace fedran::test
