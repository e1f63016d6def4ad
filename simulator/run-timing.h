#ifndef FEDRAN_SIMULATOR_RUN_TIMING_H
#define FEDRAN_SIMULATOR_RUN_TIMING_H

// Wall-clock and CPU time of a run's phases and rounds, for run.json's "timing" (never in
// the traces, which stay byte-identical between runs).

#include <chrono>
#include <cstdint>
#include <vector>

namespace ns3
{

using WallClock = std::chrono::steady_clock;

double SecondsSince(WallClock::time_point start);

/// CPU seconds used so far by every thread of the process.
double ProcessCpuSeconds();

/// When the first round started and who had joined by then; says so when some had not.
struct JoinRecord
{
    uint32_t joined = 0;
    uint32_t expected = 0;
    double timeS = 0.0;
    WallClock::time_point wall; ///< when it closed, for the run's timing
    double cpuS = 0.0;          ///< process CPU seconds then

    /// The server's JoinClosed trace sink.
    void Closed(uint32_t joinedNow, uint32_t expectedNow);
};

/// Each round's wall and CPU time: round 1 from the join, every later one from the end of
/// the one before.
class RoundTimer
{
  public:
    /// A round ended now; `join` is the run's (its time is round 1's start).
    void RoundEnded(const JoinRecord& join);

    std::vector<double> wallS;
    std::vector<double> cpuS;

  private:
    WallClock::time_point m_lastEnd;
    double m_lastEndCpu = 0.0;
};

} // namespace ns3

#endif
