#ifndef FEDRAN_MODELS_FL_BYZANTINE_ATTACK_H
#define FEDRAN_MODELS_FL_BYZANTINE_ATTACK_H

// How a Byzantine client corrupts its update (clients.groups[].attack). TrainSite
// (site-training.h) applies it to the trained update before the uplink codec, so an attacker's
// frame is a valid frame of the codec and of an honest client's size. label_flip acts on the
// training data instead (TrainSite trains on flipped labels) and leaves the update alone here.

#include "compression/rng.h"
#include "models/fl/byzantine-config.h"
#include "models/fl/collusion-oracle.h"

#include <cstdint>
#include <span>

namespace fedran
{

/// Baruch et al.'s z for n workers of which f are Byzantine: z = Phi^-1((n - s) / n) with
/// s = floor(n / 2 + 1) - f, the largest z for which the attackers' value still has s
/// honest updates farther from the mean (0 if s <= 0 or (n - s) / n <= 1/2).
double AlieZ(uint32_t n, uint32_t f);

/**
 * Replaces the honest `update` by what `attack` sends. `honest` is what colluders know of the
 * round (alie, ipm); without it (no oracle round) they know nothing and send zeros. `rng`
 * (the client's attack stream) draws gaussian noise and random signs.
 */
void CorruptUpdate(const AttackConfig& attack,
                   std::span<float> update,
                   const HonestStatistics* honest,
                   Rng& rng);

} // namespace fedran

#endif
