#ifndef FEDRAN_MODELS_NS3_MODEL_VARIABLE_RATE_LINK_H
#define FEDRAN_MODELS_NS3_MODEL_VARIABLE_RATE_LINK_H

#include <ns3/error-model.h>
#include <ns3/net-device-container.h>
#include <ns3/nstime.h>
#include <ns3/object.h>
#include <ns3/traced-value.h>

#include <cstdint>

namespace ns3
{

/**
 * The two PointToPointNetDevices of a link whose rate, delay and errors change during the run
 * (a microwave hop changing modulation, a replayed trace): both directions together, or each
 * on its own (a trace per direction).
 *
 * An ns-3 device cannot transmit at 0 bit/s, so an outage (rate 0) keeps the devices' last
 * rate and makes every packet a receive error: nothing gets through, and TCP backs off as it
 * would over a dead radio. A packet already being serialised when the rate changes finishes
 * at the old rate.
 */
class VariableRateLink : public Object
{
  public:
    static TypeId GetTypeId();

    /// The two directions: 0 client to router (device 0 sends), 1 router to client.
    enum Way : uint32_t
    {
        UP = 0,
        DOWN = 1
    };

    /// Takes over `devices` (PointToPointNetDevices of one channel): installs the error models.
    void Attach(const NetDeviceContainer& devices);

    /// New capacity in bits/s, both directions; 0 means out.
    void SetRate(uint64_t bps);
    /// Independent bit errors at this rate (packet error 1 - (1 - ber)^bits), both directions.
    void SetBitErrorRate(double ber);
    /// Independent packet losses at this probability, both directions.
    void SetPacketLoss(double loss);
    /// Both directions' propagation delay.
    void SetDelay(Time delay);

    /// The same for one direction (an asymmetric link: a trace per direction).
    void SetRate(Way way, uint64_t bps);
    void SetPacketLoss(Way way, double loss);
    /// Needs an AsymmetricPointToPointChannel when the directions' delays differ.
    void SetDelay(Way way, Time delay);

    /// The uplink's capacity (as before directions existed); GetCapacity(DOWN) the downlink's.
    uint64_t GetCapacity(Way way = UP) const
    {
        return way == UP ? m_capacity.Get() : m_capacityDown.Get();
    }

    /// `way`'s one-way propagation delay now, in seconds: what SetDelay last set.
    double DelayS(Way way) const
    {
        return m_delay[way].GetSeconds();
    }

    /// The probability that `way` loses a packet of `wireBytes` now: the bit error rate or
    /// packet loss last set, and every packet while the direction is out.
    double LossOf(Way way, uint32_t wireBytes) const;

    int64_t AssignStreams(int64_t stream);

  protected:
    void DoDispose() override;

  private:
    void ApplyErrors(Way way);

    NetDeviceContainer m_devices;
    /// m_errors[w]: the error model on the receiver of direction w (device 1 - w).
    Ptr<RateErrorModel> m_errors[2];
    TracedValue<uint64_t> m_capacity;         ///< uplink bits/s now, 0 while out
    TracedValue<uint64_t> m_capacityDown = 0; ///< downlink bits/s now, 0 while out
    RateErrorModel::ErrorUnit m_unit[2] = {RateErrorModel::ERROR_UNIT_PACKET,
                                           RateErrorModel::ERROR_UNIT_PACKET};
    double m_errorRate[2] = {0.0, 0.0};
    Time m_delay[2]; ///< per way, as the channel has it
};

/// The probability that a RateErrorModel of `unit` and `rate` drops a packet of `wireBytes`
/// (bits and bytes fail independently): what the flow transport takes as a hop's loss.
double ErrorModelLoss(RateErrorModel::ErrorUnit unit, double rate, uint32_t wireBytes);

} // namespace ns3

#endif
