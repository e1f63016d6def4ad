#include "models/fl/adaquantfl-policy.h"

#include <algorithm>
#include <cmath>

namespace fedran::control
{

AdaquantflSchedule::AdaquantflSchedule(uint32_t s0, uint32_t cap)
    : m_s0(std::max(1u, s0))
    , m_cap(std::max(1u, cap))
    , m_level(std::min(m_s0, m_cap))
{
}

uint32_t
AdaquantflSchedule::Next(double loss)
{
    if (!(loss > 0.0) || !std::isfinite(loss))
    {
        return m_level;
    }
    if (!m_f0)
    {
        m_f0 = loss;
    }
    const double level = std::ceil(std::sqrt(*m_f0 / loss) * double(m_s0));
    m_level = uint32_t(std::clamp(level, 1.0, double(m_cap)));
    return m_level;
}

} // namespace fedran::control
