#ifndef FEDRAN_MODELS_FL_SECAGG_SECAGG_QUANTIZE_H
#define FEDRAN_MODELS_FL_SECAGG_SECAGG_QUANTIZE_H

// Floats to field elements and back, as Flower's SecAgg+ does it: a client scales its vector
// by its weight w = round(examples / max_weight x Q) / Q, clips to [-c, c], rounds
// stochastically (x + c) Q / 2c into [0, Q] and prepends the weight's integer; the server sums
// mod 2^b, maps the sum back with v 2c/Q - n c and divides by the weights' sum: the
// example-weighted mean (fedran sums updates, Flower parameters). With privacy.dp the weights
// are all 1 and the denominator is clients_per_round (client-side clipping, fixed
// denominator, as Flower's DP with SecAgg).
//
// The rounding reaches the model, hence the traces: compiled without fused multiply-adds,
// with its draws from the client's own stream.

#include <cstdint>
#include <span>
#include <vector>

namespace fedran
{
class Rng;

namespace secagg
{

/// round(examples / maxWeight x q), at least 1 (a site always counts).
uint64_t WeightInteger(uint64_t examples, double maxWeight, uint64_t q);

/**
 * [weight, quantized values...]: `values` scaled by weight / q, clipped to [-c, c] and
 * stochastically rounded into [0, q] with `rng` (one draw per value, in order).
 */
std::vector<uint64_t> Quantize(std::span<const float> values,
                               uint64_t weight,
                               double c,
                               uint64_t q,
                               Rng& rng);

/**
 * The mean from the unmasked sum of `contributors` quantized vectors: element 0 is the
 * weights' sum. `denominator` > 0 replaces the weights' sum / q (DP's fixed denominator).
 */
std::vector<float> Dequantize(std::span<const uint64_t> sum,
                              uint32_t contributors,
                              double c,
                              uint64_t q,
                              double denominator = 0.0);

/// random_k composed with secure aggregation: the k positions of [0, d) (ascending) that
/// every client of a round keeps, from the round's shared seed (Floyd's sampling).
std::vector<uint32_t> SharedSupport(uint64_t d, uint64_t k, uint64_t seed);

} // namespace secagg
} // namespace fedran

#endif
