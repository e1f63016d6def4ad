#ifndef FEDRAN_MODELS_NS3_MODEL_RAIN_FADE_H
#define FEDRAN_MODELS_NS3_MODEL_RAIN_FADE_H

#include <ns3/nstime.h>
#include <ns3/object.h>
#include <ns3/random-variable-stream.h>

namespace ns3
{

/**
 * Rain attenuation on one hop, in dB.
 *
 * Rain comes and goes as an on/off Markov chain: dry and rainy spells last exponential times
 * of means MeanDry and MeanRain (MeanDry 0: it always rains). During rain the attenuation
 * follows Maseng and Bakken (IEEE Trans. Commun. 1981): A = Median * exp(Sigma * X(t)), log-
 * normal, where X is a standard Ornstein-Uhlenbeck process with correlation exp(-|dt| /
 * CorrelationTime), advanced exactly (X' = rho X + sqrt(1 - rho^2) N(0,1)). Each spell starts
 * from a fresh stationary draw. Draws come from three streams (AssignStreams).
 */
class RainFade : public Object
{
  public:
    static TypeId GetTypeId();

    /// Advances the process by `dt` (0 for the first value) and returns the attenuation.
    double Advance(Time dt);

    bool IsRaining() const
    {
        return m_raining;
    }

    int64_t AssignStreams(int64_t stream);

  protected:
    void DoDispose() override;

  private:
    void StartSpell(bool raining);

    double m_medianDb = 0.0;
    double m_sigma = 0.0;
    Time m_correlation;
    Time m_meanRain;
    Time m_meanDry;

    Ptr<NormalRandomVariable> m_normal = CreateObject<NormalRandomVariable>();
    Ptr<ExponentialRandomVariable> m_spell = CreateObject<ExponentialRandomVariable>();
    Ptr<UniformRandomVariable> m_uniform = CreateObject<UniformRandomVariable>();

    bool m_started = false;
    bool m_raining = false;
    double m_x = 0.0;          ///< the Ornstein-Uhlenbeck state
    double m_spellLeftS = 0.0; ///< time left in the current spell
};

} // namespace ns3

#endif
