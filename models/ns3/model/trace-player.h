#ifndef FEDRAN_MODELS_NS3_MODEL_TRACE_PLAYER_H
#define FEDRAN_MODELS_NS3_MODEL_TRACE_PLAYER_H

#include "models/ns3/model/trace-file.h"
#include "models/ns3/model/variable-rate-link.h"

#include <ns3/event-id.h>
#include <ns3/object.h>

namespace ns3
{

/// Replays a LinkTrace on a VariableRateLink, looping: one event per trace step.
class TracePlayer : public Object
{
  public:
    static TypeId GetTypeId();

    /// Applies step 0 now and schedules the rest; rows without delay or loss use the defaults.
    /// Both directions of the link follow the trace.
    void Start(const LinkTrace& trace,
               Ptr<VariableRateLink> link,
               double defaultDelayS,
               double defaultLoss);
    /// The same for one direction of the link only.
    void Start(const LinkTrace& trace,
               Ptr<VariableRateLink> link,
               double defaultDelayS,
               double defaultLoss,
               VariableRateLink::Way way);

  protected:
    void DoDispose() override;

  private:
    void Begin(const LinkTrace& trace,
               Ptr<VariableRateLink> link,
               double defaultDelayS,
               double defaultLoss);
    void Apply(size_t index);

    LinkTrace m_trace;
    Ptr<VariableRateLink> m_link;
    double m_defaultDelayS = 0.0;
    double m_defaultLoss = 0.0;
    bool m_both = true;
    VariableRateLink::Way m_way = VariableRateLink::UP;
    Time m_loopStart;
    EventId m_next;
};

} // namespace ns3

#endif
