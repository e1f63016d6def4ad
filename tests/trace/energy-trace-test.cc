// The energy model (models/fl/energy-model.h) and the energy columns of clients.csv and
// rounds.csv, written without a simulator: each cell against a hand computation of the
// formula in docs/energy.md, a late update's energy charged once across its two rows.

#include "../sim/sim-test-util.h"
#include "models/fl/energy-model.h"
#include "models/trace/fl-trace-writer.h"
#include "trace-test-util.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

TEST(EnergyModel, ChargesEachPowerOverItsBusyTime)
{
    const EnergySpec spec{10.0, 2.0, 1.0, 0.5};
    EnergyTimes times;
    times.downloadS = 0.5;
    times.computeS = 3.0;
    times.encodeS = 0.25;
    times.uploadS = 1.25;
    times.windowS = 8.0;
    const ClientEnergy energy = ChargeClient(spec, times);
    EXPECT_DOUBLE_EQ(energy.computeJ, 10.0 * 3.25);
    EXPECT_DOUBLE_EQ(energy.radioJ, 2.0 * 1.25 + 1.0 * 0.5);
    EXPECT_DOUBLE_EQ(energy.idleJ, 0.5 * (8.0 - 0.5 - 3.0 - 0.25 - 1.25));

    times.windowS = 4.0; // busier than the window (overlapping steps): no negative idle
    EXPECT_DOUBLE_EQ(ChargeClient(spec, times).idleJ, 0.0);
    times = {};
    EXPECT_DOUBLE_EQ(ChargeClient(spec, times).computeJ, 0.0) << "nothing happened";
    EXPECT_DOUBLE_EQ(ChargeClient(spec, times).radioJ, 0.0);
    const EnergySpec noIdle{10.0, 2.0, 1.0, -1.0};
    times.windowS = 8.0;
    EXPECT_DOUBLE_EQ(ChargeClient(noIdle, times).idleJ, 0.0);
}

TEST(EnergyModel, PresetsResolveByName)
{
    const EnergyPreset* jetson = FindEnergyPreset("jetson_nano_10w");
    ASSERT_NE(jetson, nullptr);
    EXPECT_DOUBLE_EQ(jetson->spec.computeW, 10.0);
    EXPECT_FALSE(jetson->spec.Idle());
    for (const char* name : {"jetson_nano_5w", "raspberry_pi_4", "microwave_odu_40w", "lte_ue"})
    {
        const EnergyPreset* preset = FindEnergyPreset(name);
        ASSERT_NE(preset, nullptr) << name;
        EXPECT_FALSE(preset->source.empty()) << name;
    }
    EXPECT_EQ(FindEnergyPreset("jetson_nano"), nullptr);
}

double
Cell(const std::map<std::string, std::string>& row, const std::string& column)
{
    return std::stod(row.at(column));
}

