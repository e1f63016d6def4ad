// privacy.dp of a scenario, and what it refuses. Central mode: every combination where the
// server does not see each site's decoded update alone (an edge aggregator's, async
// buffering, a two-exchange codec, a majority vote) or combines them other than by the mean
// the noise is calibrated to. Local mode: everything a site would send beyond its noised
// update (a loss report, an adaptive controller's choice made from the raw update), and what
// the per-site accountant cannot count. Adaptive clipping: what cannot carry its clip norm
// down or its bit up.

#include "models/fl/adaptive-clip.h"
#include "models/fl/level-policy.h"
#include "simulator/scenario/config-readers.h"

#include <stdexcept>

namespace fedran
{

namespace
{

/// The refusals of local mode (`why` ends each message).
void
CheckLocalDp(const ScenarioConfig& config, const std::string& why, std::vector<std::string>& errors)
{
    const CodecSpec& uplink = config.uplinkCodec;
    if (!uplink.Empty() && uplink.UsesStepMode())
    {
        errors.push_back("compression.uplink.mode: dgc's \"step\" mode steps its own momentum "
                         "on the raw gradients during training, so what it sends is not the "
                         "noised update; not with privacy.dp local (\"mode\": \"round\" encodes "
                         "the noised update)" +
                         why);
    }
    if (!uplink.Empty() && uplink.Traits().adaptive)
    {
        errors.push_back("compression.uplink.type: an adaptive uplink chooses its rung, or a "
                         "skip, from the raw update (its norm, gradient variance or loss), "
                         "which the frame's size then reveals; not with privacy.dp local" +
                         why);
    }
    if (config.server.selection.Traits().needsLoss)
    {
        errors.push_back("server.selection.type: \"" + config.server.selection.type +
                         "\" has every site send its training loss in the clear beside the "
                         "noised update; not with privacy.dp local" +
                         why);
    }
    if (config.training.pipelining.layerwise)
    {
        errors.push_back("training.pipelining.mode: \"layerwise\" sends buckets before the "
                         "whole update's norm is known, and local DP clips the whole update; "
                         "not with privacy.dp local" +
                         why);
    }
}

/// privacy.dp.adaptive_clipping: its keys, and what cannot carry C down or the bit up.
void
ReadAdaptiveClipping(const nlohmann::json& dp,
                     ScenarioConfig& config,
                     const std::string& why,
                     std::vector<std::string>& errors)
{
    const nlohmann::json& spec = dp.at("adaptive_clipping");
    AdaptiveClipConfig& out = config.dp.adaptive;
    out.enabled = true;
    out.targetQuantile = spec.at("target_unclipped_quantile").get<double>();
    out.learningRate = spec.at("learning_rate").get<double>();
    out.countStddev = spec.contains("clipped_count_stddev")
                          ? spec.at("clipped_count_stddev").get<double>()
                          : double(config.server.clientsPerRound) / 20.0;
    out.update = spec.at("update").get<std::string>();
    const std::string path = "privacy.dp.adaptive_clipping";
    if (config.dp.Local())
    {
        errors.push_back(path +
                         ": adapts the server's clip norm in central mode; local mode "
                         "clips at the sites with a fixed clip_norm" +
                         why);
        return;
    }
    if (out.update != "geometric")
    {
        errors.push_back(path + ".update: \"" + out.update +
                         "\" is not implemented; only \"geometric\" (C exp(-eta (b - gamma)), "
                         "TFF's default)" +
                         why);
    }
    try
    {
        AdaptiveSumNoiseMultiplier(config.dp.noiseMultiplier, out.countStddev);
    }
    catch (const std::invalid_argument&)
    {
        errors.push_back(path + ".clipped_count_stddev: " + std::to_string(out.countStddev) +
                         " is at most noise_multiplier / 2 (" +
                         std::to_string(config.dp.noiseMultiplier) +
                         " / 2): the count's noise alone would cost more privacy than "
                         "noise_multiplier allows, so no noise on the sum could make up the "
                         "total (z_Delta = (z^-2 - (2 sigma_b)^-2)^-1/2); raise it or lower "
                         "privacy.dp.noise_multiplier" +
                         why);
    }
    const CodecSpec& uplink = config.uplinkCodec;
    if (!uplink.Empty() && control::IsLevelPolicy(uplink.Json()))
    {
        errors.push_back("compression.uplink.policy: a level policy's level travels in the "
                         "model frame's field that adaptive clipping's C uses; not with " +
                         path + why);
    }
    if (config.training.pipelining.layerwise)
    {
        errors.push_back("training.pipelining.mode: \"layerwise\" buckets carry no "
                         "clipped-count byte; not with " +
                         path + why);
    }
}

} // namespace

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
    if (dp.contains("adaptive_clipping"))
    {
        ReadAdaptiveClipping(dp, config, why, errors);
    }
    if (config.server.async)
    {
        errors.push_back("server.mode: \"async\" has no rounds of a fixed size for the noise and "
                         "the accountant; not with privacy.dp" +
                         why);
    }
    if (config.Hierarchical())
    {
        errors.push_back(out.Local()
                             ? "network.hubs: an edge aggregator selects its sites in rounds "
                               "of its own, which the per-site accountant does not count; not "
                               "with privacy.dp local" +
                                   why
                             : "network.hubs: an edge aggregator combines its sites' updates "
                               "before the server could clip each; not with privacy.dp" +
                                   why);
    }
    if (out.Local())
    {
        // The server only post-processes noised updates: any rule and codec may combine them.
        CheckLocalDp(config, why, errors);
        return;
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
