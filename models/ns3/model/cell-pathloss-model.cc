#include "models/ns3/model/cell-pathloss-model.h"

#include <limits>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(CellPathlossModel);

TypeId
CellPathlossModel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CellPathlossModel")
                            .SetParent<PropagationLossModel>()
                            .SetGroupName("Fedran")
                            .AddConstructor<CellPathlossModel>();
    return tid;
}

void
CellPathlossModel::AddCell(Ptr<MobilityModel> enb, Ptr<PropagationLossModel> model)
{
    m_cells[enb] = model;
}

double
CellPathlossModel::DoCalcRxPower(double txPowerDbm,
                                 Ptr<MobilityModel> a,
                                 Ptr<MobilityModel> b) const
{
    auto it = m_cells.find(a);
    if (it == m_cells.end())
    {
        it = m_cells.find(b);
    }
    if (it == m_cells.end())
    {
        // Neither end is an eNB (LTE never couples two UEs): no coupling.
        return -std::numeric_limits<double>::infinity();
    }
    return it->second->CalcRxPower(txPowerDbm, a, b);
}

int64_t
CellPathlossModel::DoAssignStreams(int64_t)
{
    return 0; // the cells' models are deterministic (Friis, log-distance)
}

} // namespace ns3
