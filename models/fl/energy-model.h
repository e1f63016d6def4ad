#ifndef FEDRAN_MODELS_FL_ENERGY_MODEL_H
#define FEDRAN_MODELS_FL_ENERGY_MODEL_H

// The energy of a round (docs/energy.md): constant powers charged over the busy times a
// client's clients.csv row records. No ns-3 here, so the formula is tested on its own and
// the trace writer, the scenario reader and the analysis scripts all follow one definition.

#include <string>
#include <vector>

namespace fedran
{

/// clients.groups[].energy: a site's draw in watts while it computes, transmits and
/// receives, and (idleW >= 0) while it waits in between.
struct EnergySpec
{
    double computeW = 0.0;
    double txW = 0.0;
    double rxW = 0.0;
    double idleW = -1.0; ///< < 0: idle power not modelled (energy_idle_j empty)

    bool Idle() const
    {
        return idleW >= 0.0;
    }
};

/// A named set of powers ({"preset": name}); `source` says where the values come from.
struct EnergyPreset
{
    std::string name;
    EnergySpec spec;
    std::string source;
};

/// The shipped presets, in the order docs/energy.md lists them.
const std::vector<EnergyPreset>& EnergyPresets();

/// The preset called `name`, or nullptr.
const EnergyPreset* FindEnergyPreset(const std::string& name);

/// The busy times of one clients.csv row, in simulated seconds (< 0: did not happen).
struct EnergyTimes
{
    double downloadS = -1.0; ///< model sent -> model received
    double computeS = -1.0;  ///< local training
    double encodeS = -1.0;   ///< encoding after it
    double uploadS = -1.0;   ///< upload_start_s -> upload_end_s (the update arrived)
    /// Idle: the window the row covers (the round, start to end) when the update arrived in
    /// it; < 0 otherwise (the site was busy, or gone, until the window closed).
    double windowS = -1.0;
};

/// Joules of one row, by column.
struct ClientEnergy
{
    double computeJ = 0.0; ///< compute_w x (compute_s + encode_s)
    double radioJ = 0.0;   ///< tx_w x upload_s + rx_w x download_s
    double idleJ = 0.0;    ///< idle_w x max(0, window - every busy time)
};

/// The energy model's formula (docs/energy.md): absent times count as 0.
ClientEnergy ChargeClient(const EnergySpec& spec, const EnergyTimes& times);

} // namespace fedran

#endif
