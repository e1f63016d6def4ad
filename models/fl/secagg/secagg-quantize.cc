#include "models/fl/secagg/secagg-quantize.h"

#include "compression/rng.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace fedran::secagg
{

uint64_t
WeightInteger(uint64_t examples, double maxWeight, uint64_t q)
{
    const double w = std::nearbyint(double(examples) / maxWeight * double(q));
    return std::max<uint64_t>(1, static_cast<uint64_t>(w));
}

std::vector<uint64_t>
Quantize(std::span<const float> values, uint64_t weight, double c, uint64_t q, Rng& rng)
{
    std::vector<uint64_t> out;
    out.reserve(values.size() + 1);
    out.push_back(weight);
    const double scale = double(weight) / double(q);
    const double step = double(q) / (2.0 * c);
    for (float v : values)
    {
        const double x = std::clamp(double(v) * scale, -c, c);
        const double level = (x + c) * step;
        const double low = std::floor(level);
        uint64_t r = static_cast<uint64_t>(low);
        if (rng.Uniform() < level - low)
        {
            ++r;
        }
        out.push_back(std::min<uint64_t>(r, q));
    }
    return out;
}

std::vector<float>
Dequantize(std::span<const uint64_t> sum,
           uint32_t contributors,
           double c,
           uint64_t q,
           double denominator)
{
    std::vector<float> mean;
    if (sum.empty())
    {
        return mean;
    }
    const double divisor = denominator > 0.0 ? denominator : double(sum[0]) / double(q);
    const double unit = 2.0 * c / double(q);
    const double offset = double(contributors) * c;
    mean.reserve(sum.size() - 1);
    for (size_t i = 1; i < sum.size(); ++i)
    {
        const double total = double(sum[i]) * unit - offset;
        mean.push_back(static_cast<float>(total / divisor));
    }
    return mean;
}

std::vector<uint32_t>
SharedSupport(uint64_t d, uint64_t k, uint64_t seed)
{
    k = std::min(k, d);
    std::set<uint32_t> chosen;
    Rng rng(seed, 0);
    for (uint64_t j = d - k; j < d; ++j)
    {
        uint64_t v = rng.UniformInt(j + 1);
        if (!chosen.insert(static_cast<uint32_t>(v)).second)
        {
            chosen.insert(static_cast<uint32_t>(j));
        }
    }
    return std::vector<uint32_t>(chosen.begin(), chosen.end());
}

} // namespace fedran::secagg
