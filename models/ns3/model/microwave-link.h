#ifndef FEDRAN_MODELS_NS3_MODEL_MICROWAVE_LINK_H
#define FEDRAN_MODELS_NS3_MODEL_MICROWAVE_LINK_H

#include "models/ns3/model/backhaul-link.h"
#include "models/ns3/model/microwave-radio.h"

namespace ns3
{

/**
 * "microwave": a point-to-point radio hop with adaptive modulation and coding (MicrowaveRadio
 * driving a VariableRateLink). Keys absent from the scenario come from the preset
 * ("none", "e_band", "6_ghz"; docs/links.md); the clear-sky SNR is snr_db or the link budget.
 */
class MicrowaveLink : public BackhaulLink
{
  public:
    void Check(const fedran::LinkConfig& config) const override;
    std::unique_ptr<InstalledLink> Install(Ptr<Node> client,
                                           Ptr<Node> router,
                                           const fedran::LinkConfig& config) override;
    int64_t AssignStreams(int64_t stream) override;

    /// The hop's settings: preset, then the scenario's keys. Throws fedran::ScenarioError.
    static MicrowaveParams Resolve(const fedran::LinkConfig& config);

  private:
    std::vector<Ptr<MicrowaveRadio>> m_radios;
    std::vector<Ptr<VariableRateLink>> m_links;
};

} // namespace ns3

#endif
