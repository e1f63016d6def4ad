#include "models/learning/milan-reader.h"

#include "models/learning/dataset.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace fedran
{

namespace
{

constexpr size_t kColumns = 8;
constexpr size_t kFirstValueColumn = 3;

/// Which of the five value columns (sms-in .. internet) the signal sums.
std::array<bool, 5>
SignalColumns(TrafficSignal signal)
{
    switch (signal)
    {
        case TrafficSignal::Sms:
            return {true, true, false, false, false};
        case TrafficSignal::Call:
            return {false, false, true, true, false};
        case TrafficSignal::All:
            return {true, true, true, true, true};
        case TrafficSignal::Internet:
            break;
    }
    return {false, false, false, false, true};
}

class LineError
{
  public:
    explicit LineError(std::string what)
        : m_what(std::move(what))
    {
    }

    const std::string& What() const
    {
        return m_what;
    }

  private:
    std::string m_what;
};

template<typename T>
T
ParseInteger(std::string_view field, const char* name)
{
    T value{};
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
    if (field.empty() || ec != std::errc() || end != field.data() + field.size())
    {
        throw LineError(std::string(name) + " \"" + std::string(field) + "\" is not an integer");
    }
    return value;
}

/// NaN for an empty field (a missing value).
double
ParseValue(std::string_view field)
{
    if (field.empty())
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    double value = 0.0;
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
    if (ec != std::errc() || end != field.data() + field.size() || !std::isfinite(value) ||
        value < 0.0)
    {
        throw LineError("value \"" + std::string(field) + "\" is not a non-negative number");
    }
    return value;
}

/// Accumulates rows into per-square series with NaN where no value has been seen yet.
class MilanAccumulator
{
  public:
    explicit MilanAccumulator(TrafficSignal signal)
        : m_columns(SignalColumns(signal))
    {
    }

    void AddLine(std::string_view line)
    {
        std::array<std::string_view, kColumns> fields;
        size_t count = 0;
        size_t start = 0;
        while (true)
        {
            const size_t tab = line.find('\t', start);
            if (count == kColumns)
            {
                throw LineError("more than " + std::to_string(kColumns) + " tab-separated fields");
            }
            fields[count++] = line.substr(start, tab == std::string_view::npos ? tab : tab - start);
            if (tab == std::string_view::npos)
            {
                break;
            }
            start = tab + 1;
        }
        if (count != kColumns)
        {
            throw LineError(std::to_string(count) + " tab-separated fields, expected " +
                            std::to_string(kColumns));
        }
        const auto square = ParseInteger<uint32_t>(fields[0], "square id");
        const auto stamp = ParseInteger<int64_t>(fields[1], "interval start");
        if (!fields[2].empty())
        {
            ParseInteger<int64_t>(fields[2], "country code");
        }
        double sum = 0.0;
        bool any = false;
        for (size_t c = 0; c < m_columns.size(); ++c)
        {
            const double value = ParseValue(fields[kFirstValueColumn + c]);
            if (m_columns[c] && !std::isnan(value))
            {
                sum += value;
                any = true;
            }
        }
        const size_t step = Step(stamp);
        std::vector<double>& series = m_series[square];
        if (series.size() <= step)
        {
            series.resize(step + 1, std::numeric_limits<double>::quiet_NaN());
        }
        m_steps = std::max(m_steps, step + 1);
        if (any)
        {
            series[step] = std::isnan(series[step]) ? sum : series[step] + sum;
        }
    }

    TrafficSeries Finish(uint32_t maxCells)
    {
        TrafficSeries out;
        out.firstStampMs = m_first;
        for (auto& [square, series] : m_series)
        {
            if (maxCells > 0 && out.cells.size() == maxCells)
            {
                break;
            }
            series.resize(m_steps, std::numeric_limits<double>::quiet_NaN());
            for (double& value : series)
            {
                if (std::isnan(value))
                {
                    value = 0.0; // no row: no activity in that interval
                    ++out.missing;
                }
            }
            out.cells.push_back(square);
            out.values.push_back(std::move(series));
        }
        return out;
    }

  private:
    size_t Step(int64_t stamp)
    {
        if (!m_started)
        {
            m_first = stamp;
            m_started = true;
        }
        if (stamp < m_first || (stamp - m_first) % kMilanStepMs != 0)
        {
            throw LineError("interval start " + std::to_string(stamp) +
                            " is not a 10-minute step at or after the first file's first "
                            "interval " +
                            std::to_string(m_first));
        }
        return static_cast<size_t>((stamp - m_first) / kMilanStepMs);
    }

    std::array<bool, 5> m_columns;
    std::map<uint32_t, std::vector<double>> m_series; // ordered: squares come out in id order
    bool m_started = false;
    int64_t m_first = 0;
    size_t m_steps = 0;
};

} // namespace

TrafficSignal
ParseTrafficSignal(const std::string& name)
{
    if (name == "internet")
    {
        return TrafficSignal::Internet;
    }
    if (name == "sms")
    {
        return TrafficSignal::Sms;
    }
    if (name == "call")
    {
        return TrafficSignal::Call;
    }
    if (name == "all")
    {
        return TrafficSignal::All;
    }
    throw std::invalid_argument("signal \"" + name + "\" is not internet, sms, call or all");
}

TrafficSeries
ReadMilanFiles(const std::vector<std::string>& files, TrafficSignal signal, uint32_t maxCells)
{
    MilanAccumulator accumulator(signal);
    size_t rows = 0;
    for (const std::string& file : files)
    {
        std::ifstream in(file, std::ios::binary);
        if (!in)
        {
            throw DataError(file + ": cannot open");
        }
        std::string line;
        size_t number = 0;
        while (std::getline(in, line))
        {
            ++number;
            std::string_view view(line);
            if (!view.empty() && view.back() == '\r')
            {
                view.remove_suffix(1);
            }
            if (view.empty())
            {
                continue;
            }
            try
            {
                accumulator.AddLine(view);
            }
            catch (const LineError& e)
            {
                throw DataError(file + ":" + std::to_string(number) + ": " + e.What());
            }
            ++rows;
        }
        if (in.bad())
        {
            throw DataError(file + ": read error");
        }
    }
    if (rows == 0)
    {
        throw DataError(files.empty() ? std::string("no Milan files given")
                                      : files.front() + ": no data rows in the Milan files");
    }
    return accumulator.Finish(maxCells);
}

std::vector<std::string>
ListMilanFiles(const std::string& folder)
{
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    std::error_code error;
    fs::directory_iterator it(folder, error);
    if (error)
    {
        throw DataError(folder + ": cannot read the folder (" + error.message() + ")");
    }
    for (const fs::directory_entry& entry : it)
    {
        const std::string name = entry.path().filename().string();
        if (name.starts_with("sms-call-internet-mi-") && name.ends_with(".txt"))
        {
            files.push_back(entry.path().string());
        }
    }
    if (files.empty())
    {
        throw DataError(folder + ": no sms-call-internet-mi-YYYY-MM-DD.txt files");
    }
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace fedran
