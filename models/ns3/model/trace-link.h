#ifndef FEDRAN_MODELS_NS3_MODEL_TRACE_LINK_H
#define FEDRAN_MODELS_NS3_MODEL_TRACE_LINK_H

#include "models/ns3/model/backhaul-link.h"
#include "models/ns3/model/trace-player.h"

#include <map>
#include <optional>

namespace ns3
{

/**
 * "trace": a point-to-point link whose rate (and optionally delay and loss) is replayed from a
 * CSV or Mahimahi file, looped (TracePlayer on a VariableRateLink): the same in both directions,
 * or each direction its own (a downlink file, or a CSV file's downlink columns), each looping
 * on its own period. A step of rate 0 is an outage.
 */
class TraceLink : public BackhaulLink
{
  public:
    void Check(const fedran::LinkConfig& config) const override;
    std::unique_ptr<InstalledLink> Install(Ptr<Node> client,
                                           Ptr<Node> router,
                                           const fedran::LinkConfig& config) override;
    int64_t AssignStreams(int64_t stream) override;

  private:
    struct Traces
    {
        LinkTrace up;                  ///< the uplink's, and the downlink's without `down`
        std::optional<LinkTrace> down; ///< the downlink's own
    };

    /// The parsed traces (read once per file); throws fedran::ScenarioError naming the key.
    const Traces& Load(const fedran::LinkConfig& config) const;

    mutable std::map<std::string, Traces> m_traces;
    std::vector<Ptr<VariableRateLink>> m_links;
    std::vector<Ptr<TracePlayer>> m_players;
};

} // namespace ns3

#endif
