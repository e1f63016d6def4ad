#ifndef FEDRAN_COMPRESSION_RNG_H
#define FEDRAN_COMPRESSION_RNG_H

#include <cstdint>

namespace fedran
{

/**
 * A small, fast, seedable generator (xoshiro256**) with its own distributions.
 *
 * The C++ standard leaves std::normal_distribution and friends implementation-defined, so
 * they could change traces between library versions. Everything random outside ns-3 (data
 * partitions, minibatch order, stochastic codecs) draws from this class instead, seeded from
 * the scenario seed and a stream number so that each client and purpose has its own stream.
 */
class Rng
{
  public:
    /// Seeds from (seed, stream); different streams give independent sequences.
    explicit Rng(uint64_t seed = 0, uint64_t stream = 0);

    uint64_t NextU64();
    /// Uniform in [0, 1), 53 random bits.
    double Uniform();
    /// Uniform integer in [0, n); n must be > 0. Unbiased (rejection sampling).
    uint64_t UniformInt(uint64_t n);
    /// Standard normal (Marsaglia polar method).
    double Normal();
    /// Gamma(shape, 1) for shape > 0 (Marsaglia-Tsang, boosted below shape 1).
    double Gamma(double shape);

  private:
    uint64_t m_s[4];
    bool m_hasSpare = false;
    double m_spare = 0.0;
};

} // namespace fedran

#endif
