#ifndef FEDRAN_MODELS_LEARNING_COMPUTE_SPEED_H
#define FEDRAN_MODELS_LEARNING_COMPUTE_SPEED_H

// How fast each client of a group trains (examples per simulated second): one value for the
// whole group, or a draw per client from a distribution, so that a group can mix fast and
// slow sites and the slow ones become the stragglers a round deadline has to deal with.

#include "compression/rng.h"

#include <cstdint>
#include <vector>

namespace fedran
{

struct ComputeSpeedSpec
{
    enum class Kind
    {
        Fixed,     ///< every client: `value`
        Lognormal, ///< median · exp(sigma · N(0, 1))
        Uniform,   ///< uniform in [min, max]
        Tiers,     ///< `tiers`: a share of the clients at each speed
    };

    struct Tier
    {
        double samplesPerSecond = 0.0;
        double share = 0.0; ///< fraction of the group; the shares sum to 1
    };

    Kind kind = Kind::Fixed;
    double value = 2000.0;
    double median = 0.0;
    double sigma = 0.0;
    double min = 0.0;
    double max = 0.0;
    std::vector<Tier> tiers;
};

/**
 * Samples per second of each of `count` clients, drawn from `rng` in client order.
 *
 * Tiers are allocated exactly rather than drawn independently: each tier gets its share of
 * the clients rounded by largest remainder (ties to the earlier tier), and which clients get
 * which tier is a uniform shuffle. A group of 10 with shares 0.3/0.7 thus always has 3 slow
 * clients, where independent draws would often give 1 or 5 and blur a comparison between runs.
 */
std::vector<double> DrawComputeSpeeds(const ComputeSpeedSpec& spec, uint32_t count, Rng& rng);

} // namespace fedran

#endif
