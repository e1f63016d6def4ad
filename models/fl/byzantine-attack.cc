#include "models/fl/byzantine-attack.h"

#include "compression/portable-math.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fedran
{

namespace
{

/// The standard normal quantile, by bisection on the CDF (pmath::NormalCdf, not libm's erfc,
/// so that it is the same on every machine).
double
NormalQuantile(double p)
{
    double lo = -40.0;
    double hi = 40.0;
    for (int i = 0; i < 200 && hi - lo > 1e-15; ++i)
    {
        const double mid = (lo + hi) / 2.0;
        if (pmath::NormalCdf(mid) < p)
        {
            lo = mid;
        }
        else
        {
            hi = mid;
        }
    }
    return (lo + hi) / 2.0;
}

} // namespace

double
AlieZ(uint32_t n, uint32_t f)
{
    const int64_t s = int64_t(n) / 2 + 1 - int64_t(f);
    if (n == 0 || s <= 0)
    {
        return 0.0;
    }
    const double p = double(int64_t(n) - s) / double(n);
    return p <= 0.5 ? 0.0 : NormalQuantile(p);
}

void
CorruptUpdate(const AttackConfig& attack,
              std::span<float> update,
              const HonestStatistics* honest,
              Rng& rng)
{
    const std::string& type = attack.type;
    if (type == "sign_flip" || type == "scaled")
    {
        const float factor = static_cast<float>(type == "sign_flip" ? -attack.scale : attack.scale);
        for (float& v : update)
        {
            v *= factor;
        }
    }
    else if (type == "gaussian")
    {
        for (float& v : update)
        {
            v = static_cast<float>(attack.sigma * rng.Normal());
        }
    }
    else if (type == "random_sign")
    {
        uint64_t bits = 0;
        for (size_t i = 0; i < update.size(); ++i)
        {
            if (i % 64 == 0)
            {
                bits = rng.NextU64();
            }
            const float magnitude = std::abs(update[i]);
            update[i] = (bits >> (i % 64)) & 1 ? -magnitude : magnitude;
        }
    }
    else if (type == "zero")
    {
        std::fill(update.begin(), update.end(), 0.0f);
    }
    else if (type == "alie" || type == "ipm")
    {
        if (!honest || honest->honest == 0 || honest->mean.size() != update.size())
        {
            std::fill(update.begin(), update.end(), 0.0f);
            return;
        }
        if (type == "alie")
        {
            const double z = attack.z.value_or(AlieZ(honest->selected, honest->attackers));
            for (size_t i = 0; i < update.size(); ++i)
            {
                update[i] = static_cast<float>(honest->mean[i] - z * honest->stddev[i]);
            }
        }
        else
        {
            for (size_t i = 0; i < update.size(); ++i)
            {
                update[i] = static_cast<float>(-attack.epsilon * honest->mean[i]);
            }
        }
    }
    else if (type != "label_flip")
    {
        throw std::invalid_argument("unknown attack type \"" + type + "\"");
    }
}

} // namespace fedran
