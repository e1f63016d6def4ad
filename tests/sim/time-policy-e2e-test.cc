// The `time` policy end to end over ns-3 TCP: on uplinks of 1 and 20 Mbit/s with equal
// compute, clients finish their uploads together (AdaGQ's equal-finish rule) and rounds are
// shorter than with the full update; the traces do not depend on the thread count.

#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace fedran::test
{
namespace
{

/// Two sites with equal compute, uplinks of 1 and 20 Mbit/s. Both download at 100 Mbit/s:
/// no uplink choice shortens a slow download, so a symmetric slow link would keep the finish
/// times apart whatever the policy (that is the adaptive downlink's part).
nlohmann::json
TwoRates()
{
    nlohmann::json s = TinyScenario(2, 2, 6);
    nlohmann::json slow = s["clients"]["groups"][0];
    slow["name"] = "slow";
    slow["count"] = 1;
    slow["backhaul"]["rate"] = "1Mbps";
    slow["backhaul"]["rate_down"] = "100Mbps";
    nlohmann::json fast = slow;
    fast["name"] = "fast";
    fast["backhaul"]["rate"] = "20Mbps";
    s["clients"]["groups"] = {slow, fast};
    return s;
}

std::string
Uplink(const std::string& controller)
{
    return std::string("--set 'compression.uplink={\"type\":\"adaptive\",\"ladder\":[") +
           R"({"type":"none"},{"type":"quantization","bits":8},{"type":"sign"}],)" + controller +
           "}'";
}

struct RoundTimes
{
    std::map<int, double> spreadS;   ///< latest minus earliest upload end, per round
    std::map<int, double> durationS; ///< rounds.csv round_duration_s
};

RoundTimes
Read(const std::filesystem::path& out)
{
    RoundTimes times;
    std::map<int, std::pair<double, double>> ends;
    for (const auto& row : ReadCsv(out / "clients.csv"))
    {
        const int round = std::stoi(row.at("round"));
        const double end = std::stod(row.at("upload_end_s"));
        auto [it, fresh] = ends.try_emplace(round, end, end);
        it->second = {std::min(it->second.first, end), std::max(it->second.second, end)};
    }
    for (const auto& [round, range] : ends)
    {
        times.spreadS[round] = range.second - range.first;
    }
    for (const auto& row : ReadCsv(out / "rounds.csv"))
    {
        times.durationS[std::stoi(row.at("round"))] = std::stod(row.at("round_duration_s"));
    }
    return times;
}

TEST(TimePolicy, SlowAndFastUplinksFinishTogetherInShorterRounds)
{
    TempDir dir("time-policy");
    WriteFile(dir.Path() / "s.json", TwoRates().dump());
    CommandResult r =
        RunFedran("run s.json --out time --quiet --threads 1 " + Uplink(R"("policy":"time")"),
                  dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    r = RunFedran("run s.json --out time2 --quiet --threads 2 " + Uplink(R"("policy":"time")"),
                  dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    ExpectSameTraces(dir.Path() / "time", dir.Path() / "time2");
    r = RunFedran("run s.json --out none --quiet " + Uplink(R"("policy":"fixed","rung":0)"),
                  dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;

    const RoundTimes time = Read(dir.Path() / "time");
    const RoundTimes none = Read(dir.Path() / "none");
    ASSERT_EQ(time.spreadS.size(), 6u);
    ASSERT_EQ(none.spreadS.size(), 6u);
    // Round 1 has no upload measured yet: both clients plan with their 100 Mbit/s download,
    // so the slow one sends the full update. From round 2 on, each plans with its own uploads.
    for (int round = 2; round <= 6; ++round)
    {
        EXPECT_LE(time.spreadS.at(round), none.spreadS.at(round) / 3.0) << "round " << round;
        EXPECT_LT(time.durationS.at(round), none.durationS.at(round)) << "round " << round;
    }
    // The slow client sends a coarser rung than the fast one.
    for (const auto& row : ReadCsv(dir.Path() / "time" / "clients.csv"))
    {
        if (row.at("round") != "1" && row.at("group") == "slow")
        {
            EXPECT_NE(row.at("rung"), "0") << "round " << row.at("round");
        }
    }
}

} // namespace
} // namespace fedran::test
