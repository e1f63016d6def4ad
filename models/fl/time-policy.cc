#include "models/fl/time-policy.h"

#include <algorithm>
#include <cmath>

namespace fedran::control
{

TimeChoice
ChooseForTime(const TimeInputs& in,
              const std::function<RungProfile(size_t rung)>& measure,
              std::pair<size_t, size_t> allowed)
{
    TimeChoice best;
    double bestCost = INFINITY;
    bool bestInTime = false;
    double bestFinishS = INFINITY;
    for (size_t r = allowed.first; r <= allowed.second; ++r)
    {
        const RungProfile profile = measure(r);
        // A rung whose error was not measured (NaN) is judged exact: it cannot be compared.
        const double omega = std::isnan(profile.relativeError) ? 0.0 : profile.relativeError;
        const double weight =
            profile.biased ? double(std::max<uint32_t>(in.averagedUpdates, 1)) : 1.0;
        const double rho = weight * (in.noiseRatio > 0.0 ? omega / in.noiseRatio : omega);
        const double finishS =
            in.startToModelS + in.computeS + 8.0 * double(profile.payloadBytes) / in.bps;
        const double roundS =
            std::max(in.roundEnd.othersEndS.value_or(0.0), finishS) + in.roundEnd.turnaroundS;
        const double cost = (1.0 + rho) * roundS;
        const bool inTime = in.deadlineS <= 0.0 || finishS <= in.deadlineS;
        const bool better =
            inTime ? (!bestInTime || cost < bestCost) : (!bestInTime && finishS < bestFinishS);
        if (better)
        {
            bestCost = cost;
            bestInTime = inTime;
            bestFinishS = finishS;
            best = TimeChoice{r, 1.0 + rho, roundS};
        }
    }
    return best;
}

} // namespace fedran::control
