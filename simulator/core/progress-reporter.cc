#include "simulator/core/progress-reporter.h"

#include <cmath>
#include <unistd.h>

namespace ns3
{

std::string
HumanBytes(uint64_t bytes)
{
    char buffer[32];
    if (bytes >= 1e9)
    {
        std::snprintf(buffer, sizeof(buffer), "%.2f GB", bytes / 1e9);
    }
    else if (bytes >= 1e6)
    {
        std::snprintf(buffer, sizeof(buffer), "%.2f MB", bytes / 1e6);
    }
    else
    {
        std::snprintf(buffer, sizeof(buffer), "%.1f kB", bytes / 1e3);
    }
    return buffer;
}

namespace
{

std::string
WallText(double seconds)
{
    char buffer[32];
    const auto s = static_cast<long>(seconds + 0.5);
    if (s >= 3600)
    {
        std::snprintf(buffer, sizeof(buffer), "%ldh%02ldm", s / 3600, s % 3600 / 60);
    }
    else if (s >= 60)
    {
        std::snprintf(buffer, sizeof(buffer), "%ldm%02lds", s / 60, s % 60);
    }
    else
    {
        std::snprintf(buffer, sizeof(buffer), "%lds", s);
    }
    return buffer;
}

} // namespace

ProgressReporter::Mode
ProgressReporter::ModeFor(int fd, bool quiet)
{
    if (quiet)
    {
        return Mode::QUIET;
    }
    return isatty(fd) ? Mode::TERMINAL : Mode::LINES;
}

ProgressReporter::ProgressReporter(std::FILE* out,
                                   Mode mode,
                                   uint32_t totalRounds,
                                   double intervalS)
    : m_out(out)
    , m_mode(mode)
    , m_totalRounds(totalRounds)
    , m_intervalS(intervalS)
    , m_start(Clock::now())
    , m_lastLine(m_start)
{
}

void
ProgressReporter::RoundEnded(const fedran::RoundRecord& record, const RunTotals& totals)
{
    if (m_mode == Mode::QUIET)
    {
        return;
    }
    const Clock::time_point now = Clock::now();
    const bool last = record.round >= m_totalRounds;
    if (m_mode == Mode::LINES && m_printed && !last &&
        std::chrono::duration<double>(now - m_lastLine).count() < m_intervalS)
    {
        return;
    }
    const double elapsed = std::chrono::duration<double>(now - m_start).count();
    const double eta =
        record.round == 0 || last ? 0.0 : elapsed / record.round * (m_totalRounds - record.round);
    const bool forecasting = !std::isnan(record.testNrmse);
    std::fprintf(m_out,
                 "%sround %u/%u  %s %.4f  sim %.1f s  uplink %s  total %s  %s %s%s",
                 m_mode == Mode::TERMINAL ? "\r" : "",
                 record.round,
                 m_totalRounds,
                 forecasting ? "nrmse" : "accuracy",
                 forecasting ? record.testNrmse : record.testAccuracy,
                 record.endS,
                 HumanBytes(totals.uplinkWireBytes).c_str(),
                 HumanBytes(totals.uplinkWireBytes + totals.downlinkWireBytes).c_str(),
                 last ? "wall" : "ETA",
                 WallText(last ? elapsed : eta).c_str(),
                 m_mode == Mode::TERMINAL ? "\x1b[K" : "\n");
    std::fflush(m_out);
    m_lastLine = now;
    m_printed = true;
}

void
ProgressReporter::Finish()
{
    if (m_mode == Mode::TERMINAL && m_printed)
    {
        std::fprintf(m_out, "\n");
        m_printed = false;
    }
}

} // namespace ns3
