#ifndef FEDRAN_MODELS_NS3_MODEL_BACKGROUND_SOURCE_H
#define FEDRAN_MODELS_NS3_MODEL_BACKGROUND_SOURCE_H

#include <ns3/address.h>
#include <ns3/application.h>
#include <ns3/event-id.h>
#include <ns3/nstime.h>
#include <ns3/random-variable-stream.h>
#include <ns3/socket.h>
#include <ns3/tag.h>
#include <ns3/traced-callback.h>

namespace ns3
{

/**
 * Marks a background packet, so that the FL byte counters (rounds.csv wire columns) can
 * leave it out while pcap files and links.csv still see it. A packet tag: it rides with the
 * packet through the IP stack and the queues to the devices' trace sources.
 */
class BackgroundTag : public Tag
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer buffer) const override;
    void Deserialize(TagBuffer buffer) override;
    void Print(std::ostream& os) const override;

    /// Whether `packet` was sent by a BackgroundSource.
    static bool IsBackground(Ptr<const Packet> packet);
};

/**
 * Background traffic: UDP packets of PacketSize bytes every Interval, to Remote.
 *
 * With MeanOffTime > 0 the source alternates exponentially distributed on and off periods
 * (means MeanOnTime and MeanOffTime) and sends only while on. It starts in the process's
 * stationary distribution (on with probability MeanOnTime / (MeanOnTime + MeanOffTime)), and
 * the packet clock pauses while off: over any stretch the source sends one packet per
 * Interval of on time, so the long-run rate is exact, not rounded up per on period.
 */
class BackgroundSource : public Application
{
  public:
    static TypeId GetTypeId();

    BackgroundSource();

    /// Fixes the on/off draws (3 streams); returns the number used.
    int64_t AssignStreams(int64_t stream);

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;

    void TurnOn();
    void TurnOff();
    void SendPacket();

    bool HasOnOffProcess() const
    {
        return m_meanOff.IsStrictlyPositive();
    }

    // Attributes
    Address m_remote;
    uint32_t m_packetSize;
    Time m_interval;
    Time m_meanOn;
    Time m_meanOff;

    Ptr<Socket> m_socket;
    Ptr<UniformRandomVariable> m_uniform; ///< the initial state
    Ptr<ExponentialRandomVariable> m_onTime;
    Ptr<ExponentialRandomVariable> m_offTime;
    Time m_untilNextPacket; ///< of the packet clock, frozen while off
    EventId m_sendEvent;
    EventId m_switchEvent;
    TracedCallback<Ptr<const Packet>> m_txTrace;
};

} // namespace ns3

#endif
