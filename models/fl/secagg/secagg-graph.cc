#include "models/fl/secagg/secagg-graph.h"

#include "compression/rng.h"

#include <algorithm>
#include <set>

namespace fedran::secagg
{

uint32_t
EffectiveShares(uint32_t requested, uint32_t participants)
{
    uint32_t k = requested % 2 == 0 ? requested + 1 : requested;
    return std::min(k, participants);
}

std::map<uint32_t, std::vector<uint32_t>>
CirculantNeighbours(std::vector<uint32_t> participants, uint32_t shares, Rng& rng)
{
    std::sort(participants.begin(), participants.end());
    for (size_t i = participants.size(); i > 1; --i)
    {
        std::swap(participants[i - 1], participants[rng.UniformInt(i)]);
    }
    const size_t n = participants.size();
    std::map<uint32_t, std::vector<uint32_t>> neighbours;
    const size_t half = shares / 2;
    for (size_t i = 0; i < n; ++i)
    {
        std::set<uint32_t> mine;
        if (shares >= n)
        {
            mine.insert(participants.begin(), participants.end());
        }
        else
        {
            for (size_t off = 1; off <= half; ++off)
            {
                mine.insert(participants[(i + off) % n]);
                mine.insert(participants[(i + n - off) % n]);
            }
        }
        mine.erase(participants[i]);
        neighbours[participants[i]] = std::vector<uint32_t>(mine.begin(), mine.end());
    }
    return neighbours;
}

} // namespace fedran::secagg
