// backhaul.background: the background traffic of one link, with the check the schema can't
// express (an on/off source must not need more than the link's capacity while on).

#include "simulator/scenario/config-readers.h"

#include <sstream>

namespace fedran
{

std::optional<BackgroundConfig>
ReadBackground(const nlohmann::json& backhaul,
               const std::string& path,
               std::vector<std::string>& errors)
{
    if (!backhaul.contains("background"))
    {
        return std::nullopt;
    }
    const nlohmann::json& spec = backhaul.at("background");
    BackgroundConfig config;
    config.load = spec.at("load").get<double>();
    config.onOff = spec.at("pattern").get<std::string>() == "on_off";
    config.meanOnS = spec.at("mean_on_s").get<double>();
    config.meanOffS = spec.at("mean_off_s").get<double>();
    const std::string direction = spec.at("direction").get<std::string>();
    config.uplink = direction != "downlink";
    config.downlink = direction != "uplink";
    config.packetBytes = spec.at("packet_bytes").get<uint32_t>();
    if (config.PeakFraction() > 1.0)
    {
        std::ostringstream message;
        message << path << ".background.load: " << config.load
                << " with on_off periods of mean_on_s " << config.meanOnS << " and mean_off_s "
                << config.meanOffS << " needs " << config.PeakFraction()
                << " x the link's capacity while on (at most 1): lower load or mean_off_s";
        errors.push_back(message.str());
    }
    return config;
}

} // namespace fedran
