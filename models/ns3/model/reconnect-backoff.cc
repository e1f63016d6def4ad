#include "models/ns3/model/reconnect-backoff.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

Time
ReconnectBackoff::NextDelay(Time base, Time cap, Ptr<UniformRandomVariable> rng)
{
    // The exponent stops at 30: the cap has long been reached, and 2^k stays finite.
    const double scaleS =
        std::min(cap.GetSeconds(),
                 base.GetSeconds() * std::ldexp(1.0, int(std::min(m_failures, 30u))));
    ++m_failures;
    return Seconds(rng->GetValue(scaleS / 2.0, scaleS));
}

} // namespace ns3
