#ifndef FEDRAN_MODELS_FL_SECAGG_SECAGG_GRAPH_H
#define FEDRAN_MODELS_FL_SECAGG_SECAGG_GRAPH_H

// Who masks with whom. SecAgg+ (Bell et al. 2020) replaces the complete graph of Bonawitz et
// al. with a sparse one; Flower's SecAggPlusWorkflow shuffles the participants onto a ring
// and gives each the ids at offsets -floor(k/2) .. +floor(k/2) (itself included): a circulant
// graph, k-regular when k is odd. Complete when k >= the number of participants.

#include <cstdint>
#include <map>
#include <vector>

namespace fedran
{
class Rng;

namespace secagg
{

/// Flower's effective neighbourhood size for `requested` num_shares: made odd (k + 1 when
/// even), at most `participants`.
uint32_t EffectiveShares(uint32_t requested, uint32_t participants);

/**
 * Each participant's neighbours (sorted, itself excluded), on a ring of the participants in
 * an order shuffled with `rng` (Fisher-Yates), with neighbourhoods of `shares` (itself
 * included). The relation is symmetric.
 */
std::map<uint32_t, std::vector<uint32_t>> CirculantNeighbours(std::vector<uint32_t> participants,
                                                              uint32_t shares,
                                                              Rng& rng);

} // namespace secagg
} // namespace fedran

#endif
