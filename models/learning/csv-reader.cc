#include "models/learning/csv-reader.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string_view>
#include <vector>

namespace fedran
{

namespace
{

enum class NumberStatus
{
    Ok,
    Empty,
    NotANumber,
    NotFinite, ///< inf, nan, or beyond float's range
};

/// Features as float, each cell rounded once, correctly; labels as double, then checked.
template<typename T>
NumberStatus
ParseNumber(std::string_view cell, T& value)
{
    if (cell.empty())
    {
        return NumberStatus::Empty;
    }
    // from_chars rejects a leading '+', which spreadsheets do write.
    if (cell.size() > 1 && cell.front() == '+' && cell[1] != '-')
    {
        cell.remove_prefix(1);
    }
    const char* end = cell.data() + cell.size();
    const auto [stop, error] = std::from_chars(cell.data(), end, value);
    if (stop != end || error == std::errc::invalid_argument)
    {
        return NumberStatus::NotANumber;
    }
    if (error == std::errc::result_out_of_range || !std::isfinite(value))
    {
        return NumberStatus::NotFinite;
    }
    return NumberStatus::Ok;
}

bool
IsBlank(std::string_view line)
{
    return line.find_first_not_of(" \t") == std::string_view::npos;
}

/// Splits at `separator`, trimming spaces and tabs that are not themselves the separator.
void
SplitCells(std::string_view line, char separator, std::vector<std::string_view>& cells)
{
    const std::string_view blanks = separator == '\t' ? " " : (separator == ' ' ? "\t" : " \t");
    cells.clear();
    while (true)
    {
        const size_t cut = line.find(separator);
        std::string_view cell = line.substr(0, cut);
        const size_t first = cell.find_first_not_of(blanks);
        cell = first == std::string_view::npos
                   ? std::string_view()
                   : cell.substr(first, cell.find_last_not_of(blanks) - first + 1);
        cells.push_back(cell);
        if (cut == std::string_view::npos)
        {
            return;
        }
        line.remove_prefix(cut + 1);
    }
}

std::string
Unquote(std::string_view cell)
{
    if (cell.size() >= 2 && cell.front() == '"' && cell.back() == '"')
    {
        cell = cell.substr(1, cell.size() - 2);
    }
    return std::string(cell);
}

/// Where in which file a problem is, for DataError messages.
class CsvLocation
{
  public:
    explicit CsvLocation(const std::string& path)
        : m_path(path)
    {
    }

    void SetLine(uint64_t line)
    {
        m_line = line;
    }

    void SetColumnNames(std::vector<std::string> names)
    {
        m_names = std::move(names);
    }

    [[noreturn]] void Fail(const std::string& problem) const
    {
        throw DataError("CSV file '" + m_path + "' line " + std::to_string(m_line) + ": " +
                        problem);
    }

    /// `column` is 0-based here and 1-based in the message, as editors count.
    [[noreturn]] void Fail(size_t column, const std::string& problem) const
    {
        std::string where =
            "line " + std::to_string(m_line) + " column " + std::to_string(column + 1);
        if (column < m_names.size())
        {
            where += " ('" + m_names[column] + "')";
        }
        throw DataError("CSV file '" + m_path + "' " + where + ": " + problem);
    }

  private:
    std::string m_path;
    uint64_t m_line = 0;
    std::vector<std::string> m_names;
};

std::string
Describe(NumberStatus status, std::string_view cell)
{
    if (status == NumberStatus::Empty)
    {
        return "empty cell";
    }
    // Appended piece by piece: "'" + std::string(...) trips GCC 12's false -Wrestrict alarm.
    std::string text(1, '\'');
    text.append(cell);
    text.append(status == NumberStatus::NotFinite ? "' is not a finite float"
                                                  : "' is not a number");
    return text;
}

bool
LooksLikeHeader(const std::vector<std::string_view>& cells)
{
    float ignored = 0.0f;
    return std::any_of(cells.begin(), cells.end(), [&](std::string_view cell) {
        return ParseNumber(cell, ignored) == NumberStatus::NotANumber;
    });
}

size_t
LabelColumn(const CsvOptions& options,
            const std::vector<std::string_view>& firstRow,
            bool header,
            const CsvLocation& where)
{
    const size_t columns = firstRow.size();
    if (!options.labelName.empty())
    {
        if (!header)
        {
            where.Fail("the label column is named '" + options.labelName +
                       "' but the file has no header row");
        }
        for (size_t c = 0; c < columns; ++c)
        {
            if (Unquote(firstRow[c]) == options.labelName)
            {
                return c;
            }
        }
        where.Fail("no column named '" + options.labelName + "' in the header");
    }
    const int64_t index = options.labelIndex < 0
                              ? static_cast<int64_t>(columns) + options.labelIndex
                              : options.labelIndex;
    if (index < 0 || index >= static_cast<int64_t>(columns))
    {
        where.Fail("label column index " + std::to_string(options.labelIndex) +
                   " is outside the row's " + std::to_string(columns) + " columns");
    }
    return static_cast<size_t>(index);
}

uint8_t
ParseLabel(std::string_view cell, size_t column, const CsvLocation& where)
{
    double value = 0.0;
    const NumberStatus status = ParseNumber(cell, value);
    if (status != NumberStatus::Ok)
    {
        where.Fail(column, "bad label: " + Describe(status, cell));
    }
    if (value < 0.0 || value > 255.0 || value != std::floor(value))
    {
        where.Fail(column,
                   "bad label '" + std::string(cell) + "': labels must be integers in 0..255");
    }
    return static_cast<uint8_t>(value);
}

void
ApplyScaling(const CsvOptions& options, const std::string& path, Dataset& data)
{
    switch (options.scaling)
    {
        case CsvOptions::Scaling::None:
            return;
        case CsvOptions::Scaling::Divide:
            DivideFeatures(data, options.divisor);
            return;
        case CsvOptions::Scaling::MinMax: {
            const MinMaxScaler scaler = options.minMax ? *options.minMax : FitMinMax(data);
            if (scaler.min.size() != data.features)
            {
                throw DataError("CSV file '" + path + "' has " + std::to_string(data.features) +
                                " features but the min-max ranges are for " +
                                std::to_string(scaler.min.size()));
            }
            ApplyMinMax(scaler, data);
            return;
        }
    }
}

} // namespace

Dataset
LoadCsv(const std::string& path, const CsvOptions& options)
{
    errno = 0;
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        const char* reason = errno != 0 ? std::strerror(errno) : "cannot open";
        throw DataError("cannot open CSV file '" + path + "': " + reason);
    }

