#ifndef FEDRAN_MODELS_NS3_MODEL_STATED_LINK_H
#define FEDRAN_MODELS_NS3_MODEL_STATED_LINK_H

// A backhaul link that exists only as the numbers a flow-level transport reads: rate, delay
// and loss per direction, no node, device, queue or IP interface. A transport that moves no
// packets through devices never touches them, and at a million sites they would be most of
// the run's memory and set-up time (docs/scale.md).

#include "models/ns3/model/backhaul-link.h"

namespace ns3
{

/// One direction's stated behaviour.
struct StatedDirection
{
    uint64_t rateBps = 0;
    double delayS = 0.0;
    double loss = 0.0; ///< per packet, independent of its size (as a packet-unit error model)
};

/**
 * An InstalledLink without devices. Its probes see no packets (the flow transport counts the
 * bytes itself, TransportLinkCounters), it queues nothing it could report, and outages
 * stop it through the outage listeners alone (there is no interface to bring down).
 */
class StatedInstalledLink : public InstalledLink
{
  public:
    StatedInstalledLink(StatedDirection up, StatedDirection down);

    void ConnectTransmitted(LinkDirection direction, PacketSink sink) const override;
    void ConnectDelivered(LinkDirection direction, PacketSink sink) const override;
    bool ConnectFrames(LinkDirection direction, PacketSink sink) const override;
    std::optional<uint64_t> QueuedBytes(LinkDirection direction) const override;
    uint64_t CapacityBps() const override;
    double SnrDb() const override;
    uint64_t NominalRateBps() const override;
    uint64_t CapacityBpsOf(LinkDirection direction) const override;
    uint64_t NominalRateBpsOf(LinkDirection direction) const override;
    std::optional<double> DelayS(LinkDirection direction) const override;
    std::optional<double> LossOf(LinkDirection direction, uint32_t wireBytes) const override;
    double ReadyS() const override;
    bool RoutesClient() const override;

  private:
    const StatedDirection& Of(LinkDirection direction) const
    {
        return direction == LinkDirection::Uplink ? m_up : m_down;
    }

    StatedDirection m_up;
    StatedDirection m_down;
};

} // namespace ns3

#endif
