#include "models/fl/staleness.h"

#include "compression/portable-math.h"

#include <cmath>
#include <stdexcept>

namespace fedran
{

double
StalenessWeight(const StalenessConfig& config, uint32_t staleness)
{
    const double t = staleness;
    switch (config.kind)
    {
        case StalenessKind::Constant:
            return 1.0;
        case StalenessKind::Polynomial:
            return pmath::Pow(1.0 + t, -config.a);
        case StalenessKind::Hinge:
            return t <= config.b ? 1.0 : 1.0 / (config.a * (t - config.b) + 1.0);
    }
    return 1.0;
}

StalenessKind
ParseStalenessKind(const std::string& name)
{
    if (name == "constant")
    {
        return StalenessKind::Constant;
    }
    if (name == "polynomial")
    {
        return StalenessKind::Polynomial;
    }
    if (name == "hinge")
    {
        return StalenessKind::Hinge;
    }
    throw std::invalid_argument("unknown staleness type '" + name + "'");
}

} // namespace fedran
