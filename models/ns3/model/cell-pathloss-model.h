#ifndef FEDRAN_MODELS_NS3_MODEL_CELL_PATHLOSS_MODEL_H
#define FEDRAN_MODELS_NS3_MODEL_CELL_PATHLOSS_MODEL_H

#include <ns3/mobility-model.h>
#include <ns3/propagation-loss-model.h>

#include <map>

namespace ns3
{

/**
 * The LTE channel's propagation loss when every cell has its own: each eNB registers the model
 * of its cell, and a transmission between an eNB and any node takes that eNB's model. ns-3's
 * LteHelper gives one loss model to the whole channel; this lets each client group (one or
 * more cells) choose its own path loss without a second channel, EPC or IMSI space.
 */
class CellPathlossModel : public PropagationLossModel
{
  public:
    static TypeId GetTypeId();

    /// Transmissions to or from `enb` lose what `model` says.
    void AddCell(Ptr<MobilityModel> enb, Ptr<PropagationLossModel> model);

  private:
    double DoCalcRxPower(double txPowerDbm,
                         Ptr<MobilityModel> a,
                         Ptr<MobilityModel> b) const override;
    int64_t DoAssignStreams(int64_t stream) override;

    std::map<Ptr<MobilityModel>, Ptr<PropagationLossModel>> m_cells;
};

} // namespace ns3

#endif
