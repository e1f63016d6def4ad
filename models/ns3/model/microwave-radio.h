#ifndef FEDRAN_MODELS_NS3_MODEL_MICROWAVE_RADIO_H
#define FEDRAN_MODELS_NS3_MODEL_MICROWAVE_RADIO_H

#include "models/ns3/model/modulation-table.h"
#include "models/ns3/model/rain-fade.h"
#include "models/ns3/model/variable-rate-link.h"

#include <ns3/event-id.h>
#include <ns3/nstime.h>
#include <ns3/object.h>
#include <ns3/traced-value.h>

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/// A microwave hop's settings after presets and overrides (see microwave-link.cc).
struct MicrowaveParams
{
    double bandwidthHz = 56e6;
    double efficiency = 0.75; ///< bit/s per Hz per bit of modulation
    double clearSkySnrDb = 40.0;
    double delayS = 0.0;
    std::vector<Modulation> modulations = {};
    double berAtThreshold = 1e-6;
    double berDecadeDb = 0.5;
    std::string fade = "none";                     ///< "none" | "rain" | "script"
    double medianDb = 0.0;                         ///< rain
    double sigma = 0.0;                            ///< rain
    double correlationS = 60.0;                    ///< rain
    double meanRainS = 600.0;                      ///< rain
    double meanDryS = 1800.0;                      ///< rain
    double stepS = 1.0;                            ///< rain: update period
    std::vector<std::pair<double, double>> points; ///< script: (time s, dB)
};

/**
 * Adaptive modulation on one hop. The SNR is the clear-sky SNR minus the current fade; the
 * radio switches (both directions, no hysteresis) to the highest modulation whose threshold
 * the SNR reaches, so the devices' rate is bandwidth x bits x efficiency. Bit errors follow
 * the margin m above that threshold: BER = BerAtThreshold * 10^(-m / BerDecade), i.e. the
 * waterfall of a coded modem. Below the lowest threshold the hop is out.
 *
 * A "rain" fade is advanced every step_s; a "script" fade changes at its points' times.
 */
class MicrowaveRadio : public Object
{
  public:
    static TypeId GetTypeId();

    /// Takes control of `link`, sets its clear-sky state and schedules the fade.
    void Start(const MicrowaveParams& params, Ptr<VariableRateLink> link);

    double GetSnrDb() const
    {
        return m_snrDb;
    }

    /// Index into the modulation table; -1 while out.
    int32_t GetModulation() const
    {
        return m_modulation;
    }

    /// Capacity of table entry `index`, in bits/s.
    uint64_t RateOf(int index) const;

    /// Capacity without fading, in bits/s (0 if even clear sky is below every threshold).
    uint64_t GetClearSkyRate() const;

    int64_t AssignStreams(int64_t stream);

  protected:
    void DoDispose() override;

  private:
    void RainStep();
    void SetFade(double db);

    MicrowaveParams m_params;
    ModulationTable m_table = ModulationTable::Default();
    Ptr<VariableRateLink> m_link;
    Ptr<RainFade> m_rain = CreateObject<RainFade>();
    EventId m_event;
    TracedValue<double> m_snrDb;
    TracedValue<int32_t> m_modulation;
};

} // namespace ns3

#endif