TEST(FlTraceWriter, WritesEnergyByTheFormulaAndChargesALateUpdateOnce)
{
    TempDir dir("energy-trace");
    const EnergySpec spec{10.0, 2.0, 1.0, 0.5};
    {
        FlTraceWriter writer(dir.Path().string(), {"a", "a", "b"}, "none");
        writer.SetEnergy({spec, spec, std::nullopt}, 100.0);
        RoundRecord record;
        record.round = 1;
        record.startS = 1.0;
        record.endS = 9.0;
        record.selected = {0, 1, 2};
        record.aggregateS = 0.01;
        record.evaluateS = 0.02;
        ClientRow done;
        done.modelSentS = 1.0;
        done.modelReceivedS = 1.5;
        done.computeS = 3.0;
        done.encodeS = 0.25;
        done.uploadStartS = 4.75;
        done.uploadEndS = 6.0;
        done.decodeS = 0.125;
        done.arrived = true;
        done.fate = UpdateFate::Accepted;
        done.windowStartS = record.startS;
        done.windowEndS = record.endS;
        writer.WriteClientRow(1, 0, done, "completed");
        // Still uploading when the round ends: training charged now, the upload on arrival.
        ClientRow late = done;
        late.uploadEndS = -1.0;
        late.decodeS = -1.0;
        late.arrived = false;
        const ClientEnergy charged = writer.WriteClientRow(1, 1, late, "late");
        EXPECT_DOUBLE_EQ(charged.computeJ, 32.5);
        writer.WriteClientRow(1, 2, done, "completed"); // no energy model: empty cells
        writer.WriteRoundRow(record, {}, {});
        late.uploadEndS = 9.5;
        late.charged = charged;
        writer.WriteClientRow(1, 1, late, "late_arrival");
        record.round = 2;
        record.startS = 9.0;
        record.endS = 12.0;
        record.selected = {};
        writer.WriteRoundRow(record, {}, {});
        writer.Sync();
    }
    const auto clients = ReadCsv(dir.Path() / "clients.csv");
    ASSERT_EQ(clients.size(), 4u);
    EXPECT_DOUBLE_EQ(Cell(clients[0], "energy_compute_j"), 10.0 * 3.25);
    EXPECT_DOUBLE_EQ(Cell(clients[0], "energy_radio_j"), 2.0 * 1.25 + 1.0 * 0.5);
    EXPECT_DOUBLE_EQ(Cell(clients[0], "energy_idle_j"), 0.5 * (8.0 - 5.0));
    EXPECT_DOUBLE_EQ(Cell(clients[1], "energy_compute_j"), 32.5);
    EXPECT_DOUBLE_EQ(Cell(clients[1], "energy_radio_j"), 0.5) << "the download only";
    EXPECT_DOUBLE_EQ(Cell(clients[1], "energy_idle_j"), 0.0) << "busy until the round's end";
    EXPECT_EQ(clients[2].at("energy_compute_j"), "");
    EXPECT_EQ(clients[2].at("energy_radio_j"), "");
    EXPECT_EQ(clients[2].at("energy_idle_j"), "");
    EXPECT_EQ(clients[3].at("status"), "late_arrival");
    EXPECT_DOUBLE_EQ(Cell(clients[3], "energy_compute_j"), 0.0);
    EXPECT_DOUBLE_EQ(Cell(clients[3], "energy_radio_j"), 2.0 * (9.5 - 4.75));
    EXPECT_DOUBLE_EQ(Cell(clients[3], "energy_idle_j"), 0.0);

    const auto rounds = ReadCsv(dir.Path() / "rounds.csv");
    ASSERT_EQ(rounds.size(), 2u);
    const double server1 = 100.0 * (0.125 + 0.125 + 0.01 + 0.02); // two decodes of row 0 and 2
    const double round1 = 32.5 + 3.0 + 1.5 + 32.5 + 0.5 + server1;
    EXPECT_NEAR(Cell(rounds[0], "energy_j"), round1, 1e-9);
    const double round2 = 2.0 * 4.75 + 100.0 * 0.03;
    EXPECT_NEAR(Cell(rounds[1], "energy_j"), round2, 1e-9) << "the late upload, when it ended";
    EXPECT_NEAR(Cell(rounds[1], "cumulative_energy_j"), round1 + round2, 1e-9);
}

TEST(FlTraceWriter, LeavesEnergyEmptyWithoutAnEnergyModel)
{
    TempDir dir("energy-none");
    {
        FlTraceWriter writer(dir.Path().string(), {"a"}, "none");
        ClientRow done;
        done.computeS = 1.0;
        done.arrived = true;
        done.fate = UpdateFate::Accepted;
        writer.WriteClientRow(1, 0, done, "completed");
        RoundRecord record;
        record.round = 1;
        record.endS = 2.0;
        record.selected = {0};
        writer.WriteRoundRow(record, {}, {});
        writer.Sync();
    }
    const auto clients = ReadCsv(dir.Path() / "clients.csv");
    EXPECT_EQ(clients.at(0).at("energy_compute_j"), "");
    const auto rounds = ReadCsv(dir.Path() / "rounds.csv");
    EXPECT_EQ(rounds.at(0).at("energy_j"), "");
    EXPECT_EQ(rounds.at(0).at("cumulative_energy_j"), "");
}

} // namespace
} // namespace fedran::test
