#include "models/fl/site-faults.h"

#include "models/fl/federated-task.h"
#include "models/fl/update-frame.h"

namespace fedran
{

SiteFaults::SiteFaults(uint64_t seed,
                       uint32_t client,
                       double corruptUplink,
                       double crashProbability)
    : m_corruptUplink(corruptUplink)
    , m_crashProbability(crashProbability)
    , m_corruptRng(seed, kClientCorruptStreamBase + client)
    , m_crashRng(seed, kClientCrashStreamBase + client)
{
}

bool
SiteFaults::MaybeDamage(std::vector<uint8_t>& frame)
{
    if (m_corruptUplink <= 0.0 || m_corruptRng.Uniform() >= m_corruptUplink)
    {
        return false;
    }
    const size_t payload = frame.size() - kFrameHeaderSize;
    if (payload == 0)
    {
        return false; // a skip: no payload to damage (damaging the header would cut the stream)
    }
    // One byte changed: a burst of at most 8 bits, which CRC-32 always detects.
    const size_t at = kFrameHeaderSize + m_corruptRng.UniformInt(payload);
    frame[at] ^= static_cast<uint8_t>(1 + m_corruptRng.UniformInt(255));
    return true;
}

std::optional<double>
SiteFaults::DrawCrash()
{
    if (m_crashProbability <= 0.0 || m_crashRng.Uniform() >= m_crashProbability)
    {
        return std::nullopt;
    }
    return m_crashRng.Uniform();
}

} // namespace fedran
