#ifndef FEDRAN_MODELS_NS3_MODEL_CLIENT_AVAILABILITY_H
#define FEDRAN_MODELS_NS3_MODEL_CLIENT_AVAILABILITY_H

#include <ns3/callback.h>
#include <ns3/event-id.h>
#include <ns3/nstime.h>
#include <ns3/object.h>
#include <ns3/random-variable-stream.h>

namespace ns3
{

/**
 * When one FL client can take part: an on/off process and a per-round dropout chance.
 *
 * The on/off process (MeanOnTime > 0) alternates exponentially distributed on and off
 * periods, starting in its stationary distribution (on with probability
 * MeanOnTime / (MeanOnTime + MeanOffTime)), so that a run does not begin with every client
 * freshly on. The client application reacts to the switches; this object only decides when
 * they happen, from its own RNG streams.
 */
class ClientAvailability : public Object
{
  public:
    static TypeId GetTypeId();

    ClientAvailability();

    int64_t AssignStreams(int64_t stream);

    bool HasOnOffProcess() const
    {
        return m_meanOn.IsStrictlyPositive();
    }

    /// Whether the client is on at time 0 (drawn on the first call; always on without the
    /// on/off process).
    bool InitiallyOn();

    /// Runs the on/off process from now: `turnedOff` / `turnedOn` are called at each switch.
    void Start(Callback<void> turnedOff, Callback<void> turnedOn);
    void Stop();

    /**
     * For a client that has just received a round's model: whether it drops out of the round
     * (probability DropoutProbability), and if so after which fraction of its local training,
     * uniform in [0, 1). Returns a negative number when it stays.
     */
    double DrawDropout();

  protected:
    void DoDispose() override;

  private:
    void Switch();

    // Attributes
    double m_dropout;
    Time m_meanOn;
    Time m_meanOff;

    Ptr<UniformRandomVariable> m_uniform;
    Ptr<ExponentialRandomVariable> m_sojourn;
    bool m_on;
    bool m_initialDrawn;
    EventId m_switchEvent;
    Callback<void> m_turnedOff;
    Callback<void> m_turnedOn;
};

} // namespace ns3

#endif
