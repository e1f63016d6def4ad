#ifndef FEDRAN_MODELS_LEARNING_CLIENT_SIZES_H
#define FEDRAN_MODELS_LEARNING_CLIENT_SIZES_H

// How many examples each FL client holds (quantity skew). Two uses: splitting a fixed total
// among clients (ClientSizes, for real datasets) and drawing free per-client sizes for data
// that is generated per client (DrawClientSizes, for MakeSyntheticLeaf).

#include "compression/rng.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fedran
{

/**
 * The distribution of client sizes. Which fields matter depends on the caller:
 *
 * - ClientSizes (fixed total) reads only `kind` and `sigma`: Equal gives near-equal shares,
 *   Lognormal gives shares proportional to exp(N(0, sigma^2)).
 * - DrawClientSizes (free total) reads every field: Equal gives each client `base` examples,
 *   Lognormal gives base + floor(exp(N(mu, sigma^2))); either is then capped at `cap` when
 *   cap > 0. LEAF / FedProx's Synthetic(alpha, beta) uses Lognormal, mu 4, sigma 2, base 50,
 *   no cap (see Leaf()).
 */
struct SizeSpec
{
    enum class Kind
    {
        Equal,
        Lognormal,
    };

    Kind kind = Kind::Equal;
    double sigma = 0.0; ///< Lognormal: standard deviation of the log size (>= 0)
    double mu = 0.0;    ///< DrawClientSizes, Lognormal: mean of the log size
    uint32_t base = 0;  ///< DrawClientSizes: examples every client has before the draw is added
    uint32_t cap = 0;   ///< DrawClientSizes: largest client size; 0 means no cap

    static SizeSpec Equal(uint32_t base = 0)
    {
        SizeSpec spec;
        spec.base = base;
        return spec;
    }

    static SizeSpec Lognormal(double sigma, double mu = 0.0, uint32_t base = 0, uint32_t cap = 0)
    {
        SizeSpec spec;
        spec.kind = Kind::Lognormal;
        spec.sigma = sigma;
        spec.mu = mu;
        spec.base = base;
        spec.cap = cap;
        return spec;
    }

    /// FedProx's generate_synthetic.py: lognormal(4, 2).astype(int) + 50, optionally capped.
    static SizeSpec Leaf(uint32_t cap = 0)
    {
        return Lognormal(2.0, 4.0, 50, cap);
    }
};

/**
 * Splits `examples` among `clients`: sizes that sum to exactly `examples`, each at least
 * `minSamples`.
 *
 * Equal: examples / clients each, the first examples % clients clients one more (as in
 * PartitionIid). Lognormal: target shares p_k proportional to exp(sigma * z_k), z_k ~ N(0, 1)
 * drawn in client order. A client whose share would fall below minSamples is raised to
 * minSamples and the others shrink in proportion (repeated until none falls below), so the
 * minimum distorts only the small clients. Real targets are rounded by largest remainder
 * (ties to the lower client index), which keeps the sum exact.
 *
 * Throws DataError if clients * minSamples > examples; std::invalid_argument if clients == 0,
 * examples does not fit uint32_t, or sigma is negative or not finite.
 */
std::vector<uint32_t> ClientSizes(uint32_t clients,
                                  size_t examples,
                                  const SizeSpec& spec,
                                  uint32_t minSamples,
                                  Rng& rng);

/**
 * Draws each client's size independently, with no fixed total (see SizeSpec). Throws
 * std::invalid_argument if sigma is negative or not finite, and DataError if the sizes add up
 * to more than uint32_t can index (lower sigma or set a cap).
 */
std::vector<uint32_t> DrawClientSizes(uint32_t clients, const SizeSpec& spec, Rng& rng);

} // namespace fedran

#endif
