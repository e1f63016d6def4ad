// The energy model through a whole run (docs/energy.md): on every clients.csv row the energy
// columns equal the formula applied to the row's own cells (a late update's upload charged
// on its late_arrival row), rounds.csv's energy_j sums the rows written during the round plus
// the server's, and a scenario without energy leaves every energy cell empty.

#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>

namespace fedran::test
{
namespace
{

using Row = std::map<std::string, std::string>;

double
Num(const Row& row, const std::string& column)
{
    const std::string& cell = row.at(column);
    return cell.empty() ? 0.0 : std::stod(cell);
}

bool
Has(const Row& row, const std::string& column)
{
    return !row.at(column).empty();
}

struct Powers
{
    double compute, tx, rx, idle;
};

/// Equal but for the rounding of the time cells the expectation is made from (microseconds,
/// times a few watts) and of the 9-digit energy cells.
void
ExpectJoules(double written, double expected, const std::string& what)
{
    EXPECT_NEAR(written, expected, 5e-5 + 1e-6 * std::abs(expected)) << what;
}

TEST(EnergyE2e, EveryRowFollowsTheFormulaAndRoundsSumThem)
{
    TempDir dir("energy-e2e");
    nlohmann::json s = TinyScenario(4, 2, 4);
    // Every client selected, the round closing at its second update: the slow pair is late
    // and its updates arrive in the next round (late_arrival rows).
    s["server"]["over_select"] = 2.0;
    s["server"]["energy"] = {{"compute_w", 100}};
    nlohmann::json slow = s["clients"]["groups"][0];
    s["clients"]["groups"][0]["name"] = "fast";
    s["clients"]["groups"][0]["count"] = 2;
    s["clients"]["groups"][0]["energy"] = {{"compute_w", 12},
                                           {"tx_w", 3},
                                           {"rx_w", 1.5},
                                           {"idle_w", 0.75}};
    slow["name"] = "slow";
    slow["count"] = 2;
    slow["compute"]["samples_per_second"] = 8000;
    slow["energy"] = {{"preset", "raspberry_pi_4"}};
    s["clients"]["groups"].push_back(slow);
    WriteFile(dir.Path() / "energy.json", s.dump());
    const CommandResult r = RunFedran("run energy.json --out out --quiet", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    const auto rounds = ReadCsv(dir.Path() / "out" / "rounds.csv");
    const auto clients = ReadCsv(dir.Path() / "out" / "clients.csv");
    ASSERT_EQ(rounds.size(), 4u);

    const std::map<std::string, Powers> powers = {{"fast", {12, 3, 1.5, 0.75}},
                                                  {"slow", {5.2, 3.94, 3.94, 2.8}}};
    std::map<uint32_t, std::pair<double, double>> window; // round -> (start, end)
    for (const Row& round : rounds)
    {
        const double end = Num(round, "sim_time_s");
        window[uint32_t(Num(round, "round"))] = {end - Num(round, "round_duration_s"), end};
    }
    std::map<std::pair<std::string, std::string>, const Row*> lateRows;
    std::map<uint32_t, double> roundJ;      // client energy by the round it was written in
    std::map<uint32_t, double> roundDecode; // decode_s likewise
    int late = 0;
    int arrivals = 0;
    for (const Row& row : clients)
    {
        const Powers& p = powers.at(row.at("group"));
        const uint32_t round = uint32_t(Num(row, "round"));
        const auto [start, end] = window.at(round);
        // The models leave at the round's start, all at once.
        const double download =
            Has(row, "model_received_s") ? Num(row, "model_received_s") - start : 0;
        const double upload =
            Has(row, "upload_end_s") ? Num(row, "upload_end_s") - Num(row, "upload_start_s") : 0.0;
        double computeJ = p.compute * (Num(row, "compute_s") + Num(row, "encode_s"));
        double radioJ = p.tx * upload + p.rx * download;
        double idleJ = 0.0;
        uint32_t written = round;
        const std::string& status = row.at("status");
        const std::string what =
            "round " + row.at("round") + " client " + row.at("client") + " " + status;
        if (status == "late_arrival")
        {
            ++arrivals;
            const Row& before = *lateRows.at({row.at("round"), row.at("client")});
            computeJ -= Num(before, "energy_compute_j");
            radioJ -= Num(before, "energy_radio_j");
            const double at = Num(row, "upload_end_s");
            written = 0;
            for (const auto& [r, span] : window)
            {
                written = (written == 0 && at <= span.second) ? r : written;
            }
        }
        else if (Has(row, "upload_end_s") && Num(row, "upload_end_s") <= end)
        {
            const double busy = download + Num(row, "compute_s") + Num(row, "encode_s") + upload;
            idleJ = p.idle * std::max(0.0, (end - start) - busy);
        }
        if (status == "late")
        {
            ++late;
            lateRows[{row.at("round"), row.at("client")}] = &row;
        }
        ExpectJoules(Num(row, "energy_compute_j"), computeJ, what + " compute");
        ExpectJoules(Num(row, "energy_radio_j"), radioJ, what + " radio");
        ExpectJoules(Num(row, "energy_idle_j"), idleJ, what + " idle");
        EXPECT_TRUE(Has(row, "energy_idle_j")) << what;
        if (written != 0)
        {
            roundJ[written] += Num(row, "energy_compute_j") + Num(row, "energy_radio_j") +
                               Num(row, "energy_idle_j");
            roundDecode[written] += Num(row, "decode_s");
        }
    }
    EXPECT_GT(late, 0) << "the scenario should make late rows";
    EXPECT_GT(arrivals, 0) << "and late arrivals";

    double cumulative = 0.0;
    for (const Row& round : rounds)
    {
        const uint32_t r = uint32_t(Num(round, "round"));
        const double serverJ =
            100.0 * (roundDecode[r] + Num(round, "aggregate_s") + Num(round, "evaluate_s"));
        ExpectJoules(Num(round, "energy_j"), roundJ[r] + serverJ, "round " + round.at("round"));
        cumulative += Num(round, "energy_j");
        ExpectJoules(Num(round, "cumulative_energy_j"), cumulative, "cumulative");
    }
}

TEST(EnergyE2e, WithoutEnergyEveryEnergyCellIsEmpty)
{
    TempDir dir("energy-none");
    WriteFile(dir.Path() / "plain.json", TinyScenario(2, 2, 2).dump());
    const CommandResult r = RunFedran("run plain.json --out out --quiet", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    for (const Row& row : ReadCsv(dir.Path() / "out" / "clients.csv"))
    {
        for (const char* column : {"energy_compute_j", "energy_radio_j", "energy_idle_j"})
        {
            EXPECT_EQ(row.at(column), "") << column;
        }
    }
    for (const Row& row : ReadCsv(dir.Path() / "out" / "rounds.csv"))
    {
        EXPECT_EQ(row.at("energy_j"), "");
        EXPECT_EQ(row.at("cumulative_energy_j"), "");
    }
}

TEST(EnergyE2e, AnUnknownPresetExitsWithStatusTwoNamingTheKey)
{
    TempDir dir("energy-bad");
    nlohmann::json s = TinyScenario(2, 2, 1);
    s["clients"]["groups"][0]["energy"] = {{"preset", "jetson"}};
    WriteFile(dir.Path() / "bad.json", s.dump());
    const CommandResult r = RunFedran("run bad.json --out out --quiet", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("clients.groups.0.energy.preset"), std::string::npos)
        << r.stderrText;
}

} // namespace
} // namespace fedran::test
