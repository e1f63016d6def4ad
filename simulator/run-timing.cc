#include "simulator/run-timing.h"

#include <ns3/simulator.h>

#include <ctime>
#include <iostream>

namespace ns3
{

double
SecondsSince(WallClock::time_point start)
{
    return std::chrono::duration<double>(WallClock::now() - start).count();
}

double
ProcessCpuSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

void
JoinRecord::Closed(uint32_t joinedNow, uint32_t expectedNow)
{
    joined = joinedNow;
    expected = expectedNow;
    timeS = Simulator::Now().GetSeconds();
    wall = WallClock::now();
    cpuS = ProcessCpuSeconds();
    if (joined < expected)
    {
        std::cerr << "fedran: warning: " << expected - joined << " of " << expected
                  << " clients had not joined by the join timeout (" << timeS
                  << " s); the first round starts without them, and they take part "
                     "once they join\n";
    }
}

void
RoundTimer::RoundEnded(const JoinRecord& join)
{
    const WallClock::time_point now = WallClock::now();
    const double nowCpu = ProcessCpuSeconds();
    const bool first = wallS.empty();
    wallS.push_back(std::chrono::duration<double>(now - (first ? join.wall : m_lastEnd)).count());
    cpuS.push_back(nowCpu - (first ? join.cpuS : m_lastEndCpu));
    m_lastEnd = now;
    m_lastEndCpu = nowCpu;
}

} // namespace ns3
