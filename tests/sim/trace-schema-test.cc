// The trace table (simulator/trace-columns.cc): compiled in unchanged, well formed, and the
// header of every CSV file a run writes, in order. CsvWriter rejects rows of the wrong length.

#include "models/learning/partition-summary.h"
#include "sim-test-util.h"
#include "simulator/csv-writer.h"
#include "simulator/trace-schema.h"

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
    const std::string text = ReadFile(fs::path(FEDRAN_SOURCE_DIR) / "simulator/trace-columns.cc");
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

/// A CSV line split into cells (quoted cells as RFC 4180 writes them).
std::vector<std::string>
SplitCsvLine(const std::string& line)
{
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i)
    {
        const char c = line[i];
        if (quoted)
        {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
            {
                cells.back() += '"';
                ++i;
            }
            else if (c == '"')
            {
                quoted = false;
            }
            else
            {
                cells.back() += c;
            }
        }
        else if (c == '"')
        {
            quoted = true;
        }
        else if (c == ',')
        {
            cells.emplace_back();
        }
        else
        {
            cells.back() += c;
        }
    }
    return cells;
}

/// The header is exactly the table's (names and order) and every cell fits its column.
void
ExpectFileFitsTable(const fs::path& path, const TraceRepeatCounts& counts = {})
{
    const std::string file = path.filename().string();
    const TraceFile& entry = GetTraceFile(file);
    std::istringstream in(ReadFile(path));
    std::string line;
    ASSERT_TRUE(std::getline(in, line)) << path << ": empty";
    const std::vector<std::string> header = SplitCsvLine(line);
    ASSERT_EQ(header, TraceHeader(file, counts)) << path;
    // The column of each header cell (a repeated column covers several).
    std::vector<const TraceColumn*> columns;
    for (const TraceColumn& column : entry.columns)
    {
        const size_t times = column.repeatCount.empty() ? 1 : counts.at(column.repeatCount);
        columns.insert(columns.end(), times, &column);
    }
    size_t rows = 0;
    for (size_t number = 2; std::getline(in, line); ++number, ++rows)
    {
        const std::vector<std::string> cells = SplitCsvLine(line);
        ASSERT_EQ(cells.size(), columns.size()) << path << ":" << number;
        for (size_t i = 0; i < cells.size(); ++i)
        {
            EXPECT_TRUE(TraceCellFits(*columns[i], cells[i]))
                << path << ":" << number << ": " << header[i] << " \"" << cells[i] << "\"";
        }
    }
    EXPECT_GT(rows, 0u) << path;
}

TEST(TraceSchema, TableIsTheSourceFileCompiledInAndWellFormed)
{
    json fromSource;
    ASSERT_NO_THROW(fromSource = json::parse(TableTextFromSource()));
    EXPECT_EQ(json::parse(TraceColumnsJson()), fromSource);

    const std::set<std::string>
        units{"", "s", "B", "bit/s", "dB", "nats", "0–1", "clients", "examples/s"};
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

TEST(TraceSchema, ARunWritesEveryTableFileWithItsHeader)
{
    TempDir dir("trace-schema-run");
    json scenario = TinyScenario(3, 2, 2);
    scenario["output"] = {{"link_sample_s", 0.5}};
    // Two of the sites behind an edge aggregator (edge_rounds.csv), one reporting directly.
    json behindHub = scenario["clients"]["groups"][0];
    behindHub["name"] = "behind-hub";
    behindHub["count"] = 2;
    behindHub["hub"] = "edge";
    scenario["clients"]["groups"][0]["count"] = 1;
    scenario["clients"]["groups"].push_back(behindHub);
    scenario["network"]["hubs"] = {
        {{"name", "edge"},
         {"backhaul", {{"type", "p2p"}, {"rate", "100Mbps"}, {"delay", "1ms"}}},
         {"aggregator", {{"clients_per_round", 2}}}}};
    WriteFile(dir.Path() / "s.json", scenario.dump());
    const CommandResult r = RunFedran("run s.json --out out --quiet", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    std::vector<std::string> written;
    for (const auto& entry : fs::directory_iterator(dir.Path() / "out"))
    {
        if (entry.path().extension() == ".csv")
        {
            written.push_back(entry.path().filename().string());
        }
    }
    std::sort(written.begin(), written.end());
    std::vector<std::string> listed;
    for (const TraceFile& file : TraceFiles())
    {
        listed.push_back(file.file);
    }
    std::sort(listed.begin(), listed.end());
    EXPECT_EQ(written, listed) << "every CSV file a run writes is in the trace table";
    for (const std::string& file : listed)
    {
        SCOPED_TRACE(file);
        ExpectFileFitsTable(dir.Path() / "out" / file, {{"classes", 10}}); // Fashion-MNIST
    }
}

} // namespace
} // namespace fedran::test
