#ifndef FEDRAN_SIMULATOR_CORE_PROGRESS_REPORTER_H
#define FEDRAN_SIMULATOR_CORE_PROGRESS_REPORTER_H

#include "models/fl/trace-records.h"
#include "models/trace/run-totals.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace ns3
{

using fedran::RunTotals;

/// "950.0 kB", "12.34 MB", "1.20 GB" (SI units, as the traces' byte columns).
std::string HumanBytes(uint64_t bytes);

/**
 * The progress of `fedran run` on stderr: round, test accuracy, simulated time, traffic and
 * a wall-clock ETA. On a terminal it is one line rewritten every round; otherwise (a log
 * file, a sweep's stderr.txt) a plain line for the first and last rounds and at most one
 * every interval in between, so logs stay short. Wall time only feeds this line, never the
 * traces, so runs stay deterministic.
 */
class ProgressReporter
{
  public:
    enum class Mode
    {
        QUIET,
        TERMINAL, ///< one updating line
        LINES,    ///< periodic plain lines
    };

    /// TERMINAL when `fd` is a terminal, LINES otherwise, QUIET when asked.
    static Mode ModeFor(int fd, bool quiet);

    ProgressReporter(std::FILE* out, Mode mode, uint32_t totalRounds, double intervalS = 10.0);

    /// Reports one finished round (an FlStatsHelper round observer).
    void RoundEnded(const fedran::RoundRecord& record, const RunTotals& totals);

    /// Ends the updating line so that what follows starts on a fresh line.
    void Finish();

  private:
    using Clock = std::chrono::steady_clock;

    std::FILE* m_out;
    Mode m_mode;
    uint32_t m_totalRounds;
    double m_intervalS;
    Clock::time_point m_start;
    Clock::time_point m_lastLine;
    bool m_printed = false;
};

} // namespace ns3

#endif
