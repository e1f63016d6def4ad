#include "models/learning/compute-speed.h"

#include "compression/portable-math.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fedran
{

namespace
{

/// Clients per tier: floor(share · count), then the leftover clients one each to the tiers
/// with the largest fractional parts.
std::vector<uint32_t>
TierCounts(const std::vector<ComputeSpeedSpec::Tier>& tiers, uint32_t count)
{
    std::vector<uint32_t> counts(tiers.size());
    std::vector<double> remainder(tiers.size());
    uint32_t assigned = 0;
    for (size_t t = 0; t < tiers.size(); ++t)
    {
        const double exact = tiers[t].share * count;
        counts[t] = static_cast<uint32_t>(std::floor(exact));
        remainder[t] = exact - counts[t];
        assigned += counts[t];
    }
    std::vector<size_t> order(tiers.size());
    for (size_t t = 0; t < order.size(); ++t)
    {
        order[t] = t;
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return remainder[a] > remainder[b];
    });
    for (size_t i = 0; assigned < count; i = (i + 1) % order.size())
    {
        ++counts[order[i]];
        ++assigned;
    }
    return counts;
}

} // namespace

std::vector<double>
DrawComputeSpeeds(const ComputeSpeedSpec& spec, uint32_t count, Rng& rng)
{
    std::vector<double> speeds(count);
    switch (spec.kind)
    {
        case ComputeSpeedSpec::Kind::Fixed:
            std::fill(speeds.begin(), speeds.end(), spec.value);
            break;
        case ComputeSpeedSpec::Kind::Lognormal:
            for (double& s : speeds)
            {
                s = spec.median * pmath::Exp(spec.sigma * rng.Normal());
            }
            break;
        case ComputeSpeedSpec::Kind::Uniform:
            for (double& s : speeds)
            {
                s = spec.min + (spec.max - spec.min) * rng.Uniform();
            }
            break;
        case ComputeSpeedSpec::Kind::Tiers: {
            if (spec.tiers.empty())
            {
                throw std::invalid_argument("DrawComputeSpeeds: tiers is empty");
            }
            const std::vector<uint32_t> counts = TierCounts(spec.tiers, count);
            size_t next = 0;
            for (size_t t = 0; t < counts.size(); ++t)
            {
                std::fill_n(speeds.begin() + next, counts[t], spec.tiers[t].samplesPerSecond);
                next += counts[t];
            }
            // Fisher-Yates: which clients land in which tier.
            for (uint32_t i = count; i > 1; --i)
            {
                std::swap(speeds[i - 1], speeds[rng.UniformInt(i)]);
            }
            break;
        }
    }
    return speeds;
}

} // namespace fedran
