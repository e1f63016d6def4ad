#ifndef FEDRAN_MODELS_NS3_MODEL_FLOW_BACKGROUND_H
#define FEDRAN_MODELS_NS3_MODEL_FLOW_BACKGROUND_H

// Background traffic (backhaul.background) in the flow-level model: each source a fixed-rate
// flow on one direction of its link, which the FL flows share what it leaves of; constant, or
// switching on and off after exponential periods as the packet-level BackgroundSource does.

#include "models/flow/fluid-network.h"
#include "models/ns3/model/transport-topology.h"

#include <ns3/ptr.h>
#include <ns3/random-variable-stream.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace ns3
{

class FlowBackground
{
  public:
    /// Sources become fixed flows of `fluid`; `changed` runs after each switch (the owner
    /// recomputes the rates).
    FlowBackground(fedran::FluidNetwork& fluid, std::function<void()> changed);

    /// Adds `link`'s sources, if it has background load, on its fluid links `uplink` and
    /// `downlink` (which must exist).
    void Add(const TransportLink& link,
             fedran::FluidNetwork::LinkId uplink,
             fedran::FluidNetwork::LinkId downlink);
    bool Empty() const
    {
        return m_sources.empty();
    }

    /// Fixes the sources' streams (three each, as BackgroundSource); returns streams used.
    int64_t AssignStreams(int64_t stream);

    /// Switches each source on (or, on/off, on with its duty cycle's probability) now.
    void Start();

  private:
    struct Source
    {
        fedran::FluidNetwork::FlowId flow = 0;
        double rateBps = 0.0;
        double meanOnS = 0.0;
        double meanOffS = 0.0; ///< 0: constant
        Ptr<UniformRandomVariable> uniform;
        Ptr<ExponentialRandomVariable> on;
        Ptr<ExponentialRandomVariable> off;
    };

    void Switch(size_t source, bool on);

    fedran::FluidNetwork& m_fluid;
    std::function<void()> m_changed;
    std::vector<Source> m_sources;
};

} // namespace ns3

#endif
