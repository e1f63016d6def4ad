#ifndef FEDRAN_MODELS_NS3_MODEL_LTE_PARAMS_H
#define FEDRAN_MODELS_NS3_MODEL_LTE_PARAMS_H

// An lte link group's radio settings (clients.groups[].backhaul with type "lte"), read once
// per group by LteLink.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// The group's radio settings, with the schema's defaults for keys a hand-made config omits.
struct LteParams
{
    std::vector<double> distancesM;
    uint32_t uesPerEnb = 0; ///< 0: one cell for the whole group
    uint32_t bandwidthRb = 25;
    uint32_t earfcn = 100;
    double enbTxPowerDbm = 43.0;
    double ueTxPowerDbm = 23.0;
    std::string scheduler = "pf";
    std::string pathloss = "log_distance";
    double exponent = 3.0;
    double referenceDistanceM = 100.0;

    explicit LteParams(const nlohmann::json& spec)
    {
        const nlohmann::json distance = spec.value("distance_m", nlohmann::json(500.0));
        if (distance.is_array())
        {
            distancesM = distance.get<std::vector<double>>();
        }
        else
        {
            distancesM = {distance.get<double>()};
        }
        uesPerEnb = spec.value("ues_per_enb", 0u);
        bandwidthRb = spec.value("bandwidth_rb", bandwidthRb);
        earfcn = spec.value("earfcn", earfcn);
        enbTxPowerDbm = spec.value("enb_tx_power_dbm", enbTxPowerDbm);
        ueTxPowerDbm = spec.value("ue_tx_power_dbm", ueTxPowerDbm);
        scheduler = spec.value("scheduler", scheduler);
        pathloss = spec.value("pathloss", pathloss);
        exponent = spec.value("pathloss_exponent", exponent);
        referenceDistanceM = spec.value("reference_distance_m", referenceDistanceM);
    }

    uint32_t UlEarfcn() const
    {
        return earfcn + 18000; // FDD: uplink EARFCN = downlink + 18000 (3GPP TS 36.101)
    }
};

} // namespace ns3

#endif
