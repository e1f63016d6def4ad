#include "compression/internal/dgc-select.h"

#include "compression/internal/magnitude-filter.h"
#include "compression/internal/top-k-select.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>

namespace fedran::internal
{

namespace
{

constexpr double kAim = 1.5;      ///< expected candidates, in units of k
constexpr double kMinHits = 64.0; ///< sampled elements expected above the threshold
constexpr int kMaxRetries = 3;    ///< threshold halvings before exact selection

/// Per-thread scratch: selection is not re-entrant, and the simulator's thousands of DGC
/// encoders should not each hold a sample and a candidate list between rounds.
struct Scratch
{
    std::vector<uint32_t> sample;
    std::vector<uint32_t> candidateIndices;
    std::vector<float> candidateValues;
    std::vector<uint32_t> picked;
};

thread_local Scratch t_scratch;

/// 4 * count >= 3.2 * k without rounding trouble: count >= 0.8 k.
bool
CloseEnough(size_t count, size_t k)
{
    return 5 * count >= 4 * k;
}

/// SelectDgc on a v that `form` writes: keyAt(i) is v[i]'s key once formed (read before
/// anything is written; prefetch(i) requests what it reads), formAll() forms the whole of v,
/// collectFormed(t, ...) forms it while collecting the candidates at least t. Each step reads v as
/// SelectDgc on a formed v would, in the same order, with the same draws.
template<typename KeyAt, typename Prefetch, typename FormAll, typename CollectFormed>
void
SelectDgcForming(std::span<const float> v,
                 size_t k,
                 double sampleRatio,
                 Rng& rng,
                 std::vector<uint32_t>& indices,
                 std::vector<float>& values,
                 KeyAt keyAt,
                 Prefetch prefetch,
                 FormAll formAll,
                 CollectFormed collectFormed)
{
    indices.clear();
    values.clear();
    const size_t d = v.size();
    if (k == 0)
    {
        formAll();
        return;
    }
    if (k >= d)
    {
        formAll();
        CollectAtLeast(v, 0, indices, values); // every element
        return;
    }

    const double expectedHitsPerSample = kAim * static_cast<double>(k) / static_cast<double>(d);
    const double wanted = std::max(std::ceil(sampleRatio * static_cast<double>(d)),
                                   std::ceil(kMinHits / expectedHitsPerSample));
    if (wanted > static_cast<double>(d) / 4)
    {
        formAll();
        SelectTopK(v, k, indices, values);
        return;
    }
    const auto s = static_cast<size_t>(wanted);

    Scratch& scratch = t_scratch;
    std::vector<uint32_t>& sample = scratch.sample;
    sample.resize(s);
    // Uniform with replacement. A fixed stride with a random start (the DGC reference) reads
    // about 3x faster from a cold cache (2 vs 6 ms for 250k samples of 25M), but its sample can
    // alias with a tensor's inner dimension.
    // The positions are drawn a batch ahead and their cache lines requested before any is
    // read: each read is a cache (and TLB) miss in a model-sized v, and this way they overlap
    // instead of each waiting behind the draws before it. The draws and the sample are the same.
    constexpr size_t kBatch = 64;
    uint64_t positions[kBatch];
    for (size_t begin = 0; begin < s; begin += kBatch)
    {
        const size_t count = std::min(kBatch, s - begin);
        for (size_t j = 0; j < count; ++j)
        {
            positions[j] = rng.UniformInt(d);
            prefetch(positions[j]);
        }
        for (size_t j = 0; j < count; ++j)
        {
            sample[begin + j] = keyAt(positions[j]);
        }
    }
    // The threshold is the hits-th largest sampled key (1 <= hits <= s since k < d).
    const auto hits = static_cast<size_t>(
        std::clamp(std::ceil(expectedHitsPerSample * static_cast<double>(s)), 1.0, double(s)));
    std::nth_element(sample.begin(), sample.begin() + (hits - 1), sample.end(), std::greater<>());
    uint32_t threshold = sample[hits - 1];

    std::vector<uint32_t>& candidates = scratch.candidateIndices;
    std::vector<float>& candidateValues = scratch.candidateValues;
    for (int attempt = 0; attempt <= kMaxRetries; ++attempt)
    {
        candidates.clear();
        candidateValues.clear();
        if (attempt == 0)
        {
            collectFormed(threshold, candidates, candidateValues);
        }
        else
        {
            CollectAtLeast(v, threshold, candidates, candidateValues);
        }
        const size_t count = candidates.size();
        if (count >= k)
        {
            std::vector<uint32_t>& picked = scratch.picked;
            SelectTopK(candidateValues, k, picked, values);
            indices.resize(k);
            for (size_t j = 0; j < k; ++j)
            {
                indices[j] = candidates[picked[j]];
            }
            return;
        }
        if (CloseEnough(count, k))
        {
            indices.assign(candidates.begin(), candidates.end());
            values.assign(candidateValues.begin(), candidateValues.end());
            return;
        }
        // Halve the magnitude (NaN and inf stay put; the retry limit still ends the loop).
        threshold = MagnitudeKey(std::bit_cast<float>(threshold) * 0.5f);
    }
    SelectTopK(v, k, indices, values);
}

} // namespace

void
SelectDgc(std::span<const float> v,
          size_t k,
          double sampleRatio,
          Rng& rng,
          std::vector<uint32_t>& indices,
          std::vector<float>& values)
{
    SelectDgcForming(
        v,
        k,
        sampleRatio,
        rng,
        indices,
        values,
        [&](size_t i) { return MagnitudeKey(v[i]); },
        [&](size_t i) { __builtin_prefetch(v.data() + i); },
        [] {},
        [&](uint32_t threshold, std::vector<uint32_t>& hitIndices, std::vector<float>& hitValues) {
            CollectAtLeast(v, threshold, hitIndices, hitValues);
        });
}

void
SelectDgcStepped(const MomentumStep& step,
                 float* u,
                 float* v,
                 size_t d,
                 size_t k,
                 double sampleRatio,
                 Rng& rng,
                 std::vector<uint32_t>& indices,
                 std::vector<float>& values)
{
    SelectDgcForming(
        std::span<const float>(v, d),
        k,
        sampleRatio,
        rng,
        indices,
        values,
        [&](size_t i) { return MagnitudeKey(step.VAt(i, u, v)); },
        [&](size_t i) { step.Prefetch(i, u, v); },
        [&] { step.Apply(u, v, 0, d); },
        [&](uint32_t threshold, std::vector<uint32_t>& hitIndices, std::vector<float>& hitValues) {
            CollectAtLeastStepped(step, u, v, d, threshold, hitIndices, hitValues);
        });
}

} // namespace fedran::internal
