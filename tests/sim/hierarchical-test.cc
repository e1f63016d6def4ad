// Hierarchical FL (network.hubs[].aggregator) end to end: with one edge round, no compression
// and every site selected it is flat FedAvg; each aggregating hub sends one update per cloud
// round over its link; the edge and the server deadlines both apply; nested aggregators and
// the flow transport work; traces repeat byte for byte; what is not supported is refused.

#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace fedran::test
{
namespace
{

using nlohmann::json;

json
P2p(const std::string& rate, const std::string& delay)
{
    return {{"type", "p2p"}, {"rate", rate}, {"delay", delay}};
}

json
Sites(const std::string& name, uint32_t count, const std::string& hub, double samplesPerSecond)
{
    return {{"name", name},
            {"count", count},
            {"hub", hub},
            {"compute", {{"samples_per_second", samplesPerSecond}}},
            {"backhaul", P2p("50Mbps", "5ms")}};
}

/// Two hubs, east and west, of three sites each; with `aggregate` each hub aggregates all
/// three (one edge round) and the server takes both hubs, otherwise the server takes all six.
json
TwoHubs(bool aggregate)
{
    json scenario = TinyScenario(6, aggregate ? 2 : 6, 3);
    scenario["seed"] = 3;
    scenario["clients"]["groups"] = {Sites("east", 3, "east", 20000),
                                     Sites("west", 3, "west", 20000)};
    scenario["network"]["hubs"] = {{{"name", "east"}, {"backhaul", P2p("100Mbps", "2ms")}},
                                   {{"name", "west"}, {"backhaul", P2p("100Mbps", "2ms")}}};
    if (aggregate)
    {
        for (json& hub : scenario["network"]["hubs"])
        {
            hub["aggregator"] = {{"clients_per_round", 3}};
        }
    }
    scenario["output"] = {{"link_sample_s", 0.1}};
    return scenario;
}

CommandResult
RunScenario(const TempDir& dir,
            const json& scenario,
            const std::string& out,
            const std::string& extra = "")
{
    WriteFile(dir.Path() / (out + ".json"), scenario.dump());
    return RunFedran("run " + out + ".json --out " + out + " --quiet " + extra, dir.Path());
}

/// Bytes links.csv shows on `link` (throughput x interval), up to time `untilS`.
double
LinkBytes(const std::filesystem::path& run, const std::string& link, double untilS, double sampleS)
{
    double bytes = 0.0;
    for (auto& row : ReadCsv(run / "links.csv"))
    {
        if (row["link"] == link && std::stod(row["time_s"]) <= untilS + 1e-9)
        {
            bytes += std::stod(row["throughput_bps"]) * sampleS / 8.0;
        }
    }
    return bytes;
}

TEST(Hierarchical, OneEdgeRoundOfEverySiteIsFlatFedAvgWithAThirdOfTheHubLinkBytes)
{
    TempDir dir("hier-flat");
    CommandResult r = RunScenario(dir, TwoHubs(false), "flat");
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    r = RunScenario(dir, TwoHubs(true), "hier");
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;

    auto flat = ReadCsv(dir.Path() / "flat" / "rounds.csv");
    auto hier = ReadCsv(dir.Path() / "hier" / "rounds.csv");
    ASSERT_EQ(flat.size(), 3u);
    ASSERT_EQ(hier.size(), 3u);
    for (size_t k = 0; k < flat.size(); ++k)
    {
        // The hub's mean of its sites, weighted by its subtree's samples at the server, is
        // the flat sample-weighted mean; only the order of float additions differs.
        EXPECT_NEAR(std::stod(hier[k]["test_loss"]), std::stod(flat[k]["test_loss"]), 1e-5);
        EXPECT_NEAR(std::stod(hier[k]["test_accuracy"]),
                    std::stod(flat[k]["test_accuracy"]),
                    0.0005); // 5 of the 10,000 test images
        EXPECT_EQ(hier[k]["participants"], "2");
        EXPECT_EQ(flat[k]["participants"], "6");
    }
    // Both runs lose the same tail of links.csv (the last interval is not written): the
    // hub's uplink carries one update per round instead of three.
    const double flatUp = LinkBytes(dir.Path() / "flat", "hub-east-up", 1e9, 0.1);
    const double hierUp = LinkBytes(dir.Path() / "hier", "hub-east-up", 1e9, 0.1);
    EXPECT_GT(hierUp, 0.0);
    EXPECT_NEAR(hierUp / flatUp, 1.0 / 3.0, 0.02);
    EXPECT_LT(LinkBytes(dir.Path() / "hier", "core-down", 1e9, 0.1),
              0.4 * LinkBytes(dir.Path() / "flat", "core-down", 1e9, 0.1));
}

TEST(Hierarchical, TheHubLinkCarriesOneUpdatePerCloudRoundPerAggregatingHub)
{
    TempDir dir("hier-one");
    CommandResult r = RunScenario(dir, TwoHubs(true), "hier");
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    const auto path = dir.Path() / "hier";
    // clients.csv: the server's children are the two hubs (ids 6 and 7), one update each.
    std::map<std::pair<std::string, std::string>, int> updates;
    uint64_t frameBytes = 0;
    for (auto& row : ReadCsv(path / "clients.csv"))
    {
        ASSERT_TRUE(row["client"] == "6" || row["client"] == "7") << row["client"];
        EXPECT_EQ(row["group"], row["client"] == "6" ? "east" : "west");
        EXPECT_EQ(row["status"], "completed");
        ++updates[{row["round"], row["client"]}];
        frameBytes = std::stoull(row["payload_bytes"]);
    }
    EXPECT_EQ(updates.size(), 6u);
    for (auto& [key, count] : updates)
    {
        EXPECT_EQ(count, 1) << key.first << " " << key.second;
    }
    EXPECT_EQ(frameBytes, 28u + 4u + 4u + 7850u * 4u); // header, layout, count, floats
    // edge_rounds.csv: each hub took its three sites' updates once per round.
    auto edge = ReadCsv(path / "edge_rounds.csv");
    ASSERT_EQ(edge.size(), 6u);
    for (auto& row : edge)
    {
        EXPECT_EQ(row["edge_round"], "1");
        EXPECT_EQ(row["participants"], "3");
        EXPECT_EQ(std::stoull(row["uplink_bytes"]), 3 * frameBytes);
        EXPECT_EQ(std::stoull(row["downlink_bytes"]), 3 * frameBytes);
    }
    // On the wire: up to the end of round 2 the hub's uplink carried two update frames and
    // little else (TCP/IP headers, the join, ACKs of the model downloads).
    auto rounds = ReadCsv(path / "rounds.csv");
    const double untilS = std::ceil(std::stod(rounds[1]["sim_time_s"]) / 0.1) * 0.1;
    const double bytes = LinkBytes(path, "hub-east-up", untilS, 0.1);
    EXPECT_GT(bytes, 2.0 * double(frameBytes));
    EXPECT_LT(bytes, 2.0 * 1.10 * double(frameBytes));
}

TEST(Hierarchical, EdgeAndServerDeadlinesBothApplyAndALateHubIsRecorded)
{
    TempDir dir("hier-deadline");
    json scenario = TwoHubs(true);
    scenario["rounds"] = 2;
    scenario["server"]["deadline_s"] = 10;
    // Each hub has a site that needs 20 s to train: east's 5 s edge deadline leaves it out,
    // west's 30 s one waits for it past the server's 10 s.
    scenario["clients"]["groups"] = {Sites("east", 2, "east", 20000),
                                     Sites("east-slow", 1, "east", 500),
                                     Sites("west", 2, "west", 20000),
                                     Sites("west-slow", 1, "west", 500)};
    scenario["network"]["hubs"][0]["aggregator"]["deadline_s"] = 5;
    scenario["network"]["hubs"][1]["aggregator"]["deadline_s"] = 30;
    CommandResult r = RunScenario(dir, scenario, "d");
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    const auto path = dir.Path() / "d";
    auto edge = ReadCsv(path / "edge_rounds.csv");
    ASSERT_GE(edge.size(), 1u);
    EXPECT_EQ(edge[0]["hub"], "east");
    EXPECT_EQ(edge[0]["participants"], "2");
    // Closed by the edge deadline, then the edge's aggregation (server.compute) takes its
    // microseconds.
    EXPECT_GE(std::stod(edge[0]["duration_s"]), 5.0);
    EXPECT_LT(std::stod(edge[0]["duration_s"]), 5.001);
    for (auto& row : edge)
    {
        EXPECT_EQ(row["hub"], "east"); // west's edge round outlasts the run
    }
    auto rounds = ReadCsv(path / "rounds.csv");
    ASSERT_EQ(rounds.size(), 2u);
    // Closed by the server deadline, then aggregated and evaluated on the server's clock.
    EXPECT_NEAR(std::stod(rounds[0]["round_duration_s"]),
                10.0 + std::stod(rounds[0]["aggregate_s"]) + std::stod(rounds[0]["evaluate_s"]),
                2e-6);
    EXPECT_EQ(rounds[0]["participants"], "1");
    EXPECT_EQ(rounds[1]["selected"], "1"); // west is busy until its late update arrives
    std::map<std::string, std::string> round1;
    for (auto& row : ReadCsv(path / "clients.csv"))
    {
        if (row["round"] == "1")
        {
            round1[row["group"]] = row["status"];
        }
    }
    EXPECT_EQ(round1["east"], "completed");
    EXPECT_EQ(round1["west"], "late");
}

/// metro aggregates east (an aggregating hub) and the sites of west (a hub that only
/// routes) and its own two sites; the server takes metro alone.
json
Nested()
{
    json scenario = TwoHubs(true);
    scenario["clients"]["groups"].push_back(Sites("metro", 2, "metro", 20000));
    json& hubs = scenario["network"]["hubs"];
    hubs[0]["parent"] = "metro";
    hubs[1]["parent"] = "metro";
    hubs[1].erase("aggregator");
    hubs.push_back({{"name", "metro"},
                    {"backhaul", P2p("1Gbps", "1ms")},
                    {"aggregator", {{"clients_per_round", 6}, {"edge_rounds", 2}}}});
    scenario["server"]["clients_per_round"] = 1;
    return scenario;
}

TEST(Hierarchical, NestedAggregatorsRunTheirEdgeRoundsInBothTransports)
{
    TempDir dir("hier-nested");
    for (const char* transport : {"tcp", "flow"})
    {
        json scenario = Nested();
        scenario["network"]["transport"] = transport;
        CommandResult r = RunScenario(dir, scenario, transport);
        ASSERT_EQ(r.exitCode, 0) << transport << ": " << r.stderrText;
        auto rounds = ReadCsv(dir.Path() / transport / "rounds.csv");
        ASSERT_EQ(rounds.size(), 3u) << transport;
        EXPECT_GT(std::stod(rounds.back()["test_accuracy"]), 0.75) << transport;
        std::map<std::string, int> rows;
        for (auto& row : ReadCsv(dir.Path() / transport / "edge_rounds.csv"))
        {
            ++rows[row["hub"]];
            // metro: east + west's three sites + its own two; east: its three sites.
            EXPECT_EQ(row["participants"], row["hub"] == "metro" ? "6" : "3") << transport;
        }
        EXPECT_EQ(rows["metro"], 6) << transport; // 3 rounds x 2 edge rounds
        EXPECT_EQ(rows["east"], 6) << transport;  // once per metro edge round
        EXPECT_EQ(rows.count("west"), 0u) << transport;
    }
}

TEST(Hierarchical, SameSeedSameTracesAtAnyThreadCount)
{
    TempDir dir("hier-determinism");
    json scenario = Nested();
    CommandResult r = RunScenario(dir, scenario, "a", "--threads 1");
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    r = RunScenario(dir, scenario, "b", "--threads 2");
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    ExpectSameTraces(dir.Path() / "a",
                     dir.Path() / "b",
                     {"rounds.csv", "clients.csv", "edge_rounds.csv", "links.csv"});
}

TEST(Hierarchical, RefusesWhatEdgeAggregationCannotDoNamingThePath)
{
    TempDir dir("hier-refuse");
    struct Case
    {
        std::string set;
        std::string message;
    };
    const Case cases[] = {
        {"server.mode=async --set 'server.async={\"concurrency\":2,\"buffer\":2}'",
         "network.hubs.0.aggregator: edge aggregation runs synchronous rounds"},
        {"compression.downlink_reference=client_view", "network.hubs.0.aggregator: compression"},
        {"'network.hubs.0.aggregator.compression.uplink={\"type\":\"sign\",\"aggregation\":"
         "\"majority_vote\"}'",
         "network.hubs.0.aggregator.compression.uplink.type: sign"},
        {"'compression.uplink={\"type\":\"power_sgd\",\"rank\":2}'",
         "compression.uplink.type: power_sgd"},
        {"network.hubs.1.aggregator.clients_per_round=4",
         "network.hubs.1.aggregator.clients_per_round: 4 is more than hub west's direct "
         "children (3"},
        {"server.clients_per_round=3",
         "server.clients_per_round: 3 is more than the server's direct children (2"},
        {"network.hubs.0.aggregator.edge_rounds=0", "network.hubs.0.aggregator.edge_rounds"},
        {"'compression.downlink={\"type\":\"adaptive\",\"ladder\":[{\"type\":\"none\"}]}'",
         "compression.downlink.type: adaptive \"adaptive\" is not supported with "
         "network.hubs[].aggregator"},
    };
    WriteFile(dir.Path() / "s.json", TwoHubs(true).dump());
    for (const Case& c : cases)
    {
        CommandResult r = RunFedran("validate s.json --set " + c.set, dir.Path());
        EXPECT_EQ(r.exitCode, 2) << c.set;
        EXPECT_NE(r.stderrText.find(c.message), std::string::npos) << c.set << "\n" << r.stderrText;
    }
}

} // namespace
} // namespace fedran::test
