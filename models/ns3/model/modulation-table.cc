#include "models/ns3/model/modulation-table.h"

namespace ns3
{

ModulationTable
ModulationTable::Default()
{
    return ModulationTable({{"QPSK", 9.0, 2},
                            {"16-QAM", 15.5, 4},
                            {"32-QAM", 18.5, 5},
                            {"64-QAM", 21.5, 6},
                            {"128-QAM", 24.5, 7},
                            {"256-QAM", 27.5, 8},
                            {"512-QAM", 30.5, 9},
                            {"1024-QAM", 33.5, 10},
                            {"2048-QAM", 36.5, 11},
                            {"4096-QAM", 39.5, 12}});
}

ModulationTable::ModulationTable(std::vector<Modulation> steps)
    : m_steps(std::move(steps))
{
}

int
ModulationTable::Select(double snrDb) const
{
    int best = -1;
    for (size_t i = 0; i < m_steps.size() && m_steps[i].snrDb <= snrDb; ++i)
    {
        best = static_cast<int>(i);
    }
    return best;
}

} // namespace ns3
