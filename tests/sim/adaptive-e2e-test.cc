// Adaptive uplink end to end: the client measures its own uploads over ns-3 TCP, the deadline
// policy picks a rung that arrives in time where the full update does not, and lazy updates
// skip but never more than max_staleness rounds in a row.

#include "sim-test-util.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

const char* kLadder = R"([{"type":"none"},{"type":"quantization","bits":8},{"type":"sign"}])";

/// 4 clients on 200 kbit/s links, deadline 3 s: the 31 kB softmax update alone takes 1.3 s
/// up after a 1.3 s download and 0.75 s of compute, so it misses; 8-bit (8 kB) fits.
nlohmann::json
SlowLinkScenario()
{
    nlohmann::json s = TinyScenario(4, 4, 4);
    s["server"]["deadline_s"] = 3;
    s["clients"]["groups"][0]["backhaul"]["rate"] = "200kbps";
    return s;
}

std::string
Uplink(const std::string& controller)
{
    return std::string("--set 'compression.uplink={\"type\":\"adaptive\",\"ladder\":") + kLadder +
           "," + controller + "}'";
}

TEST(Adaptive, DeadlinePolicyPicksARungThatArrivesWhereTheFullUpdateIsLate)
{
    TempDir dir("adaptive-deadline");
    WriteFile(dir.Path() / "s.json", SlowLinkScenario().dump());
    CommandResult r = RunFedran("run s.json --out deadline --quiet " +
                                    Uplink("\"policy\":\"deadline\",\"safety\":0.8"),
                                dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    r = RunFedran("run s.json --out none --quiet " + Uplink("\"policy\":\"fixed\",\"rung\":0"),
                  dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;

    const auto adaptive = ReadCsv(dir.Path() / "deadline" / "clients.csv");
    ASSERT_EQ(adaptive.size(), 16u);
    for (const auto& row : adaptive)
    {
        EXPECT_EQ(row.at("rung"), "1") << "round " << row.at("round");
        EXPECT_EQ(row.at("deadline_met"), "1");
        EXPECT_EQ(row.at("status"), "completed");
        EXPECT_EQ(row.at("skipped"), "0");
        const double budget = std::stod(row.at("time_budget_s"));
        EXPECT_GT(budget, 0.0);
        EXPECT_LT(budget, 3.0);
        // Round 1 predicts from the model download (its first packet's serialisation is not
        // seen, so it reads slightly above the rate), later rounds from measured uploads.
        const double predicted = std::stod(row.at("predicted_bps"));
        EXPECT_GT(predicted, 100e3);
        EXPECT_LT(predicted, 220e3);
        if (row.at("round") != "1")
        {
            const double measured = std::stod(row.at("measured_bps"));
            EXPECT_GT(measured, 50e3) << "an 8 kB upload acknowledged over 200 kbit/s";
            EXPECT_LT(measured, 200e3);
        }
    }
    for (const auto& row : ReadCsv(dir.Path() / "none" / "clients.csv"))
    {
        EXPECT_EQ(row.at("rung"), "0");
        EXPECT_EQ(row.at("deadline_met"), "0") << "the full update cannot make 3 s";
    }
}

TEST(Adaptive, LazyUpdatesSkipAtMostMaxStalenessInARowAndTheServerReusesThem)
{
    TempDir dir("adaptive-lazy");
    nlohmann::json s = TinyScenario(2, 2, 8);
    WriteFile(dir.Path() / "s.json", s.dump());
    // skip_ratio 1: skip whenever the update is below the mean of the recent ones, which
    // happens as training converges; at most one skip in a row.
    CommandResult r = RunFedran(
        "run s.json --out out --quiet " +
            Uplink("\"policy\":\"fixed\",\"skip_ratio\":1.0,\"max_staleness\":1,"
                   "\"on_skip\":\"reuse\""),
        dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    std::map<std::string, int> inARow;
    int skips = 0;
    for (const auto& row : ReadCsv(dir.Path() / "out" / "clients.csv"))
    {
        const bool skipped = row.at("skipped") == "1";
        int& run = inARow[row.at("client")];
        run = skipped ? run + 1 : 0;
        skips += skipped;
        EXPECT_LE(run, 1) << "client " << row.at("client") << " round " << row.at("round");
        EXPECT_EQ(row.at("status"), "completed");
        if (skipped)
        {
            EXPECT_EQ(row.at("rung"), "");
            EXPECT_EQ(row.at("payload_bytes"), "28") << "a skip is an empty update frame";
        }
    }
    EXPECT_GE(skips, 1);
    // The model still learns (chance is 0.1).
    const auto rounds = ReadCsv(dir.Path() / "out" / "rounds.csv");
    EXPECT_GT(std::stod(rounds.back().at("test_accuracy")), 0.6);
}

} // namespace
} // namespace fedran::test
