#include "models/ns3/model/trace-file.h"

#include "models/link-config/input-file.h"
#include "models/link-config/scenario-error.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

constexpr double kMahimahiPacketBits = 1500.0 * 8.0;

[[noreturn]] void
Fail(const std::string& file, size_t line, const std::string& reason)
{
    throw std::invalid_argument(file + ":" + std::to_string(line) + ": " + reason);
}

/// The whole trace, from a regular file of at most kTraceFileLimit bytes (never /dev/zero
/// or a FIFO, which would be read forever or block).
std::istringstream
Open(const std::string& file)
{
    try
    {
        return std::istringstream(
            fedran::ReadInputFile(file, fedran::kTraceFileLimit, "link trace"));
    }
    catch (const fedran::ScenarioError& e)
    {
        throw std::invalid_argument(e.what());
    }
}

std::string
Trim(const std::string& text)
{
    const size_t begin = text.find_first_not_of(" \t\r");
    const size_t end = text.find_last_not_of(" \t\r");
    return begin == std::string::npos ? "" : text.substr(begin, end - begin + 1);
}

/// The whole cell as a finite number, or false.
bool
ParseNumber(const std::string& cell, double& value)
{
    const std::string text = Trim(cell);
    if (text.empty())
    {
        return false;
    }
    char* end = nullptr;
    value = std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size() && std::isfinite(value);
}

} // namespace

double
LinkTrace::MeanRate() const
{
    double bits = 0.0;
    for (size_t i = 0; i < steps.size(); ++i)
    {
        const double end = i + 1 < steps.size() ? steps[i + 1].startS : periodS;
        bits += steps[i].rateBps * (end - steps[i].startS);
    }
    return periodS > 0 ? bits / periodS : 0.0;
}

namespace
{

/// Columns of a CSV trace: up to the uplink's four positional ones, or named ones.
constexpr const char* kColumns[] = {"time_s",
                                    "rate_bps",
                                    "delay_ms",
                                    "loss",
                                    "downlink_rate_bps",
                                    "downlink_delay_ms",
                                    "downlink_loss"};
constexpr size_t kColumnCount = 7;

/// The column each known name is in (-1: absent), from a header that names the downlink.
std::vector<int>
NamedColumns(const std::string& file, size_t line, const std::vector<std::string>& cells)
{
    std::vector<int> at(kColumnCount, -1);
    for (size_t i = 0; i < cells.size(); ++i)
    {
        const std::string name = Trim(cells[i]);
        size_t k = 0;
        while (k < kColumnCount && name != kColumns[k])
        {
            ++k;
        }
        if (k == kColumnCount)
        {
            Fail(file,
                 line,
                 "unknown column \"" + name +
                     "\" (a header with downlink_rate_bps "
                     "names every column: time_s, rate_bps, delay_ms, loss, "
                     "downlink_rate_bps, downlink_delay_ms, downlink_loss)");
        }
        if (at[k] >= 0)
        {
            Fail(file, line, "column \"" + name + "\" twice");
        }
        at[k] = static_cast<int>(i);
    }
    if (at[0] < 0 || at[1] < 0)
    {
        Fail(file, line, "a header with downlink_rate_bps needs time_s and rate_bps too");
    }
    return at;
}

void
FinishTrace(LinkTrace& trace, const std::string& file, size_t line)
{
    if (trace.steps.empty())
    {
        Fail(file, line, "no trace rows");
    }
    const size_t n = trace.steps.size();
    trace.periodS = n == 1 ? 1.0 : 2 * trace.steps[n - 1].startS - trace.steps[n - 2].startS;
}

} // namespace

