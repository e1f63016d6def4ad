// The rows of rounds.csv and clients.csv (models/trace/fl-trace-writer.h), written without a
// simulator: the table's header, cells that fit their columns, empty cells for what did not
// happen.

#include "../sim/sim-test-util.h"
#include "models/trace/fl-trace-writer.h"
#include "trace-test-util.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

TEST(FlTraceWriter, WritesTheTablesColumnsWithEmptyCellsForWhatDidNotHappen)
{
    TempDir dir("fl-trace-writer");
    {
        FlTraceWriter writer(dir.Path().string(), {"near", "far"}, "top_k");
        writer.SetClientHubs({"", "hub-a"});
        ClientRow done;
        done.modelReceivedS = 0.5;
        done.computeS = 1.25;
        done.uploadStartS = 1.75;
        done.uploadEndS = 2.0;
        done.rawBytes = 4000;
        done.payloadBytes = 428;
        done.downlinkBytes = 4028;
        done.arrived = true;
        done.fate = UpdateFate::Accepted;
        done.aggregateWeight = 1.0;
        writer.WriteClientRow(1, 0, done, ClientStatus(done.fate, done.arrived));
        const ClientRow late; // selected, never answered
        writer.WriteClientRow(1, 1, late, ClientStatus(late.fate, late.arrived));
        RoundRecord record;
        record.round = 1;
        record.startS = 0.25;
        record.endS = 2.5;
        record.selected = {0, 1};
        record.participants = 1;
        record.robustRule = "mean";
        RunTotals totals;
        totals.uplinkWireBytes = 600;
        totals.downlinkWireBytes = 9000;
        writer.WriteRoundRow(record, {428, 8056, 600, 9000}, totals);
        writer.Sync();
    }
    size_t rows = 0;
    ExpectFileFitsTable(dir.Path() / "rounds.csv", {}, &rows);
    EXPECT_EQ(rows, 1u);
    ExpectFileFitsTable(dir.Path() / "clients.csv", {}, &rows);
    EXPECT_EQ(rows, 2u);

    const auto round = ReadCsv(dir.Path() / "rounds.csv");
    ASSERT_EQ(round.size(), 1u);
    EXPECT_EQ(round[0].at("round_duration_s"), "2.250000");
    EXPECT_EQ(round[0].at("selected"), "2");
    EXPECT_EQ(round[0].at("uplink_payload_bytes"), "428");
    EXPECT_EQ(round[0].at("cumulative_wire_bytes"), "9600");
    EXPECT_EQ(round[0].at("buffer_fill_s"), "") << "sync mode";

    const auto clients = ReadCsv(dir.Path() / "clients.csv");
    ASSERT_EQ(clients.size(), 2u);
    EXPECT_EQ(clients[0].at("status"), "completed");
    EXPECT_EQ(clients[0].at("group"), "near");
    EXPECT_EQ(clients[0].at("codec"), "top_k");
    EXPECT_EQ(clients[0].at("hub"), "");
    EXPECT_EQ(clients[0].at("staleness"), "0");
    EXPECT_EQ(clients[1].at("status"), "late");
    EXPECT_EQ(clients[1].at("hub"), "hub-a");
    EXPECT_EQ(clients[1].at("upload_end_s"), "");
    EXPECT_EQ(clients[1].at("aggregate_weight"), "");
    EXPECT_EQ(clients[1].at("model_version"), "0");
}

TEST(FlTraceWriter, NamesEveryFateAsClientsCsvDoes)
{
    EXPECT_STREQ(ClientStatus(UpdateFate::Accepted, false), "late");
    EXPECT_STREQ(ClientStatus(UpdateFate::Accepted, true), "completed");
    EXPECT_STREQ(ClientStatus(UpdateFate::Failed, true), "failed");
    EXPECT_STREQ(ClientStatus(UpdateFate::Dropped, true), "dropped");
    EXPECT_STREQ(ClientStatus(UpdateFate::Stale, true), "stale");
    EXPECT_STREQ(ClientStatus(UpdateFate::Corrupt, true), "corrupt");
}

} // namespace
} // namespace fedran::test
