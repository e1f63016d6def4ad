#ifndef FEDRAN_MODELS_LEARNING_PARTITION_H
#define FEDRAN_MODELS_LEARNING_PARTITION_H

// Splitting one shared Dataset among FL clients. A client's data is the list of its example
// indices into the shared Dataset (a view), never a copy of the examples.

#include "compression/rng.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace fedran
{

/**
 * IID split: shuffles 0..examples-1 and cuts it into `clients` near-equal parts (sizes differ
 * by at most one; the first examples % clients clients get the extra example). Each client's
 * indices are returned in ascending order. Throws std::invalid_argument if clients == 0 or
 * examples does not fit in uint32_t.
 */
std::vector<std::vector<uint32_t>> PartitionIid(size_t examples, uint32_t clients, Rng& rng);

/**
 * Label-skewed split following the NIID-Bench convention (Li et al., ICDE 2022; FedLab's
 * hetero_dir_partition does the same): for each class in turn, its shuffled examples are
 * divided among the clients by proportions p ~ Dir(alpha) (drawn as normalised Gamma(alpha)
 * variates), except that a client already holding examples / clients examples gets no more.
 * Small alpha gives each client few classes; large alpha approaches the IID label mix.
 *
 * The whole draw is repeated until every client holds at least `minSamples` examples; after
 * a bounded number of tries, or at once if examples < clients * minSamples, it throws a
 * DataError that says what to change. Labels >= classes throw DataError; clients == 0 or a
 * non-positive/non-finite alpha throw std::invalid_argument. Indices come back ascending.
 */
std::vector<std::vector<uint32_t>> PartitionDirichlet(std::span<const uint8_t> labels,
                                                      uint32_t classes,
                                                      uint32_t clients,
                                                      double alpha,
                                                      uint32_t minSamples,
                                                      Rng& rng);

/// How many whole redraws PartitionDirichlet makes before giving up on minSamples.
constexpr uint32_t kDirichletMaxTries = 1000;

/**
 * Pathological non-IID split of McMahan et al. (AISTATS 2017): the examples are sorted by
 * label (stably, so ties keep index order), cut into clients * shardsPerClient contiguous
 * shards of near-equal size (the first examples % shards shards get one extra example), and
 * each client is dealt shardsPerClient shards chosen at random without replacement. A shard
 * spans one or two labels when it is no larger than a class, so a client sees at most about
 * 2 * shardsPerClient labels, usually shardsPerClient.
 *
 * Throws std::invalid_argument if clients or shardsPerClient is 0 or the examples do not fit
 * uint32_t, and DataError if there are fewer examples than shards. Indices come back ascending.
 */
std::vector<std::vector<uint32_t>> PartitionShards(std::span<const uint8_t> labels,
                                                   uint32_t clients,
                                                   uint32_t shardsPerClient,
                                                   Rng& rng);

/**
 * Quantity skew without label skew: shuffles 0..examples-1 and gives client k the next
 * sizes[k] of them (sizes normally from ClientSizes). Throws std::invalid_argument if sizes
 * is empty or does not sum to `examples`. Indices come back ascending.
 *
 * Quantity skew is supported only for this IID split: PartitionDirichlet and PartitionShards
 * fix the client sizes themselves (Dirichlet's sizes follow from the draws, capped at an equal
 * share; shards are equal by construction) and take no size vector.
 */
std::vector<std::vector<uint32_t>> PartitionIidSizes(size_t examples,
                                                     std::span<const uint32_t> sizes,
                                                     Rng& rng);

/**
 * Natural split of a forecasting dataset: each client holds whole cells. Cell c (the index in
 * `series`, cells in square-id order) goes to client c % clients, so with more cells than
 * clients they are dealt round-robin in id order. `series` gives each example's cell. Throws
 * std::invalid_argument if clients == 0, and DataError if there are fewer cells than clients
 * (a client would hold no data) or an example names a cell >= cells. Indices come back
 * ascending.
 */
std::vector<std::vector<uint32_t>> PartitionByCell(std::span<const uint32_t> series,
                                                   uint32_t cells,
                                                   uint32_t clients);

} // namespace fedran

#endif
