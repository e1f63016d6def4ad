#ifndef FEDRAN_MODELS_NS3_MODEL_LTE_LINK_H
#define FEDRAN_MODELS_NS3_MODEL_LTE_LINK_H

#include "models/ns3/model/backhaul-link.h"
#include "models/ns3/model/cell-pathloss-model.h"

#include <ns3/lte-helper.h>
#include <ns3/point-to-point-epc-helper.h>

#include <map>
#include <memory>

namespace ns3
{

/**
 * "lte": the clients are UEs of ns-3's LTE model (LteHelper, PointToPointEpcHelper). Each
 * client group gets its own cells (eNBs, `ues_per_enb` UEs each) with the group's radio
 * settings and path loss; every UE stands `distance_m` from its eNB. Each eNB reaches the
 * SGW over its own S1-U point-to-point link (`rate`, `delay`); the PGW reaches the router over
 * a 10 Gbit/s link without delay. All lte groups share one EPC (one PGW: UEs are 7.0.0.0/8).
 * Choices and keys: docs/links.md.
 */
class LteLink : public BackhaulLink
{
  public:
    void Check(const fedran::LinkConfig& config) const override;
    std::unique_ptr<InstalledLink> Install(Ptr<Node> client,
                                           Ptr<Node> router,
                                           const fedran::LinkConfig& config) override;
    int64_t AssignStreams(int64_t stream) override;

    class PgwTaps; ///< the PGW's byte counts, dispatched by UE address

  private:
    /// The LTE network, built at the first lte client: EPC, channels, PGW -- router link.
    void BuildNetwork(Ptr<Node> router);
    /// A new cell for `config`'s group; returns its eNB device.
    Ptr<NetDevice> AddCell(const fedran::LinkConfig& config);

    struct Group
    {
        uint32_t ues = 0;                 ///< UEs installed so far
        std::vector<Ptr<NetDevice>> enbs; ///< its cells, in order
    };

    Ptr<LteHelper> m_lte;
    Ptr<PointToPointEpcHelper> m_epc;
    Ptr<CellPathlossModel> m_downlinkLoss;
    Ptr<CellPathlossModel> m_uplinkLoss;
    std::map<std::string, Group> m_groups; ///< by the group's JSON path
    uint32_t m_cells = 0;
    NetDeviceContainer m_devices;       ///< every eNB and UE device, for AssignStreams
    std::shared_ptr<PgwTaps> m_pgwTaps; ///< shared by every UE's InstalledLink
};

} // namespace ns3

#endif
