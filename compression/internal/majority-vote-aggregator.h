#ifndef FEDRAN_COMPRESSION_INTERNAL_MAJORITY_VOTE_AGGREGATOR_H
#define FEDRAN_COMPRESSION_INTERNAL_MAJORITY_VOTE_AGGREGATOR_H

#include "compression/codec.h"

#include <memory>

namespace fedran::internal
{

/// signSGD with majority vote (Bernstein et al. 2019): per element, the sign of the sum of
/// the clients' signs (0 on a tie) times the mean of their magnitudes. Votes are unweighted.
std::unique_ptr<Aggregator> MakeMajorityVoteAggregator();

} // namespace fedran::internal

#endif
