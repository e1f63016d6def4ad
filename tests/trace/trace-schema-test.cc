// The trace table (models/trace/trace-columns.cc): compiled in unchanged, well formed, and the
// header of every CSV file a run writes, in order (tests/sim/trace-files-test.cc checks a
// run's files against it). CsvWriter rejects rows of the wrong length.

#include "../sim/sim-test-util.h"
#include "models/learning/partition-summary.h"
#include "models/trace/csv-writer.h"
#include "models/trace/trace-schema.h"
#include "trace-test-util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>

namespace fedran::test
{
namespace
{

namespace fs = std::filesystem;
using nlohmann::json;

/// The JSON between the raw-string markers of the source file, as analysis/trace_schema.py
/// reads it.
std::string
TableTextFromSource()
{
    const std::string text =
        ReadFile(fs::path(FEDRAN_SOURCE_DIR) / "models/trace/trace-columns.cc");
    const std::string begin = "R\"trace-columns(";
    const size_t at = text.find(begin);
    const size_t end = text.find(")trace-columns\"");
    EXPECT_NE(at, std::string::npos);
    EXPECT_NE(end, std::string::npos);
    if (at == std::string::npos || end == std::string::npos || end < at)
    {
        return "{}";
    }
    return text.substr(at + begin.size(), end - at - begin.size());
}

TEST(TraceSchema, TableIsTheSourceFileCompiledInAndWellFormed)
{
    json fromSource;
    ASSERT_NO_THROW(fromSource = json::parse(TableTextFromSource()));
    EXPECT_EQ(json::parse(TraceColumnsJson()), fromSource);

    // "signal": a forecast error in the forecast series' own units (e.g. Milan's activity);
    // "J": energy (docs/energy.md).
    const std::set<std::string>
        units{"", "s", "B", "bit/s", "dB", "nats", "0–1", "clients", "examples/s", "signal", "J"};
    std::vector<std::string> files;
    for (const TraceFile& file : TraceFiles())
    {
        files.push_back(file.file);
        EXPECT_FALSE(file.description.empty()) << file.file;
        EXPECT_TRUE(fs::is_regular_file(fs::path(FEDRAN_SOURCE_DIR) / file.writer))
            << file.file << ": writer " << file.writer;
        ASSERT_FALSE(file.columns.empty()) << file.file;
        for (const TraceColumn& column : file.columns)
        {
            EXPECT_GT(column.description.size(), 10u) << file.file << " " << column.name;
            EXPECT_TRUE(units.count(column.unit))
                << file.file << " " << column.name << ": unit \"" << column.unit << "\"";
            if (column.type == TraceType::Bool)
            {
                EXPECT_EQ(column.unit, "") << file.file << " " << column.name << ": 0/1 already";
            }
        }
    }
    EXPECT_EQ(files,
              (std::vector<std::string>{"rounds.csv",
                                        "clients.csv",
                                        "edge_rounds.csv",
                                        "partition.csv",
                                        "population.csv",
                                        "links.csv"}));
}

TEST(TraceSchema, HeadersExpandRepeatedColumnsAndNameWhatIsMissing)
{
    EXPECT_EQ(TraceHeader("population.csv"),
              (std::vector<std::string>{"client", "group", "samples_per_second", "hub"}));
    EXPECT_EQ(TraceHeader("partition.csv", {{"classes", 2}}),
              (std::vector<std::string>{"client", "group", "samples", "label_0", "label_1"}));
    try
    {
        TraceHeader("partition.csv");
        ADD_FAILURE() << "no count for label_{i}";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("label_{i}"), std::string::npos) << e.what();
    }
    try
    {
        GetTraceFile("round.csv");
        ADD_FAILURE() << "round.csv is not a trace";
    }
    catch (const std::out_of_range& e)
    {
        EXPECT_NE(std::string(e.what()).find("\"round.csv\""), std::string::npos) << e.what();
    }
}

TEST(TraceSchema, CellsFitTheirColumnsType)
{
    const TraceFile& clients = GetTraceFile("clients.csv");
    auto column = [&](const std::string& name) -> const TraceColumn& {
        return *std::find_if(clients.columns.begin(),
                             clients.columns.end(),
                             [&](const TraceColumn& c) { return c.name == name; });
    };
    EXPECT_TRUE(TraceCellFits(column("round"), "12"));
    EXPECT_FALSE(TraceCellFits(column("round"), "1.5"));
    EXPECT_FALSE(TraceCellFits(column("round"), ""));
    EXPECT_TRUE(TraceCellFits(column("update_norm"), "3.64583e-05"));
    EXPECT_FALSE(TraceCellFits(column("update_norm"), "fast"));
    EXPECT_TRUE(TraceCellFits(column("upload_end_s"), ""));
    EXPECT_TRUE(TraceCellFits(column("skipped"), "1"));
    EXPECT_FALSE(TraceCellFits(column("skipped"), "2"));
    EXPECT_TRUE(TraceCellFits(column("status"), "late"));
    EXPECT_FALSE(TraceCellFits(column("status"), "lost"));
    EXPECT_TRUE(TraceCellFits(column("group"), "slow,far"));
    EXPECT_FALSE(TraceCellFits(column("group"), ""));
}

TEST(TraceSchema, CsvWriterRejectsRowsOfTheWrongLength)
{
    TempDir dir("csv-writer");
    std::unique_ptr<CsvWriter> csv = OpenTrace(dir.Path().string(), "population.csv");
    EXPECT_EQ(csv->Columns(), TraceHeader("population.csv"));
    csv->Add(uint64_t{0}).Add("near").Add(1000.0, 3).Add("");
    csv->EndRow();
    csv->Flush();
    // One cell too few: EndRow names the missing column.
    csv->Add(uint64_t{1}).Add("far");
    try
    {
        csv->EndRow();
        ADD_FAILURE() << "a row of 2 cells ended";
    }
    catch (const std::logic_error& e)
    {
        EXPECT_NE(std::string(e.what()).find("population.csv: row has 2 cells, expected 4 "
                                             "(missing samples_per_second"),
                  std::string::npos)
            << e.what();
    }
    // Flushing half a row is the same bug.
    EXPECT_THROW(csv->Flush(), std::logic_error);
    // One cell too many: the extra cell itself throws.
    csv->Add(2000.0, 3).Add("hub-a");
    EXPECT_THROW(csv->Add("extra"), std::logic_error);
    EXPECT_EQ(ReadFile(dir.Path() / "population.csv"),
              "client,group,samples_per_second,hub\n0,near,1000.000,\n");
}

TEST(TraceSchema, PartitionWriterHasTheTablesHeader)
{
    // partition.csv is written by fedran-models (models/learning/partition-summary.cc), which
    // has no access to the table: its header is held to the table here.
    TempDir dir("partition-header");
    const fs::path path = dir.Path() / "partition.csv";
    const std::vector<uint8_t> labels{0, 1, 2, 3};
    WritePartitionCsv(path.string(), {{0, 1}, {2, 3}}, labels, 4, {"a", "b"});
    ExpectFileFitsTable(path, {{"classes", 4}});
}

TEST(TraceSchema, GoldenTracesHaveTheTablesHeadersAndTypes)
{
    size_t checked = 0;
    for (const auto& scenario :
         fs::directory_iterator(fs::path(FEDRAN_SOURCE_DIR) / "tests/golden"))
    {
        if (!scenario.is_directory())
        {
            continue;
        }
        for (const auto& file : fs::directory_iterator(scenario.path()))
        {
            SCOPED_TRACE(file.path().string());
            ExpectFileFitsTable(file.path());
            ++checked;
        }
    }
    EXPECT_GE(checked, 9u * 3);
}

} // namespace
} // namespace fedran::test