    CsvLocation where(path);
    Dataset data;
    std::string line;
    std::vector<std::string_view> cells;
    size_t columns = 0;
    size_t labelColumn = 0;
    int maxLabel = -1;
    for (uint64_t lineNumber = 1; std::getline(in, line); ++lineNumber)
    {
        if (!line.empty() && line.back() == '\r')
        {
            line.pop_back();
        }
        // A UTF-8 byte order mark, as spreadsheet programs write, is not part of the first cell.
        if (lineNumber == 1 && line.starts_with("\xEF\xBB\xBF"))
        {
            line.erase(0, 3);
        }
        if (IsBlank(line))
        {
            continue;
        }
        where.SetLine(lineNumber);
        SplitCells(line, options.separator, cells);
        if (columns == 0)
        {
            // The first row fixes the layout, whether or not it is a header.
            columns = cells.size();
            const bool header =
                options.header == CsvOptions::Header::Yes ||
                (options.header == CsvOptions::Header::Auto && LooksLikeHeader(cells));
            if (columns < 2)
            {
                where.Fail("needs a label column and at least one feature column, found " +
                           std::to_string(columns) + " column (is the separator right?)");
            }
            labelColumn = LabelColumn(options, cells, header, where);
            data.features = static_cast<uint32_t>(columns - 1);
            if (header)
            {
                std::vector<std::string> names;
                for (std::string_view cell : cells)
                {
                    names.push_back(Unquote(cell));
                }
                where.SetColumnNames(std::move(names));
                continue;
            }
        }
        if (cells.size() != columns)
        {
            where.Fail(std::min(cells.size(), columns),
                       "row has " + std::to_string(cells.size()) + " columns, expected " +
                           std::to_string(columns));
        }
        for (size_t c = 0; c < columns; ++c)
        {
            if (c == labelColumn)
            {
                const uint8_t label = ParseLabel(cells[c], c, where);
                maxLabel = std::max<int>(maxLabel, label);
                data.y.push_back(label);
                continue;
            }
            float value = 0.0f;
            const NumberStatus status = ParseNumber(cells[c], value);
            if (status != NumberStatus::Ok)
            {
                where.Fail(c, Describe(status, cells[c]));
            }
            data.x.push_back(value);
        }
    }
    if (in.bad())
    {
        throw DataError("CSV file '" + path + "': read error");
    }
    if (data.y.empty())
    {
        throw DataError("CSV file '" + path + "' holds no examples");
    }
    data.classes = static_cast<uint32_t>(maxLabel + 1);
    ApplyScaling(options, path, data);
    return data;
}

TrainTestData
LoadCsvPair(const std::string& trainPath, const std::string& testPath, const CsvOptions& options)
{
    // Min-max is applied here, after both files are read, so both use the training ranges.
    CsvOptions unscaled = options;
    if (options.scaling == CsvOptions::Scaling::MinMax)
    {
        unscaled.scaling = CsvOptions::Scaling::None;
    }
    TrainTestData data;
    data.train = LoadCsv(trainPath, unscaled);
    data.test = LoadCsv(testPath, unscaled);
    if (data.train.features != data.test.features)
    {
        throw DataError("CSV file '" + testPath + "' has " + std::to_string(data.test.features) +
                        " features but training file '" + trainPath + "' has " +
                        std::to_string(data.train.features));
    }
    if (options.scaling == CsvOptions::Scaling::MinMax)
    {
        CsvOptions fitted = options;
        fitted.minMax = options.minMax ? *options.minMax : FitMinMax(data.train);
        ApplyScaling(fitted, trainPath, data.train);
        ApplyScaling(fitted, testPath, data.test);
    }
    const uint32_t classes = std::max(data.train.classes, data.test.classes);
    data.train.classes = classes;
    data.test.classes = classes;
    return data;
}

} // namespace fedran
