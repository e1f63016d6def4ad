#include "models/fl/local-dp.h"

#include "models/fl/adaptive-clip.h"
#include "models/fl/federated-task.h"

#include <algorithm>

namespace fedran
{

uint64_t
LocalDpStream(uint32_t client)
{
    return kClientDpNoiseStreamBase + client;
}

double
ClipAndNoise(std::span<float> update, double clip, double noiseStd, Rng& noise)
{
    const double norm = UpdateNorm(update);
    const double factor = norm > clip ? clip / norm : 1.0;
    for (float& v : update)
    {
        const double clipped = factor * double(v);
        v = static_cast<float>(noiseStd > 0.0 ? clipped + noiseStd * noise.Normal() : clipped);
    }
    return factor;
}

void
SiteSelections::Selected(uint32_t client)
{
    if (client >= m_count.size())
    {
        m_count.resize(client + 1, 0);
    }
    m_max = std::max(m_max, ++m_count[client]);
}

} // namespace fedran
