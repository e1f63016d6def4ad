#include "models/fl/energy-model.h"

#include <algorithm>

namespace fedran
{

namespace
{

double
Busy(double seconds)
{
    return std::max(seconds, 0.0);
}

} // namespace

const std::vector<EnergyPreset>&
EnergyPresets()
{
    // Values and sources as docs/energy.md lists them; change both together. A preset is a
    // starting point: explicit keys next to it override its values.
    static const std::vector<EnergyPreset> presets = {
        {"jetson_nano_10w",
         {10.0, 0.0, 0.0, -1.0},
         "NVIDIA Jetson Nano power guide: the 10 W MaxN mode (4 CPU cores at 1479 MHz, GPU at "
         "921.6 MHz); compute only, no radio of its own"},
        {"jetson_nano_5w",
         {5.0, 0.0, 0.0, -1.0},
         "NVIDIA Jetson Nano power guide: the 5 W mode (2 CPU cores at 918 MHz, GPU at 640 "
         "MHz); compute only"},
        {"raspberry_pi_4",
         {5.2, 3.94, 3.94, 2.8},
         "ns3-fl (Ekaireb et al., WNS3 2022) fit for MNIST on a Raspberry Pi 4: about 5.2 W "
         "training, P_tx 3.94 W (also taken for receiving: the fit has one radio power), idle "
         "2.8 W (its cpu-energy-model IdlePowerW)"},
        {"microwave_odu_40w",
         {0.0, 40.0, 40.0, 40.0},
         "a microwave outdoor unit draws tens of watts almost regardless of traffic; 40 W is a "
         "placeholder of that order, not a datasheet value: take the modelled radio's"},
        {"lte_ue",
         {0.0, 3.92, 1.96, 1.06},
         "LTE smartphone radio, Huang et al. (MobiSys 2012) power model P = a_u r_u + a_d r_d "
         "+ b at the paper's median rates (6 Mbit/s up, 13 Mbit/s down), tail power as idle; "
         "coefficients as recalled, check them against the paper before quoting"},
    };
    return presets;
}

const EnergyPreset*
FindEnergyPreset(const std::string& name)
{
    for (const EnergyPreset& preset : EnergyPresets())
    {
        if (preset.name == name)
        {
            return &preset;
        }
    }
    return nullptr;
}

ClientEnergy
ChargeClient(const EnergySpec& spec, const EnergyTimes& times)
{
    ClientEnergy energy;
    energy.computeJ = spec.computeW * (Busy(times.computeS) + Busy(times.encodeS));
    energy.radioJ = spec.txW * Busy(times.uploadS) + spec.rxW * Busy(times.downloadS);
    if (spec.Idle() && times.windowS >= 0.0)
    {
        const double busy = Busy(times.downloadS) + Busy(times.computeS) + Busy(times.encodeS) +
                            Busy(times.uploadS);
        energy.idleJ = spec.idleW * std::max(0.0, times.windowS - busy);
    }
    return energy;
}

} // namespace fedran
