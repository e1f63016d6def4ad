#ifndef FEDRAN_MODELS_TRACE_TRACE_SCHEMA_H
#define FEDRAN_MODELS_TRACE_TRACE_SCHEMA_H

#include "models/trace/csv-writer.h"

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fedran
{

/// What a cell of a trace column holds (docs/traces.md).
enum class TraceType
{
    Int,    ///< a non-negative integer
    Float,  ///< a decimal number (fixed or %g notation)
    String, ///< text, quoted as CSV requires
    Bool,   ///< 0 or 1
};

/// One column of a trace file, as models/trace/trace-columns.cc lists it.
struct TraceColumn
{
    std::string name; ///< with `{i}` in it for a repeated column
    TraceType type = TraceType::String;
    bool emptyAllowed = false; ///< an empty cell means "does not exist"
    /// A file has the column only under a setting (clients.csv's selection_score), so that
    /// runs without it keep their files byte for byte; always among a file's last columns.
    bool optional = false;
    std::string unit;
    std::string description;
    std::string repeatCount;         ///< non-empty: one column per index, how many named by this
    std::vector<std::string> values; ///< non-empty: the only values a cell may hold
};

/// A CSV file a run writes, with its columns in order.
struct TraceFile
{
    std::string file; ///< e.g. "rounds.csv"
    std::string description;
    std::string writer; ///< the source file that writes it
    std::vector<TraceColumn> columns;
};

using TraceRepeatCounts = std::map<std::string, size_t, std::less<>>;

/// The table's JSON text, as compiled in.
std::string_view TraceColumnsJson();

/// Every trace file of the table, in its order (parsed and checked once).
const std::vector<TraceFile>& TraceFiles();

/// The table's entry for `file`; throws std::out_of_range for a file it does not list.
const TraceFile& GetTraceFile(std::string_view file);

/// The header of `file`: its column names in order, a repeated column expanded to
/// counts[repeatCount] columns (`label_{i}` -> label_0, label_1, ...). Throws
/// std::invalid_argument when a repeated column's count is not given.
std::vector<std::string> TraceHeader(std::string_view file, const TraceRepeatCounts& counts = {});

/// Whether `cell` (as written, unquoted) is a valid value of `column`.
bool TraceCellFits(const TraceColumn& column, std::string_view cell);

/// A CsvWriter for outDir/file with the table's header; without its optional columns unless
/// `withOptional`.
std::unique_ptr<CsvWriter> OpenTrace(const std::string& outDir,
                                     std::string_view file,
                                     const TraceRepeatCounts& counts = {},
                                     bool withOptional = true);

} // namespace fedran

#endif
