#include "models/learning/client-sizes.h"

#include "compression/portable-math.h"
#include "models/learning/dataset.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace fedran
{

namespace
{

void
CheckSpec(const char* function, const SizeSpec& spec)
{
    if (spec.kind == SizeSpec::Kind::Lognormal &&
        (!(spec.sigma >= 0.0) || !std::isfinite(spec.sigma) || !std::isfinite(spec.mu)))
    {
        throw std::invalid_argument(std::string(function) +
                                    ": lognormal sizes need a finite sigma >= 0 and a finite mu");
    }
}

std::vector<uint32_t>
EqualShares(uint32_t clients, size_t examples)
{
    std::vector<uint32_t> sizes(clients, static_cast<uint32_t>(examples / clients));
    const size_t extra = examples % clients;
    for (size_t c = 0; c < extra; ++c)
    {
        ++sizes[c];
    }
    return sizes;
}

/**
 * Real-valued targets proportional to `weights` that sum to `examples`, with every target at
 * least minSamples (water-filling: clients below the floor are pinned to it and the rest are
 * rescaled, until nobody is below). Needs clients * minSamples <= examples.
 */
std::vector<double>
FlooredTargets(const std::vector<double>& weights, size_t examples, uint32_t minSamples)
{
    const size_t clients = weights.size();
    std::vector<bool> pinned(clients, false);
    std::vector<double> targets(clients, minSamples);
    size_t pinnedCount = 0;
    while (true)
    {
        const double free =
            static_cast<double>(examples) - static_cast<double>(pinnedCount) * minSamples;
        double weightSum = 0.0;
        for (size_t k = 0; k < clients; ++k)
        {
            weightSum += pinned[k] ? 0.0 : weights[k];
        }
        // The heaviest client has the largest target, so it is never pinned (the unpinned
        // targets sum to `free` >= unpinned * minSamples): weightSum >= its weight of 1.
        bool changed = false;
        for (size_t k = 0; k < clients; ++k)
        {
            if (pinned[k])
            {
                continue;
            }
            targets[k] = free * weights[k] / weightSum;
            if (targets[k] < minSamples)
            {
                pinned[k] = true;
                targets[k] = minSamples;
                ++pinnedCount;
                changed = true;
            }
        }
        if (!changed)
        {
            return targets;
        }
    }
}

/// Largest-remainder rounding of `targets` (each >= minSamples) to integers summing to total.
std::vector<uint32_t>
RoundToTotal(const std::vector<double>& targets, size_t total, uint32_t minSamples)
{
    const size_t clients = targets.size();
    std::vector<uint32_t> sizes(clients);
    int64_t assigned = 0;
    for (size_t k = 0; k < clients; ++k)
    {
        sizes[k] = std::max(minSamples, static_cast<uint32_t>(std::floor(targets[k])));
        assigned += sizes[k];
    }
    std::vector<size_t> order(clients);
    std::iota(order.begin(), order.end(), size_t{0});
    auto remainder = [&](size_t k) {
        return targets[k] - std::floor(targets[k]);
    };
    // Stable, so equal remainders keep client order: the result never depends on sort internals.
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return remainder(a) > remainder(b);
    });
    int64_t leftover = static_cast<int64_t>(total) - assigned;
    for (size_t i = 0; leftover > 0; i = (i + 1) % clients)
    {
        ++sizes[order[i]];
        --leftover;
    }
    // Rounding error in the targets can overshoot by an example or so: take it back from the
    // smallest remainders, never below the floor (possible because total >= clients * floor).
    while (leftover < 0)
    {
        for (size_t i = clients; i-- > 0 && leftover < 0;)
        {
            if (sizes[order[i]] > minSamples)
            {
                --sizes[order[i]];
                ++leftover;
            }
        }
    }
    return sizes;
}

} // namespace

std::vector<uint32_t>
ClientSizes(uint32_t clients, size_t examples, const SizeSpec& spec, uint32_t minSamples, Rng& rng)
{
    if (clients == 0)
    {
        throw std::invalid_argument("ClientSizes: clients must be > 0");
    }
    if (examples > std::numeric_limits<uint32_t>::max())
    {
        throw std::invalid_argument("ClientSizes: " + std::to_string(examples) +
                                    " examples do not fit uint32_t indices");
    }
    CheckSpec("ClientSizes", spec);
    if (uint64_t{minSamples} * clients > examples)
    {
        throw DataError("client sizes: " + std::to_string(examples) +
                        " examples cannot give each of " + std::to_string(clients) +
                        " clients at least " + std::to_string(minSamples) +
                        "; lower min_samples or use fewer clients");
    }
    if (spec.kind == SizeSpec::Kind::Equal)
    {
        return EqualShares(clients, examples);
    }

    std::vector<double> logWeights(clients);
    for (double& w : logWeights)
    {
        w = spec.sigma * rng.Normal();
    }
    // Weights relative to the largest (which becomes exactly 1), so no exp overflows to inf
    // however large sigma is.
    const double largest = *std::max_element(logWeights.begin(), logWeights.end());
    std::vector<double> weights(clients);
    for (size_t k = 0; k < clients; ++k)
    {
        weights[k] = pmath::Exp(logWeights[k] - largest);
    }
    return RoundToTotal(FlooredTargets(weights, examples, minSamples), examples, minSamples);
}

std::vector<uint32_t>
DrawClientSizes(uint32_t clients, const SizeSpec& spec, Rng& rng)
{
    CheckSpec("DrawClientSizes", spec);
    constexpr double kMaxSize = std::numeric_limits<uint32_t>::max();
    std::vector<uint32_t> sizes(clients, spec.base);
    uint64_t total = 0;
    for (uint32_t& size : sizes)
    {
        if (spec.kind == SizeSpec::Kind::Lognormal)
        {
            // min() before the cast: exp() of a wild draw may be far beyond uint32_t (or inf).
            const double extra =
                std::min(std::floor(pmath::Exp(spec.mu + spec.sigma * rng.Normal())),
                         kMaxSize - spec.base);
            size += static_cast<uint32_t>(extra);
        }
        if (spec.cap > 0)
        {
            size = std::min(size, spec.cap);
        }
        total += size;
    }
    if (total > std::numeric_limits<uint32_t>::max())
    {
        throw DataError("client sizes: " + std::to_string(clients) + " clients drew " +
                        std::to_string(total) +
                        " examples in all, more than uint32_t indices can address; lower sigma "
                        "or set a cap");
    }
    return sizes;
}

} // namespace fedran
