// ReconnectBackoff, the retry delay of a client toward its server and of an edge aggregator
// toward its parent: between half and all of min(cap, base x 2^k) for the k-th failure.

#include "models/ns3/model/reconnect-backoff.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace
{

using namespace ns3;

TEST(ReconnectBackoff, DoublesToTheCapAndStartsOverAfterAReset)
{
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    rng->SetStream(11);
    ReconnectBackoff backoff;
    for (int round = 0; round < 2; ++round)
    {
        for (int k = 0; k < 40; ++k)
        {
            const double scaleS = std::min(30.0, 1.0 * std::ldexp(1.0, std::min(k, 30)));
            const double delayS = backoff.NextDelay(Seconds(1), Seconds(30), rng).GetSeconds();
            EXPECT_GE(delayS, scaleS / 2.0 - 1e-9) << "failure " << k;
            EXPECT_LE(delayS, scaleS + 1e-9) << "failure " << k;
        }
        backoff.Reset();
    }
}

TEST(ReconnectBackoff, DrawsAsTheAppsDidBeforeIt)
{
    // The same draws, in the same order, as the delay the applications computed themselves.
    Ptr<UniformRandomVariable> a = CreateObject<UniformRandomVariable>();
    Ptr<UniformRandomVariable> b = CreateObject<UniformRandomVariable>();
    a->SetStream(5);
    b->SetStream(5);
    ReconnectBackoff backoff;
    for (uint32_t failures = 0; failures < 8; ++failures)
    {
        const double scaleS = std::min(30.0, 1.0 * std::ldexp(1.0, int(failures)));
        EXPECT_EQ(backoff.NextDelay(Seconds(1), Seconds(30), a),
                  Seconds(b->GetValue(scaleS / 2.0, scaleS)));
    }
}

} // namespace
