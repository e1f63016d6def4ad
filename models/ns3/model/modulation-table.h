#ifndef FEDRAN_MODELS_NS3_MODEL_MODULATION_TABLE_H
#define FEDRAN_MODELS_NS3_MODEL_MODULATION_TABLE_H

#include <string>
#include <vector>

namespace ns3
{

/// One adaptive modulation and coding step of a microwave radio.
struct Modulation
{
    std::string name;
    double snrDb = 0.0; ///< threshold: the SNR at which the target bit error rate is reached
    double bits = 0.0;  ///< bits per symbol
};

/**
 * A radio's modulation table, thresholds increasing. The default is an illustrative ETSI-style
 * table at a 1e-6 bit error rate, about 3 dB per extra bit per symbol (the high-SNR slope of
 * Shannon's bound): QPSK 9 dB up to 4096-QAM 39.5 dB. Real radios publish their own thresholds;
 * scenarios can replace the table.
 */
class ModulationTable
{
  public:
    static ModulationTable Default();

    /// `steps` must be non-empty with strictly increasing thresholds (checked by the caller).
    explicit ModulationTable(std::vector<Modulation> steps);

    /// Index of the highest step whose threshold `snrDb` reaches; -1 below the first.
    int Select(double snrDb) const;

    const Modulation& At(int index) const
    {
        return m_steps.at(index);
    }

    size_t Size() const
    {
        return m_steps.size();
    }

  private:
    std::vector<Modulation> m_steps;
};

} // namespace ns3

#endif
