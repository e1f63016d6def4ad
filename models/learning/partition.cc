#include "models/learning/partition.h"

#include "models/learning/dataset.h"
#include "models/learning/shuffle.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>

namespace fedran
{

namespace
{

void
CheckSizes(const char* function, size_t examples, uint32_t clients)
{
    if (clients == 0)
    {
        throw std::invalid_argument(std::string(function) + ": clients must be > 0");
    }
    if (examples > std::numeric_limits<uint32_t>::max())
    {
        throw std::invalid_argument(std::string(function) + ": " + std::to_string(examples) +
                                    " examples do not fit uint32_t indices");
    }
}

void
SortEach(std::vector<std::vector<uint32_t>>& parts)
{
    for (auto& part : parts)
    {
        std::sort(part.begin(), part.end());
    }
}

/**
 * Fills `weights` with one class's unnormalised Dir(alpha) proportions, zeroing the clients
 * that are already full, and returns their sum (> 0).
 */
double
DrawClassProportions(const std::vector<std::vector<uint32_t>>& parts,
                     double capacity,
                     double alpha,
                     Rng& rng,
                     std::vector<double>& weights)
{
    const size_t clients = parts.size();
    size_t eligible = 0;
    double sum = 0.0;
    for (size_t j = 0; j < clients; ++j)
    {
        // Draw for every client, full or not, so the stream position does not depend on sizes.
        const double g = rng.Gamma(alpha);
        const bool open = static_cast<double>(parts[j].size()) < capacity;
        weights[j] = open ? g : 0.0;
        eligible += open ? 1 : 0;
        sum += weights[j];
    }
    if (sum > 0.0 && std::isfinite(sum))
    {
        return sum;
    }
    // Every open client's Gamma draw underflowed to 0 (alpha far below 1), or none is open
    // (only possible for an empty class). Dir(alpha) tends to a one-hot vector on a uniformly
    // chosen client as alpha -> 0, so use that limit.
    const bool anyOpen = eligible > 0;
    uint64_t pick = rng.UniformInt(anyOpen ? eligible : clients);
    for (size_t j = 0; j < clients; ++j)
    {
        const bool candidate = !anyOpen || static_cast<double>(parts[j].size()) < capacity;
        weights[j] = 0.0;
        if (candidate && pick-- == 0)
        {
            weights[j] = 1.0;
        }
    }
    return 1.0;
}

} // namespace

std::vector<std::vector<uint32_t>>
PartitionIid(size_t examples, uint32_t clients, Rng& rng)
{
    CheckSizes("PartitionIid", examples, clients);
    std::vector<uint32_t> order(examples);
    std::iota(order.begin(), order.end(), 0u);
    Shuffle(std::span<uint32_t>(order), rng);

    std::vector<std::vector<uint32_t>> parts(clients);
    const size_t base = examples / clients;
    const size_t extra = examples % clients;
    auto next = order.begin();
    for (uint32_t c = 0; c < clients; ++c)
    {
        const auto size = static_cast<std::ptrdiff_t>(base + (c < extra ? 1 : 0));
        parts[c].assign(next, next + size);
        next += size;
    }
    SortEach(parts);
    return parts;
}

std::vector<std::vector<uint32_t>>
PartitionDirichlet(std::span<const uint8_t> labels,
                   uint32_t classes,
                   uint32_t clients,
                   double alpha,
                   uint32_t minSamples,
                   Rng& rng)
{
    CheckSizes("PartitionDirichlet", labels.size(), clients);
    if (!(alpha > 0.0) || !std::isfinite(alpha))
    {
        throw std::invalid_argument("PartitionDirichlet: alpha must be positive and finite, got " +
                                    std::to_string(alpha));
    }
    const size_t examples = labels.size();
    if (uint64_t{minSamples} * clients > examples)
    {
        throw DataError("Dirichlet partition: " + std::to_string(examples) +
                        " examples cannot give each of " + std::to_string(clients) +
                        " clients at least " + std::to_string(minSamples) +
                        "; lower min_samples or use fewer clients");
    }

    std::vector<std::vector<uint32_t>> byClass(classes);
    for (size_t i = 0; i < examples; ++i)
    {
        if (labels[i] >= classes)
        {
            throw DataError("Dirichlet partition: example " + std::to_string(i) + " has label " +
                            std::to_string(labels[i]) + " but the dataset declares " +
                            std::to_string(classes) + " classes");
        }
        byClass[labels[i]].push_back(static_cast<uint32_t>(i));
    }

    // NIID-Bench stops feeding a client once it holds an equal share, which keeps client sizes
    // from being as extreme as the raw Dirichlet draws would make them.
    const double capacity = static_cast<double>(examples) / clients;
    std::vector<std::vector<uint32_t>> parts(clients);
    std::vector<double> weights(clients);
    size_t bestSmallest = 0;
    for (uint32_t attempt = 0; attempt < kDirichletMaxTries; ++attempt)
    {
        for (auto& part : parts)
        {
            part.clear();
        }
        for (auto& members : byClass)
        {
            Shuffle(std::span<uint32_t>(members), rng);
            const double sum = DrawClassProportions(parts, capacity, alpha, rng, weights);
            const size_t n = members.size();
            size_t begin = 0;
            double cumulative = 0.0;
            for (uint32_t j = 0; j < clients; ++j)
            {
                size_t end = n;
                if (j + 1 < clients)
                {
                    // Truncating cut points as NIID-Bench's astype(int) does.
                    cumulative += weights[j];
                    const double cut = cumulative / sum * static_cast<double>(n);
                    end = std::clamp(static_cast<size_t>(cut), begin, n);
                }
                parts[j].insert(parts[j].end(),
                                members.begin() + static_cast<std::ptrdiff_t>(begin),
                                members.begin() + static_cast<std::ptrdiff_t>(end));
                begin = end;
            }
        }
        size_t smallest = examples;
        for (const auto& part : parts)
        {
            smallest = std::min(smallest, part.size());
        }
        if (smallest >= minSamples)
        {
            SortEach(parts);
            return parts;
        }
        bestSmallest = std::max(bestSmallest, smallest);
    }

    std::ostringstream message;
    message << "Dirichlet partition (alpha=" << alpha << ") of " << examples << " examples over "
            << clients << " clients: no draw in " << kDirichletMaxTries
            << " tries gave every client at least " << minSamples
            << " examples (the best gave its smallest client " << bestSmallest
            << "); raise alpha, lower min_samples or use fewer clients";
    throw DataError(message.str());
}

std::vector<std::vector<uint32_t>>
PartitionShards(std::span<const uint8_t> labels,
                uint32_t clients,
                uint32_t shardsPerClient,
                Rng& rng)
{
    CheckSizes("PartitionShards", labels.size(), clients);
    if (shardsPerClient == 0)
    {
        throw std::invalid_argument("PartitionShards: shardsPerClient must be > 0");
    }
    const size_t examples = labels.size();
    const uint64_t shards = uint64_t{clients} * shardsPerClient;
    if (shards > examples)
    {
        throw DataError("shard partition: " + std::to_string(examples) +
                        " examples cannot be cut into " + std::to_string(shards) + " shards (" +
                        std::to_string(clients) + " clients x " + std::to_string(shardsPerClient) +
                        "); use fewer clients or shards per client");
    }

    // Counting sort by label: stable, and independent of any std::sort implementation.
    std::vector<size_t> start(257, 0);
    for (uint8_t label : labels)
    {
        ++start[size_t{label} + 1];
    }
    std::partial_sum(start.begin(), start.end(), start.begin());
    std::vector<uint32_t> sorted(examples);
    for (size_t i = 0; i < examples; ++i)
    {
        sorted[start[labels[i]]++] = static_cast<uint32_t>(i);
    }

    std::vector<uint32_t> shardOrder(static_cast<size_t>(shards));
    std::iota(shardOrder.begin(), shardOrder.end(), 0u);
    Shuffle(std::span<uint32_t>(shardOrder), rng);

    const size_t base = examples / shards;
    const size_t extra = examples % shards;
    auto shardBegin = [&](uint64_t s) {
        return s * base + std::min<uint64_t>(s, extra);
    };
    std::vector<std::vector<uint32_t>> parts(clients);
    for (uint32_t c = 0; c < clients; ++c)
    {
        for (uint32_t i = 0; i < shardsPerClient; ++i)
        {
            const uint32_t s = shardOrder[size_t{c} * shardsPerClient + i];
            parts[c].insert(parts[c].end(),
                            sorted.begin() + static_cast<std::ptrdiff_t>(shardBegin(s)),
                            sorted.begin() + static_cast<std::ptrdiff_t>(shardBegin(s + 1)));
        }
    }
    SortEach(parts);
    return parts;
}

std::vector<std::vector<uint32_t>>
PartitionIidSizes(size_t examples, std::span<const uint32_t> sizes, Rng& rng)
{
    if (sizes.empty())
    {
        throw std::invalid_argument("PartitionIidSizes: sizes must name at least one client");
    }
    CheckSizes("PartitionIidSizes", examples, static_cast<uint32_t>(sizes.size()));
    const uint64_t sum = std::accumulate(sizes.begin(), sizes.end(), uint64_t{0});
    if (sum != examples)
    {
        throw std::invalid_argument("PartitionIidSizes: client sizes sum to " +
                                    std::to_string(sum) + " but there are " +
                                    std::to_string(examples) + " examples");
    }
    std::vector<uint32_t> order(examples);
    std::iota(order.begin(), order.end(), 0u);
    Shuffle(std::span<uint32_t>(order), rng);

    std::vector<std::vector<uint32_t>> parts(sizes.size());
    auto next = order.begin();
    for (size_t c = 0; c < sizes.size(); ++c)
    {
        parts[c].assign(next, next + sizes[c]);
        next += sizes[c];
    }
    SortEach(parts);
    return parts;
}

std::vector<std::vector<uint32_t>>
PartitionByCell(std::span<const uint32_t> series, uint32_t cells, uint32_t clients)
{
    if (clients == 0)
    {
        throw std::invalid_argument("PartitionByCell: clients must be at least 1");
    }
    if (cells < clients)
    {
        throw DataError(std::to_string(cells) + " cells for " + std::to_string(clients) +
                        " clients: by_cell gives every client at least one cell, so use at most " +
                        std::to_string(cells) + " clients or more cells");
    }
    std::vector<std::vector<uint32_t>> parts(clients);
    for (size_t i = 0; i < series.size(); ++i)
    {
        if (series[i] >= cells)
        {
            throw DataError("example " + std::to_string(i) + " names cell " +
                            std::to_string(series[i]) + " of " + std::to_string(cells));
        }
        parts[series[i] % clients].push_back(static_cast<uint32_t>(i)); // i ascends
    }
    return parts;
}

} // namespace fedran
