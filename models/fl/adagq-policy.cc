#include "models/fl/adagq-policy.h"

#include <algorithm>
#include <cmath>

namespace fedran::control
{

double
AdagqNextMeanBits(const AdagqRound& round, double lambdaG, double maxBits)
{
    const double b = round.bits;
    const double probeBits = std::max(b - 1.0, 1.0);
    const double rate = (round.previousLoss - round.loss) / round.roundS;
    const double probeRoundS = round.roundS - (1.0 - probeBits / b) * round.uploadS;
    const double probeRate = (round.previousLoss - round.probeLoss) / probeRoundS;
    // s - s' > 0, so the sign of the estimated derivative is that of R' - R.
    double next = probeRate > rate ? b - 1.0 : b + 1.0;
    if (round.previousGradNorm > 0.0 && round.gradNorm > 0.0)
    {
        next += lambdaG * (std::log2(round.gradNorm) - std::log2(round.previousGradNorm));
    }
    return std::clamp(next, 1.0, maxBits);
}

double
AdagqNextMeanBitsMeasured(const AdagqMeasured& round, double lambdaG, double maxBits)
{
    double step = 0.0;
    if (std::isfinite(round.rate))
    {
        if (std::isfinite(round.earlierRate) && round.rateBits != round.earlierBits)
        {
            const double slope =
                (round.rate - round.earlierRate) / (round.rateBits - round.earlierBits);
            step = slope < 0.0 ? -1.0 : 1.0;
        }
        else
        {
            step = round.rateBits > 1.0 ? -1.0 : 1.0;
        }
    }
    double next = round.bits + step;
    if (round.previousGradNorm > 0.0 && round.gradNorm > 0.0)
    {
        next += lambdaG * (std::log2(round.gradNorm) - std::log2(round.previousGradNorm));
    }
    return std::clamp(next, 1.0, maxBits);
}

namespace
{

/// Client i's real-valued width when all finish at `finishS`.
double
WidthAt(const AdagqClientTimes& client, double finishS, double maxBits)
{
    const double bits =
        client.secondsPerBit > 0.0 ? (finishS - client.computeS) / client.secondsPerBit : maxBits;
    return std::clamp(bits, 1.0, maxBits);
}

double
MeanLevel(std::span<const AdagqClientTimes> clients, double finishS, double maxBits)
{
    double sum = 0.0;
    for (const AdagqClientTimes& client : clients)
    {
        sum += std::exp2(WidthAt(client, finishS, maxBits)) - 1.0;
    }
    return sum / double(clients.size());
}

} // namespace

std::vector<uint32_t>
AdagqClientBits(std::span<const AdagqClientTimes> clients, double meanBits, uint32_t maxBits)
{
    std::vector<uint32_t> bits;
    if (clients.empty())
    {
        return bits;
    }
    const double cap = double(std::max(maxBits, 1u));
    const double target = std::exp2(std::clamp(meanBits, 1.0, cap)) - 1.0;
    // The mean level grows with the common finish time: bisect between everyone at 1 bit and
    // everyone at the cap.
    double lo = INFINITY;
    double hi = -INFINITY;
    for (const AdagqClientTimes& client : clients)
    {
        lo = std::min(lo, client.computeS + client.secondsPerBit);
        hi = std::max(hi, client.computeS + client.secondsPerBit * cap);
    }
    for (int i = 0; i < 100; ++i)
    {
        const double mid = 0.5 * (lo + hi);
        (MeanLevel(clients, mid, cap) < target ? lo : hi) = mid;
    }
    for (const AdagqClientTimes& client : clients)
    {
        bits.push_back(uint32_t(std::lround(WidthAt(client, hi, cap))));
    }
    return bits;
}

} // namespace fedran::control
