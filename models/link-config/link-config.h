#ifndef FEDRAN_MODELS_LINK_CONFIG_LINK_CONFIG_H
#define FEDRAN_MODELS_LINK_CONFIG_LINK_CONFIG_H

// What a scenario says about one backhaul link (clients.groups[].backhaul). The scenario
// reader (simulator/scenario) fills it; the link models (models/ns3/model) read it and throw
// ScenarioError naming config.path for what the schema cannot check. No ns-3 here, so the
// scenario reader builds without ns-3.

#include "models/link-config/scenario-error.h"
#include "models/link-config/units.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace fedran
{

/// Background traffic on one backhaul link (backhaul.background; docs/links.md).
struct BackgroundConfig
{
    double load = 0.0;           ///< long-run mean wire rate per direction / nominal capacity
    bool onOff = false;          ///< pattern "on_off" (else "constant")
    double meanOnS = 1.0;        ///< on_off: mean on period
    double meanOffS = 1.0;       ///< on_off: mean off period
    bool uplink = true;          ///< client to router
    bool downlink = true;        ///< router to client
    uint32_t packetBytes = 1400; ///< UDP payload

    /// The sending rate during on periods (all the time for "constant"), as a fraction of
    /// the capacity: load / duty cycle.
    double PeakFraction() const
    {
        return onOff ? load * (meanOnS + meanOffS) / meanOnS : load;
    }
};

struct LinkConfig
{
    std::string type;         ///< a model registered in MakeBackhaulLink ("p2p", "lte", ...)
    uint64_t rateBps = 0;     ///< p2p: from strings such as "50Mbps"
    double delayS = 0.0;      ///< p2p, trace: one-way propagation delay, from strings such as "5ms"
    double loss = 0.0;        ///< p2p, trace: packet loss probability in [0, 1)
    uint64_t rateDownBps = 0; ///< p2p: rate_down (0: absent, the downlink runs at rateBps)
    double delayDownS = -1.0; ///< p2p: delay_down (< 0: absent, the downlink has delayS)

    uint64_t DownRateBps() const
    {
        return rateDownBps > 0 ? rateDownBps : rateBps;
    }

    double DownDelayS() const
    {
        return delayDownS >= 0 ? delayDownS : delayS;
    }
    /// The whole validated backhaul object: link models read their own keys from it.
    nlohmann::json spec = nlohmann::json::object();
    std::string path; ///< JSON path of the object ("clients.groups.0.backhaul"), for errors
    std::optional<BackgroundConfig> background; ///< none without a "background" key
};

} // namespace fedran

#endif
