#ifndef FEDRAN_TESTS_TRACE_TRACE_TEST_UTIL_H
#define FEDRAN_TESTS_TRACE_TRACE_TEST_UTIL_H

// Checks a trace file against the column table (models/trace/trace-columns.cc); used by the
// table's own tests and by the tests of the programs that write traces.

#include "../sim/sim-test-util.h"
#include "models/trace/trace-schema.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace fedran::test
{

/// A CSV line split into cells (quoted cells as RFC 4180 writes them).
inline std::vector<std::string>
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
inline void
ExpectFileFitsTable(const std::filesystem::path& path,
                    const TraceRepeatCounts& counts = {},
                    size_t* rowCount = nullptr)
{
    const std::string file = path.filename().string();
    const TraceFile& entry = GetTraceFile(file);
    std::istringstream in(ReadFile(path));
    std::string line;
    ASSERT_TRUE(std::getline(in, line)) << path << ": empty";
    const std::vector<std::string> header = SplitCsvLine(line);
    // Optional columns (clients.csv's selection_score) are there only under their setting.
    std::vector<std::string> expected = TraceHeader(file, counts);
    bool withOptional = true;
    if (header != expected)
    {
        withOptional = false;
        for (const TraceColumn& column : entry.columns)
        {
            if (column.optional)
            {
                expected.erase(std::remove(expected.begin(), expected.end(), column.name),
                               expected.end());
            }
        }
    }
    ASSERT_EQ(header, expected) << path;
    // The column of each header cell (a repeated column covers several).
    std::vector<const TraceColumn*> columns;
    for (const TraceColumn& column : entry.columns)
    {
        if (column.optional && !withOptional)
        {
            continue;
        }
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
    if (rowCount)
    {
        *rowCount = rows;
    }
}

} // namespace fedran::test

#endif
