#include "models/trace/trace-schema.h"

#include "models/trace/output-record.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <set>
#include <stdexcept>

namespace fedran
{

extern const std::string_view kTraceColumnsJson; // models/trace/trace-columns.cc

namespace
{

TraceType
ParseType(const std::string& file, const std::string& column, const std::string& type)
{
    if (type == "int")
    {
        return TraceType::Int;
    }
    if (type == "float")
    {
        return TraceType::Float;
    }
    if (type == "string")
    {
        return TraceType::String;
    }
    if (type == "bool")
    {
        return TraceType::Bool;
    }
    throw std::logic_error("trace table: " + file + " " + column + ": unknown type \"" + type +
                           "\"");
}

std::vector<TraceFile>
ParseTable(std::string_view text)
{
    const nlohmann::json table = nlohmann::json::parse(text);
    std::vector<TraceFile> files;
    std::set<std::string> fileNames;
    for (const auto& f : table.at("files"))
    {
        TraceFile file;
        file.file = f.at("file").get<std::string>();
        file.description = f.at("description").get<std::string>();
        file.writer = f.at("writer").get<std::string>();
        if (!fileNames.insert(file.file).second)
        {
            throw std::logic_error("trace table: " + file.file + " listed twice");
        }
        std::set<std::string> names;
        for (const auto& c : f.at("columns"))
        {
            TraceColumn column;
            column.name = c.at("name").get<std::string>();
            column.type = ParseType(file.file, column.name, c.at("type").get<std::string>());
            column.emptyAllowed = c.value("empty", false);
            column.optional = c.value("optional", false);
            column.unit = c.at("unit").get<std::string>();
            column.description = c.at("description").get<std::string>();
            if (c.contains("repeat"))
            {
                column.repeatCount = c["repeat"].at("count").get<std::string>();
                if (column.name.find("{i}") == std::string::npos)
                {
                    throw std::logic_error("trace table: " + file.file + " " + column.name +
                                           ": a repeated column's name needs {i}");
                }
            }
            if (c.contains("values"))
            {
                column.values = c["values"].get<std::vector<std::string>>();
            }
            if (!names.insert(column.name).second)
            {
                throw std::logic_error("trace table: " + file.file + " lists " + column.name +
                                       " twice");
            }
            file.columns.push_back(std::move(column));
        }
        files.push_back(std::move(file));
    }
    return files;
}

bool
IsUnsigned(std::string_view cell)
{
    return !cell.empty() &&
           std::all_of(cell.begin(), cell.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool
IsNumber(std::string_view cell)
{
    if (cell.empty())
    {
        return false;
    }
    const std::string text(cell);
    char* end = nullptr;
    errno = 0;
    std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size();
}

} // namespace

std::string_view
TraceColumnsJson()
{
    return kTraceColumnsJson;
}

const std::vector<TraceFile>&
TraceFiles()
{
    static const std::vector<TraceFile> files = ParseTable(kTraceColumnsJson);
    return files;
}

const TraceFile&
GetTraceFile(std::string_view file)
{
    for (const TraceFile& f : TraceFiles())
    {
        if (f.file == file)
        {
            return f;
        }
    }
    throw std::out_of_range("trace table (models/trace/trace-columns.cc) lists no file \"" +
                            std::string(file) + "\"");
}

std::vector<std::string>
TraceHeader(std::string_view file, const TraceRepeatCounts& counts)
{
    std::vector<std::string> header;
    for (const TraceColumn& column : GetTraceFile(file).columns)
    {
        if (column.repeatCount.empty())
        {
            header.push_back(column.name);
            continue;
        }
        auto count = counts.find(column.repeatCount);
        if (count == counts.end())
        {
            throw std::invalid_argument(std::string(file) + ": column " + column.name +
                                        " needs the count \"" + column.repeatCount + "\"");
        }
        const size_t at = column.name.find("{i}");
        for (size_t i = 0; i < count->second; ++i)
        {
            header.push_back(column.name.substr(0, at) + std::to_string(i) +
                             column.name.substr(at + 3));
        }
    }
    return header;
}

bool
TraceCellFits(const TraceColumn& column, std::string_view cell)
{
    if (cell.empty())
    {
        return column.emptyAllowed;
    }
    if (!column.values.empty() &&
        std::find(column.values.begin(), column.values.end(), cell) == column.values.end())
    {
        return false;
    }
    switch (column.type)
    {
        case TraceType::Int:
            return IsUnsigned(cell);
        case TraceType::Float:
            return IsNumber(cell);
        case TraceType::Bool:
            return cell == "0" || cell == "1";
        case TraceType::String:
            return true;
    }
    return false;
}

std::unique_ptr<CsvWriter>
OpenTrace(const std::string& outDir,
          std::string_view file,
          const TraceRepeatCounts& counts,
          bool withOptional)
{
    std::vector<std::string> header = TraceHeader(file, counts);
    if (!withOptional)
    {
        for (const TraceColumn& column : GetTraceFile(file).columns)
        {
            if (column.optional)
            {
                header.erase(std::remove(header.begin(), header.end(), column.name), header.end());
            }
        }
    }
    RecordOutputFile(outDir, std::string(file));
    return std::make_unique<CsvWriter>(outDir + "/" + std::string(file), header);
}

} // namespace fedran
