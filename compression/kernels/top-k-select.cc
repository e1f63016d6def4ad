// Exact top-k by magnitude without sorting or nth_element over the input.
//
// Everything works on MagnitudeKey (the float bits without the sign), whose unsigned order is
// the magnitude order. The k-th largest key T and how many elements equal to T to keep (the
// lowest-indexed ones) define the result: {key > T} plus the first `ties` of {key == T}.
//
//  1. Find a lower bound L <= T and collect (index, value) of every element with key >= L, in
//     index order, with one streaming pass (CollectAtLeast). L comes either from
//       - a strided sample of 2^15 keys: the sample rank a few standard deviations past the
//         expected rank of T, so that fewer than k elements reach L only for data whose
//         sample is unrepresentative; that case is detected (count < k) and falls back to
//       - a histogram of the top 11 key bits over the whole input: L is the lower edge of the
//         bin holding T. Exact for any data, one extra pass.
//  2. Find T among the candidates by radix select on 11 + 10 + 10 bits (histogram, narrow to
//     the bin holding the k-th, repeat), or by sorting once few candidates remain.
//  3. Compact the candidates in place to the k selected; they are already in index order.

#include "compression/internal/top-k-select.h"

#include "compression/internal/magnitude-filter.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>

namespace fedran::internal
{

namespace
{

constexpr size_t kSortBelow = 64;          ///< candidates left when sorting beats histograms
constexpr size_t kMinSampled = 1u << 18;   ///< below this, sampling saves too little
constexpr size_t kSample = 1u << 15;       ///< sample size
constexpr size_t kMinHistogram = 1u << 12; ///< below this, every element is a candidate
constexpr double kSampleMargin = 5.0;      ///< standard deviations of slack in the sample rank

/// The k-th largest key and how many keys equal to it belong to the top k.
struct Cut
{
    uint32_t key;
    size_t ties;
};

/// Radix select of the k-th largest of `keys` (1 <= k <= keys.size()); reorders `keys`.
Cut
FindCut(std::vector<uint32_t>& keys, size_t k)
{
    struct Level
    {
        unsigned shift;
        unsigned bits;
    };

    constexpr Level kLevels[] = {{20, 11}, {10, 10}, {0, 10}}; // keys have 31 bits
    uint32_t* data = keys.data();
    size_t n = keys.size();
    size_t need = k; // rank of the cut within the remaining keys
    uint32_t prefix = 0;
    for (const Level& level : kLevels)
    {
        if (n <= kSortBelow)
        {
            std::sort(data, data + n, std::greater<>());
            const uint32_t key = data[need - 1];
            const size_t ties = need - (std::find(data, data + need, key) - data);
            return {key, ties};
        }
        uint32_t histogram[1u << 11] = {};
        const uint32_t mask = (1u << level.bits) - 1;
        for (size_t j = 0; j < n; ++j)
        {
            ++histogram[(data[j] >> level.shift) & mask];
        }
        uint32_t bin = mask;
        while (histogram[bin] < need)
        {
            need -= histogram[bin];
            --bin;
        }
        prefix |= bin << level.shift;
        size_t kept = 0;
        for (size_t j = 0; j < n; ++j)
        {
            const uint32_t key = data[j];
            data[kept] = key;
            kept += ((key >> level.shift) & mask) == bin;
        }
        n = kept;
    }
    return {prefix, need}; // every remaining key equals prefix
}

/// Step 1 by histogram: collects every element in or above the top-11-bit bin of the k-th.
void
CollectByHistogram(std::span<const float> x,
                   size_t k,
                   std::vector<uint32_t>& indices,
                   std::vector<float>& values)
{
    const size_t n = x.size();
    if (n < kMinHistogram)
    {
        CollectAtLeast(x, 0, indices, values);
        return;
    }
    // Four interleaved histograms, so runs of equal bins (common: most of a gradient sits in
    // a few exponents) do not serialise on one counter's store-to-load latency.
    constexpr unsigned kShift = 20;
    constexpr size_t kBins = 1u << 11;
    std::vector<uint32_t> histograms(4 * kBins, 0);
    uint32_t* h = histograms.data();
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
    {
        ++h[0 * kBins + (MagnitudeKey(x[i]) >> kShift)];
        ++h[1 * kBins + (MagnitudeKey(x[i + 1]) >> kShift)];
        ++h[2 * kBins + (MagnitudeKey(x[i + 2]) >> kShift)];
        ++h[3 * kBins + (MagnitudeKey(x[i + 3]) >> kShift)];
    }
    for (; i < n; ++i)
    {
        ++h[MagnitudeKey(x[i]) >> kShift];
    }
    size_t bin = kBins - 1;
    size_t seen = 0;
    while (true)
    {
        seen += size_t{h[bin]} + h[kBins + bin] + h[2 * kBins + bin] + h[3 * kBins + bin];
        if (seen >= k)
        {
            break;
        }
        --bin;
    }
    CollectAtLeast(x, static_cast<uint32_t>(bin << kShift), indices, values);
}

/// The sampled lower bound L of step 1 for the k-th largest of n keys, keyAt(i) the i-th, and
/// how many candidates to reserve for; L = 0 when sampling cannot help (too few elements, a
/// rank beyond the sample, or L = 0, which would make every element a candidate).
template<typename KeyAt>
uint32_t
SampledBound(size_t n, size_t k, KeyAt keyAt, size_t& reserve)
{
    if (n < kMinSampled)
    {
        return 0;
    }
    std::vector<uint32_t> sample(kSample);
    const size_t halfStride = n / kSample / 2;
    for (size_t j = 0; j < kSample; ++j)
    {
        sample[j] = keyAt(uint64_t{j} * n / kSample + halfStride);
    }
    // The number of sampled keys >= T is about Binomial(kSample, k/n); going kSampleMargin
    // standard deviations further down makes L > T (too few candidates) vanishingly rare on
    // data without structure at the sampling stride.
    const double p = static_cast<double>(k) / static_cast<double>(n);
    const double expected = p * kSample;
    const double rank = std::ceil(expected + kSampleMargin * std::sqrt(expected * (1 - p)) + 2);
    if (rank >= kSample)
    {
        return 0;
    }
    const auto nth = sample.begin() + static_cast<ptrdiff_t>(rank);
    std::nth_element(sample.begin(), nth, sample.end(), std::greater<>());
    // About (rank + 1) / kSample of the input reaches L. Reserving that (and a margin) once
    // spares a first call growing the candidate buffers by doubling, which copies them and
    // touches twice the fresh memory (page faults dominate a client's first encode).
    const double estimate = (rank + 1) * static_cast<double>(n) / kSample;
    reserve = static_cast<size_t>(std::min(1.25 * estimate + 1024, double(n)));
    return *nth;
}

/// Step 1 by sampling. Returns false (leaving the outputs empty) when it cannot help or the
/// sample misjudged the data.
bool
CollectBySample(std::span<const float> x,
                size_t k,
                std::vector<uint32_t>& indices,
                std::vector<float>& values)
{
    size_t reserve = 0;
    const uint32_t bound = SampledBound(
        x.size(),
        k,
        [&](size_t i) { return MagnitudeKey(x[i]); },
        reserve);
    if (bound == 0)
    {
        return false;
    }
    indices.reserve(reserve);
    values.reserve(reserve);
    CollectAtLeast(x, bound, indices, values);
    if (indices.size() < k)
    {
        indices.clear();
        values.clear();
        return false;
    }
    return true;
}

/// Steps 2 and 3: keeps the top k of the candidates, in place and in index order.
void
KeepTopK(size_t k, std::vector<uint32_t>& indices, std::vector<float>& values)
{
    std::vector<uint32_t> keys(values.size());
    for (size_t j = 0; j < values.size(); ++j)
    {
        keys[j] = MagnitudeKey(values[j]);
    }
    const Cut cut = FindCut(keys, k);
    size_t ties = cut.ties;
    size_t kept = 0;
    for (size_t j = 0; j < values.size(); ++j)
    {
        const uint32_t key = MagnitudeKey(values[j]);
        const bool tie = key == cut.key && ties != 0;
        ties -= tie;
        indices[kept] = indices[j];
        values[kept] = values[j];
        kept += key > cut.key || tie;
    }
    indices.resize(kept);
    values.resize(kept);
}

} // namespace

void
SelectTopK(std::span<const float> x,
           size_t k,
           std::vector<uint32_t>& indices,
           std::vector<float>& values,
           TopKStrategy strategy)
{
    if (x.size() > (uint64_t{1} << 32))
    {
        throw std::invalid_argument("SelectTopK: " + std::to_string(x.size()) +
                                    " elements exceed 32-bit indices");
    }
    indices.clear();
    values.clear();
    k = std::min(k, x.size());
    if (k == 0)
    {
        return;
    }
    if (k == x.size())
    {
        CollectAtLeast(x, 0, indices, values);
        return;
    }
    if (strategy == TopKStrategy::Histogram || !CollectBySample(x, k, indices, values))
    {
        CollectByHistogram(x, k, indices, values);
    }
    KeepTopK(k, indices, values);
}

void
SelectTopKCompensated(const Compensation& compensation,
                      std::span<float> e,
                      size_t k,
                      std::vector<uint32_t>& indices,
                      std::vector<float>& values)
{
    const size_t n = e.size();
    size_t reserve = 0;
    // The sample reads e before the pass below overwrites it, so it forms its keys itself.
    const uint32_t bound =
        n > (uint64_t{1} << 32) || k == 0 || k >= n
            ? 0
            : SampledBound(
                  n,
                  k,
                  [&](size_t i) { return MagnitudeKey(compensation.At(i, e.data())); },
                  reserve);
    if (bound != 0)
    {
        indices.clear();
        values.clear();
        indices.reserve(reserve);
        values.reserve(reserve);
        CollectAtLeastCompensated(compensation, e, bound, indices, values);
        if (indices.size() >= k)
        {
            KeepTopK(k, indices, values);
            return;
        }
        // The sample misjudged the data: e is formed, and the exact path runs on it, as
        // SelectTopK's own sample, on the same values, would fail the same way.
        SelectTopK(e, k, indices, values, TopKStrategy::Histogram);
        return;
    }
    compensation.Apply(e, 0, n);
    SelectTopK(e, k, indices, values);
}

void
SelectTopK(std::span<const float> x, size_t k, std::vector<uint32_t>& indices)
{
    std::vector<float> values;
    SelectTopK(x, k, indices, values);
}

} // namespace fedran::internal
