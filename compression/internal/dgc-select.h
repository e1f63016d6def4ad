#ifndef FEDRAN_COMPRESSION_INTERNAL_DGC_SELECT_H
#define FEDRAN_COMPRESSION_INTERNAL_DGC_SELECT_H

// DGC's selection (Lin et al., ICLR'18, section 3.1 and the reference code's sampled
// threshold): which elements of the accumulated gradient v to send.
//
//  1. Draw s = max(ceil(sample_ratio * d), enough for 64 expected hits) positions uniformly
//     with replacement from the Rng, and take the threshold t as the magnitude that
//     kAim * k * s / d of the sampled |v| reach (nth_element on the sample only), so that
//     about kAim * k = 1.5 k elements of v are expected to reach it.
//  2. One streaming pass collects the candidates |v| >= t (CollectAtLeast).
//  3. At least k candidates: exact top-k among them (SelectTopK). Every element outside the
//     candidates is smaller than every candidate, so this *is* the exact top-k of v.
//     Between 0.8 k and k candidates: all of them are sent (the DGC reference accepts
//     [0.8, 1.3] k; we accept only the short side, so the message never exceeds k values).
//     Fewer than 0.8 k: the sample misjudged v; t is halved and step 2 repeated, at most
//     kMaxRetries times, then exact top-k over the whole of v.
//
// The sent count is therefore in [ceil(0.8 k), k], and almost always exactly k (the sample
// has to overestimate the threshold by about a third, several standard deviations, to fall
// short). Tensors where s would exceed d / 4 skip the sample: exact selection is as cheap.

#include "compression/internal/magnitude-filter.h"
#include "compression/rng.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace fedran::internal
{

/// Replaces `indices` (ascending) and `values` (v at those indices, bit-exact) with the
/// elements of v to send; k <= v.size() <= 2^32, 0 < sampleRatio <= 1.
void SelectDgc(std::span<const float> v,
               size_t k,
               double sampleRatio,
               Rng& rng,
               std::vector<uint32_t>& indices,
               std::vector<float>& values);

/// SelectDgc on the v that `step` forms (magnitude-filter.h), u and v of d floats (v == u when
/// step.before is Zero): forms u and v in the pass that collects the candidates, instead of a
/// pass of its own before the selection; the same selection, u and v as forming them first.
void SelectDgcStepped(const MomentumStep& step,
                      float* u,
                      float* v,
                      size_t d,
                      size_t k,
                      double sampleRatio,
                      Rng& rng,
                      std::vector<uint32_t>& indices,
                      std::vector<float>& values);

} // namespace fedran::internal

#endif
