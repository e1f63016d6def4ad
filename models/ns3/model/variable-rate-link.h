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
 * (a microwave hop changing modulation, a replayed trace). Both directions change together.
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

    /// Takes over `devices` (PointToPointNetDevices of one channel): installs the error models.
    void Attach(const NetDeviceContainer& devices);

    /// New capacity in bits/s; 0 means out.
    void SetRate(uint64_t bps);
    /// Independent bit errors at this rate (packet error 1 - (1 - ber)^bits).
    void SetBitErrorRate(double ber);
    /// Independent packet losses at this probability.
    void SetPacketLoss(double loss);
    void SetDelay(Time delay);

    uint64_t GetCapacity() const
    {
        return m_capacity;
    }

    int64_t AssignStreams(int64_t stream);

  protected:
    void DoDispose() override;

  private:
    void ApplyErrors();

    NetDeviceContainer m_devices;
    Ptr<RateErrorModel> m_errors[2];
    TracedValue<uint64_t> m_capacity; ///< bits/s now, 0 while out
    RateErrorModel::ErrorUnit m_unit = RateErrorModel::ERROR_UNIT_PACKET;
    double m_errorRate = 0.0;
};

} // namespace ns3

#endif
