#ifndef FEDRAN_MODELS_NS3_MODEL_ASYMMETRIC_LINK_H
#define FEDRAN_MODELS_NS3_MODEL_ASYMMETRIC_LINK_H

#include <ns3/net-device-container.h>
#include <ns3/node.h>
#include <ns3/nstime.h>
#include <ns3/point-to-point-channel.h>
#include <ns3/point-to-point-net-device.h>

#include <cstdint>

namespace ns3
{

/**
 * A point-to-point channel whose two directions have their own propagation delay: "Delay"
 * from the first attached device to the second (the uplink, client to router), "DelayDown"
 * back. ns-3's PointToPointChannel has one delay for both.
 */
class AsymmetricPointToPointChannel : public PointToPointChannel
{
  public:
    static TypeId GetTypeId();

    bool TransmitStart(Ptr<const Packet> p, Ptr<PointToPointNetDevice> src, Time txTime) override;

  private:
    Time m_delayDown;
};

/// The rates and delays of a point-to-point link, each direction its own.
struct PointToPointRates
{
    uint64_t upBps = 0;   ///< client to router
    uint64_t downBps = 0; ///< router to client
    Time upDelay;
    Time downDelay;
    /// An AsymmetricPointToPointChannel even if the delays are equal now (they will change).
    bool delayPerDirection = false;
};

/**
 * Installs a point-to-point link between `client` (device 0) and `router` (device 1), as
 * PointToPointHelper does. With equal delays (and not delayPerDirection) it is
 * PointToPointHelper's own link (a symmetric
 * link is built exactly as before); with different delays the channel is an
 * AsymmetricPointToPointChannel. Each device sends at its direction's rate.
 */
NetDeviceContainer InstallPointToPoint(Ptr<Node> client,
                                       Ptr<Node> router,
                                       const PointToPointRates& rates);

} // namespace ns3

#endif
