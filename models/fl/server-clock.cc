#include "models/fl/server-clock.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fedran
{

ServerClock::ServerClock(const DeviceCompute& compute, double ticksPerSecond)
    : m_compute(compute)
    , m_ticksPerSecond(ticksPerSecond)
    , m_coreFreeS(std::max<uint32_t>(1, compute.cores), 0.0)
{
}

double
ServerClock::Seconds(double referenceS) const
{
    return m_compute.profile ? referenceS / m_compute.speed : 0.0;
}

double
ServerClock::DecodeSeconds(const Codec& codec,
                           const TensorLayout& layout,
                           std::span<const uint8_t> payload,
                           bool fold) const
{
    if (!m_compute.profile)
    {
        return 0.0;
    }
    double referenceS = codec.DecodeSeconds(*m_compute.profile, layout, payload);
    if (fold)
    {
        referenceS += m_compute.profile->foldPerElementS * double(layout.TotalSize());
    }
    return Seconds(referenceS);
}

double
ServerClock::FoldSeconds(uint64_t elements) const
{
    return m_compute.profile ? Seconds(m_compute.profile->foldPerElementS * double(elements)) : 0.0;
}

double
ServerClock::ApplySeconds(uint64_t elements) const
{
    return m_compute.profile ? Seconds(m_compute.profile->applyPerElementS * double(elements))
                             : 0.0;
}

double
ServerClock::AggregateSeconds(const AggregationRule& rule,
                              const std::string& name,
                              size_t count,
                              size_t size) const
{
    const double applyS = ApplySeconds(size);
    const double work = rule.ResultWork(count, size);
    if (!m_compute.profile || work == 0.0)
    {
        return applyS;
    }
    const auto price = m_compute.profile->ruleWorkS.find(name);
    if (price == m_compute.profile->ruleWorkS.end())
    {
        throw std::invalid_argument("server.compute.profile: no server.rules." + name);
    }
    return Seconds(price->second * work) + applyS;
}

double
ServerClock::EvaluateSeconds(const Model& model, uint64_t examples) const
{
    if (!m_compute.profile)
    {
        return 0.0;
    }
    return Seconds(m_compute.profile->flopS * model.ForwardFlops() * double(examples)) /
           double(m_coreFreeS.size());
}

RoundCloseTimes
ServerClock::CloseRound(const AggregationRule& rule,
                        const std::string& name,
                        size_t combined,
                        size_t size,
                        const Model* model,
                        uint64_t examples,
                        double nowS) const
{
    RoundCloseTimes times;
    times.aggregateS = combined > 0 ? AggregateSeconds(rule, name, combined, size) : 0.0;
    times.evaluateS = model ? EvaluateSeconds(*model, examples) : 0.0;
    const double closeAtS = std::max(nowS, m_busyUntilS) + times.aggregateS + times.evaluateS;
    times.ticks = TicksUntil(closeAtS, nowS);
    return times;
}

double
ServerClock::CloseSeconds(const Codec& codec, const TensorLayout& layout) const
{
    return m_compute.profile ? Seconds(codec.CloseSeconds(*m_compute.profile, layout)) : 0.0;
}

double
ServerClock::Queue(double seconds, double nowS)
{
    auto core = std::min_element(m_coreFreeS.begin(), m_coreFreeS.end());
    *core = std::max(*core, nowS) + seconds;
    m_busyUntilS = std::max(m_busyUntilS, *core);
    return *core;
}

double
ServerClock::QueueBarrier(double seconds, double nowS)
{
    m_busyUntilS = std::max(m_busyUntilS, nowS) + seconds;
    for (double& core : m_coreFreeS)
    {
        core = std::max(core, m_busyUntilS);
    }
    return m_busyUntilS;
}

int64_t
ServerClock::TicksUntil(double atS, double nowS) const
{
    const double ticks = std::round((atS - nowS) * m_ticksPerSecond);
    return ticks > 0.0 ? static_cast<int64_t>(ticks) : 0;
}

} // namespace fedran