LinkTrace
ReadCsvTrace(const std::string& file, LinkTrace* downlink)
{
    std::istringstream in = Open(file);
    LinkTrace trace;
    LinkTrace down;
    std::vector<int> named; // empty: positional columns, uplink only
    std::string text;
    size_t line = 0;
    bool first = true;
    while (std::getline(in, text))
    {
        ++line;
        if (Trim(text).empty())
        {
            continue;
        }
        std::vector<std::string> cells;
        std::stringstream row(text);
        std::string cell;
        while (std::getline(row, cell, ','))
        {
            cells.push_back(cell);
        }
        double time = 0.0;
        if (first && !cells.empty() && !ParseNumber(cells[0], time))
        {
            first = false; // a header line
            for (const std::string& name : cells)
            {
                if (Trim(name) == "downlink_rate_bps")
                {
                    named = NamedColumns(file, line, cells);
                }
            }
            continue;
        }
        first = false;
        double values[kColumnCount] = {0, 0, -1, -1, 0, -1, -1};
        if (named.empty())
        {
            if (cells.size() < 2 || cells.size() > 4)
            {
                Fail(file,
                     line,
                     "expected time_s,rate_bps[,delay_ms,loss], got " +
                         std::to_string(cells.size()) + " cells");
            }
            for (size_t i = 0; i < cells.size(); ++i)
            {
                if (!ParseNumber(cells[i], values[i]) || values[i] < 0)
                {
                    Fail(file,
                         line,
                         std::string(kColumns[i]) + " \"" + Trim(cells[i]) +
                             "\" is not a non-negative number");
                }
            }
        }
        else
        {
            for (size_t k = 0; k < kColumnCount; ++k)
            {
                if (named[k] < 0)
                {
                    continue;
                }
                const size_t i = static_cast<size_t>(named[k]);
                if (i >= cells.size() || !ParseNumber(cells[i], values[k]) || values[k] < 0)
                {
                    Fail(file,
                         line,
                         std::string(kColumns[k]) + " \"" +
                             (i < cells.size() ? Trim(cells[i]) : "") +
                             "\" is not a non-negative number");
                }
            }
        }
        TraceStep step;
        step.startS = values[0];
        step.rateBps = values[1];
        step.delayS = values[2] < 0 ? -1.0 : values[2] / 1000.0;
        step.loss = values[3];
        const TraceStep downStep{values[0],
                                 values[4],
                                 values[5] < 0 ? -1.0 : values[5] / 1000.0,
                                 values[6]};
        if (step.loss >= 1.0 || downStep.loss >= 1.0)
        {
            Fail(file, line, "loss must be below 1");
        }
        if (trace.steps.empty() ? step.startS != 0.0 : step.startS <= trace.steps.back().startS)
        {
            Fail(file,
                 line,
                 trace.steps.empty() ? "the first time_s must be 0" : "time_s must increase");
        }
        trace.steps.push_back(step);
        down.steps.push_back(downStep);
    }
    FinishTrace(trace, file, line);
    if (downlink)
    {
        *downlink = LinkTrace();
        if (!named.empty())
        {
            down.periodS = trace.periodS;
            *downlink = std::move(down);
        }
    }
    return trace;
}

LinkTrace
ReadMahimahiTrace(const std::string& file, double binS)
{
    std::istringstream in = Open(file);
    std::vector<uint64_t> times;
    std::string text;
    size_t line = 0;
    while (std::getline(in, text))
    {
        ++line;
        const std::string cell = Trim(text);
        if (cell.empty())
        {
            continue;
        }
        char* end = nullptr;
        errno = 0;
        const unsigned long long ms = std::strtoull(cell.c_str(), &end, 10);
        if (cell[0] == '-' || end != cell.c_str() + cell.size() || errno == ERANGE)
        {
            Fail(file, line, "\"" + cell + "\" is not a millisecond timestamp");
        }
        if (!times.empty() && ms < times.back())
        {
            Fail(file, line, "timestamps must not decrease");
        }
        times.push_back(ms);
    }
    if (times.empty() || times.back() == 0)
    {
        Fail(file, line, "a Mahimahi trace needs timestamps ending after 0 ms");
    }
    LinkTrace trace;
    trace.periodS = times.back() / 1000.0;
    const size_t bins = static_cast<size_t>(std::ceil(trace.periodS / binS - 1e-9));
    std::vector<uint64_t> counts(bins, 0);
    for (uint64_t ms : times)
    {
        // Opportunities at the period's end belong to the last bin (Mahimahi's t = period is
        // the next loop's t = 0 only for the timing, not the count).
        const size_t bin = std::min(bins - 1, static_cast<size_t>(ms / 1000.0 / binS));
        ++counts[bin];
    }
    for (size_t b = 0; b < bins; ++b)
    {
        const double start = b * binS;
        const double span = std::min(binS, trace.periodS - start);
        trace.steps.push_back({start, counts[b] * kMahimahiPacketBits / span, -1.0, -1.0});
    }
    return trace;
}

} // namespace ns3
