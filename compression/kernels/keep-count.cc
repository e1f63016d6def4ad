#include "compression/internal/keep-count.h"

#include <algorithm>
#include <cmath>

namespace fedran::internal
{

KeepCount
KeepCount::FromArgs(CodecArgs& args, double defaultRatio)
{
    const nlohmann::json* ratio = args.Take("ratio");
    const nlohmann::json* k = args.Take("k");
    if (ratio != nullptr && k != nullptr)
    {
        args.Fail("k", "give either ratio or k, not both");
    }
    if (k != nullptr)
    {
        // is_number_integer() is also true for unsigned JSON numbers; 5.0 is not an integer.
        if (!k->is_number_integer() ||
            (k->is_number_unsigned() ? k->get<uint64_t>() < 1 : k->get<int64_t>() < 1))
        {
            args.Fail("k", "must be an integer >= 1, got " + k->dump());
        }
        return KeepCount(0.0, k->get<uint64_t>());
    }
    if (ratio == nullptr)
    {
        return KeepCount(defaultRatio, 0);
    }
    if (!ratio->is_number() || !(ratio->get<double>() > 0.0 && ratio->get<double>() <= 1.0))
    {
        args.Fail("ratio", "must be a number in (0, 1], got " + ratio->dump());
    }
    return KeepCount(ratio->get<double>(), 0);
}

uint64_t
KeepCount::For(uint64_t size) const
{
    if (m_k != 0)
    {
        return std::min(m_k, size);
    }
    const auto scaled = static_cast<uint64_t>(std::floor(m_ratio * static_cast<double>(size)));
    return std::min(std::max<uint64_t>(1, scaled), size);
}

} // namespace fedran::internal
