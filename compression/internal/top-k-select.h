#ifndef FEDRAN_COMPRESSION_INTERNAL_TOP_K_SELECT_H
#define FEDRAN_COMPRESSION_INTERNAL_TOP_K_SELECT_H

// Exact top-k by magnitude, at close to one streaming pass over the input.
//
// Order: larger |x| first; equal magnitudes by lower index (so the result is deterministic and
// -0.0 ties with +0.0). NaN counts as larger than +inf (NaNs among themselves by payload bits),
// so a diverged update is sent rather than silently dropped. See MagnitudeKey.

#include "compression/internal/magnitude-filter.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace fedran::internal
{

enum class TopKStrategy
{
    /// Sampled threshold first, the exact histogram path if the sample misjudges the data.
    Auto,
    /// Always the histogram path (for tests and benchmarks).
    Histogram,
};

/// Replaces `indices` with the ascending indices of the min(k, x.size()) largest |x_i|.
/// x.size() must be at most 2^32 (std::invalid_argument otherwise).
void SelectTopK(std::span<const float> x, size_t k, std::vector<uint32_t>& indices);

/// As above, and replaces `values` with x at those indices (bit-exact).
void SelectTopK(std::span<const float> x,
                size_t k,
                std::vector<uint32_t>& indices,
                std::vector<float>& values,
                TopKStrategy strategy = TopKStrategy::Auto);

/// Forms e in place (`compensation`) and then does what SelectTopK(e, k, indices, values)
/// does, bit for bit, reading and writing e in one pass where the sampled bound holds
/// (error feedback's residual: one pass over model-sized memory fewer).
void SelectTopKCompensated(const Compensation& compensation,
                           std::span<float> e,
                           size_t k,
                           std::vector<uint32_t>& indices,
                           std::vector<float>& values);

} // namespace fedran::internal

#endif
