// privacy.dp of a scenario, and what it refuses: every combination where the server does not
// see each site's decoded update alone (an edge aggregator's, async buffering, a two-exchange
// codec, a majority vote) or combines them other than by the mean the noise is calibrated to.

#include "simulator/scenario/config-readers.h"

namespace fedran
{

void
ReadPrivacy(const nlohmann::json& scenario,
            ScenarioConfig& config,
            std::vector<std::string>& errors)
{
    if (!scenario.contains("privacy") || !scenario.at("privacy").contains("dp"))
    {
        return;
    }
    const nlohmann::json& dp = scenario.at("privacy").at("dp");
    DpConfig& out = config.dp;
    out.mode = dp.at("mode").get<std::string>();
    out.clipNorm = dp.at("clip_norm").get<double>();
    out.noiseMultiplier = dp.at("noise_multiplier").get<double>();
    out.delta = dp.at("delta").get<double>();

    const std::string why = " (privacy.dp mode \"" + out.mode + "\" is set; docs/privacy.md)";
    if (config.server.async)
    {
        errors.push_back("server.mode: \"async\" has no rounds of a fixed size for the noise and "
                         "the accountant; not with privacy.dp" +
                         why);
    }
    if (config.Hierarchical())
    {
        errors.push_back("network.hubs: an edge aggregator combines its sites' updates before "
                         "the server could clip each; not with privacy.dp" +
                         why);
    }
    if (config.server.robust.type != "mean")
    {
        errors.push_back("server.robust.type: \"" + config.server.robust.type +
                         "\" does not combine by the sum the DP noise is calibrated to; only "
                         "\"mean\" with privacy.dp" +
                         why);
    }
    if (config.uplinkCodec.TwoExchanges())
    {
        errors.push_back("compression.uplink.type: " + config.uplinkCodec.Type() +
                         " is combined by its own server step, never decoded per site, so no "
                         "update can be clipped; not with privacy.dp" +
                         why);
    }
    else if (config.uplinkCodec.BringsAggregator())
    {
        errors.push_back("compression.uplink.aggregation: sign's majority vote is not a sum of "
                         "clipped updates; use its aggregation \"mean\" with privacy.dp" +
                         why);
    }
}

} // namespace fedran
