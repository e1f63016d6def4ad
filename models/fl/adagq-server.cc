#include "models/fl/adagq-server.h"

#include <algorithm>

namespace fedran::control
{

namespace
{

/// Two sizes must differ by this share of the larger (about one bit of width at 8 bits) for
/// a fit of the response times.
constexpr double kFitSizeSpread = 0.25;

} // namespace

AdagqServer::AdagqServer(AdagqServerConfig config)
    : m_config(config)
    , m_meanBits(double(std::clamp(config.startBits, 1u, std::max(config.maxBits, 1u))))
{
}

std::optional<AdagqClientTimes>
AdagqServer::TimesOf(uint32_t client) const
{
    const auto it = m_responses.find(client);
    if (it == m_responses.end())
    {
        return std::nullopt;
    }
    const Response& r = it->second;
    if (r.fitted)
    {
        // E[P / r]: the upload time of the last update's size, per bit of its width.
        return AdagqClientTimes{r.fixedS, r.secondsPerByte * double(r.bytes) / double(r.bits)};
    }
    return AdagqClientTimes{0.0, r.seconds / double(r.bits)};
}

std::vector<uint32_t>
AdagqServer::Assign(std::span<const uint32_t> clients, double startS)
{
    m_roundBits = m_meanBits;
    m_roundStartS = startS;
    m_assigned.clear();
    std::vector<std::optional<AdagqClientTimes>> known;
    AdagqClientTimes mean;
    size_t count = 0;
    for (uint32_t client : clients)
    {
        known.push_back(TimesOf(client));
        if (known.back())
        {
            mean.computeS += known.back()->computeS;
            mean.secondsPerBit += known.back()->secondsPerBit;
            ++count;
        }
    }
    std::vector<uint32_t> bits;
    if (count == 0)
    {
        // Nobody measured yet: everyone at the mean width.
        const auto width = uint32_t(std::lround(m_meanBits));
        bits.assign(clients.size(), std::clamp(width, 1u, m_config.maxBits));
    }
    else
    {
        // A client not measured yet is taken for the measured clients' average.
        mean.computeS /= double(count);
        mean.secondsPerBit /= double(count);
        std::vector<AdagqClientTimes> times;
        for (const std::optional<AdagqClientTimes>& t : known)
        {
            times.push_back(t.value_or(mean));
        }
        bits = AdagqClientBits(times, m_meanBits, m_config.maxBits);
    }
    for (size_t i = 0; i < clients.size(); ++i)
    {
        m_assigned[clients[i]] = bits[i];
    }
    return bits;
}

void
AdagqServer::UpdateArrived(uint32_t client, uint64_t frameBytes, double arrivalS)
{
    const auto assigned = m_assigned.find(client);
    if (assigned == m_assigned.end() || frameBytes == 0)
    {
        return;
    }
    const double seconds = arrivalS - m_roundStartS;
    const auto [it, first] = m_responses.try_emplace(client);
    Response& r = it->second;
    const double larger = double(std::max(r.bytes, frameBytes));
    const double smaller = double(std::min(r.bytes, frameBytes));
    if (!first && smaller < (1.0 - kFitSizeSpread) * larger)
    {
        // Two sizes: the difference in response time is the difference in upload time. Sizes
        // closer than that leave the slope to the timing noise (same width, other content).
        const double perByte = (seconds - r.seconds) / (double(frameBytes) - double(r.bytes));
        const double fixedS = seconds - perByte * double(frameBytes);
        if (perByte > 0.0 && fixedS >= 0.0)
        {
            r.fitted = true;
            r.fixedS = fixedS;
            r.secondsPerByte = perByte;
        }
    }
    r.bytes = frameBytes;
    r.seconds = seconds;
    r.bits = assigned->second;
}

void
AdagqServer::RoundClosed(double loss, double aggregateNorm)
{
    if (!std::isfinite(loss))
    {
        // No report: the width stays, and this round gives its predecessor no rate.
        m_previous.reset();
        return;
    }
    AdagqMeasured round;
    round.bits = m_roundBits;
    if (m_previous && m_roundStartS > m_previous->startS)
    {
        // The previous round's update moved the loss from its report to this round's.
        m_earlierRate = m_rate;
        m_earlierBits = m_rateBits;
        m_rate = (m_previous->loss - loss) / (m_roundStartS - m_previous->startS);
        m_rateBits = m_previous->bits;
        round.rate = m_rate;
        round.rateBits = m_rateBits;
        round.earlierRate = m_earlierRate;
        round.earlierBits = m_earlierBits;
    }
    m_previous = Closed{m_roundBits, m_roundStartS, loss};
    const bool norm = std::isfinite(aggregateNorm) && aggregateNorm > 0.0;
    round.gradNorm = norm ? aggregateNorm : 0.0;
    round.previousGradNorm = m_previousNorm;
    m_meanBits = AdagqNextMeanBitsMeasured(round, m_config.lambdaG, double(m_config.maxBits));
    if (norm)
    {
        m_previousNorm = aggregateNorm;
    }
}

} // namespace fedran::control
