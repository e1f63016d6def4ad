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
    // The averaged update's second moment, in units of one client's ||update||^2: its
    // signal, max(0, 1 - eta) of it (what is not sampling noise), is common to the m updates
    // and survives the average; the sampling noise, eta of it, averages to eta / m. A rung's
    // error adds omega / m (unbiased) or omega (biased, common to the clients) to it, and
    // the rounds scale with the second moment (QSGD's bound B), so
    //   rho = (omega / m) / (max(0, 1 - eta) + eta / m) = omega / (m max(0, 1 - eta) + eta),
    // m times that for a biased rung. Without a noise estimate (eta = 0) this is the
    // full-batch form 1 + omega / m.
    const double m = double(std::max<uint32_t>(in.averagedUpdates, 1));
    const double eta = std::max(in.noiseRatio, 0.0);
    const double secondMoment = m * std::max(0.0, 1.0 - eta) + eta;
    TimeChoice best;
    double bestCost = INFINITY;
    bool bestInTime = false;
    double bestFinishS = INFINITY;
    for (size_t r = allowed.first; r <= allowed.second; ++r)
    {
        const RungProfile profile = measure(r);
        // A rung whose error was not measured (NaN) is judged exact: it cannot be compared.
        const double omega = std::isnan(profile.relativeError) ? 0.0 : profile.relativeError;
        const double rho = (profile.biased ? m : 1.0) * omega / secondMoment;
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
