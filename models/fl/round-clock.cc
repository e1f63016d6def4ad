#include "models/fl/round-clock.h"

#include <algorithm>

namespace fedran::control
{

void
RoundClock::UpdateArrived(uint32_t round, double arrivedS)
{
    m_arrivedRound = round;
    m_arrivedS = arrivedS;
}

void
RoundClock::RoundStarted(uint32_t round, double startS)
{
    const bool consecutive =
        m_startRound != 0 && m_startRound + 1 == round && m_arrivedRound == m_startRound;
    if (consecutive)
    {
        // The previous round, from its start: it lasted `length`; this client's update was in
        // at `finish`, and the next model left `gap` later.
        const double length = startS - m_startS;
        const double gap = startS - m_arrivedS;
        if (gap >= 0.0)
        {
            m_minGapS = m_minGapS ? std::min(*m_minGapS, gap) : gap;
        }
        const double turnaround = m_minGapS.value_or(0.0);
        m_estimate.turnaroundS = turnaround;
        if (gap - turnaround > kLastTolerance * length)
        {
            // The round went on without this client: the others' updates closed it.
            m_estimate.othersEndS = length - turnaround;
        }
        else
        {
            m_estimate.othersEndS.reset();
        }
    }
    // Otherwise (not selected in between, or the update was never acknowledged) the last
    // estimate is kept: the best guess of the rounds this client did not see.
    m_startRound = round;
    m_startS = startS;
}

} // namespace fedran::control
