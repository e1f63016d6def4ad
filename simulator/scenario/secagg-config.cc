// privacy.secure_aggregation of a scenario, and what it refuses: everything that needs a
// site's update alone (robust rules, majority votes, edge aggregators, a two-exchange codec),
// supports of each site's own (top_k, threshold, dgc), anything appended to the masked vector
// (loss reports, download reports, clipped-count bits), rounds of no fixed cohort (async,
// over-selection) and buckets sent before the update is whole.

#include "models/fl/secagg/secagg-graph.h"
#include "models/fl/secagg/secagg-round.h"
#include "simulator/scenario/config-readers.h"

#include <cmath>

namespace fedran
{

void
ReadSecureAggregation(const nlohmann::json& scenario,
                      ScenarioConfig& config,
                      std::vector<std::string>& errors)
{
    if (!scenario.contains("privacy") || !scenario.at("privacy").contains("secure_aggregation"))
    {
        return;
    }
    const nlohmann::json& spec = scenario.at("privacy").at("secure_aggregation");
    SecAggConfig& out = config.secagg;
    out.type = spec.at("type").get<std::string>();
    const std::string path = "privacy.secure_aggregation";
    const uint32_t cohort = config.server.clientsPerRound;
    if (out.type == "secagg_plus")
    {
        if (!spec.contains("num_shares"))
        {
            errors.push_back(path + ".num_shares: required with \"secagg_plus\" (the "
                                    "neighbourhood size, the client included; docs/privacy.md)");
            return;
        }
        out.numShares = spec.at("num_shares").get<uint32_t>();
    }
    else if (spec.contains("num_shares"))
    {
        errors.push_back(path +
                         ".num_shares: \"secagg\" masks with every other client of the round; "
                         "num_shares is secagg_plus's neighbourhood (docs/privacy.md)");
    }
    out.threshold = spec.at("threshold").get<uint32_t>();
    out.fieldBits = spec.at("field_bits").get<uint32_t>();
    out.clippingRange = spec.at("clipping_range").get<double>();
    out.quantizationRange = spec.at("quantization_range").get<uint64_t>();
    out.maxWeight = spec.at("max_weight").get<double>();
    out.timeoutS = spec.at("timeout_s").get<double>();

    const std::string why = " (" + path + " type \"" + out.type + "\" is set; docs/privacy.md)";
    const uint32_t shares =
        out.type == "secagg" ? cohort : secagg::EffectiveShares(out.numShares, cohort);
    if (out.threshold > shares)
    {
        errors.push_back(path + ".threshold: " + std::to_string(out.threshold) +
                         " exceeds the shares each secret is split into (" +
                         std::to_string(shares) +
                         (out.type == "secagg" ? ", server.clients_per_round"
                                               : ", num_shares made odd and at most "
                                                 "server.clients_per_round") +
                         "): no secret could ever be rebuilt" + why);
    }
    // The values' sum must not wrap: clients_per_round x Q < 2^b (the weights' sum is
    // checked once the partition is known).
    if (out.fieldBits < 64 &&
        double(cohort) * double(out.quantizationRange) >= std::ldexp(1.0, int(out.fieldBits)))
    {
        errors.push_back(path + ".field_bits: " + std::to_string(out.fieldBits) +
                         " bits cannot hold server.clients_per_round (" + std::to_string(cohort) +
                         ") x quantization_range (" + std::to_string(out.quantizationRange) +
                         ") without wrapping; raise field_bits or lower quantization_range" + why);
    }
    std::string reason;
    if (!config.uplinkCodec.Empty() && !secagg::Compose(config.uplinkCodec, reason))
    {
        errors.push_back("compression.uplink.type: " + reason + "; not with " + path + why);
    }
    const CodecSpec& downlink = config.downlinkCodec;
    if (!downlink.Empty() && downlink.Traits().adaptive)
    {
        errors.push_back("compression.downlink.type: an adaptive downlink has every update end "
                         "with a download report, which a masked vector cannot carry; not with " +
                         path + why);
    }
    if (config.server.async)
    {
        errors.push_back("server.mode: \"async\" has no round whose cohort could mask "
                         "together; not with " +
                         path + why);
    }
    if (config.Hierarchical())
    {
        errors.push_back("network.hubs: an edge aggregator combines its sites' updates, which "
                         "it would need to see alone; not with " +
                         path + why);
    }
    if (config.server.robust.type != "mean")
    {
        errors.push_back("server.robust.type: \"" + config.server.robust.type +
                         "\" needs each site's update, and the server sees only their sum; "
                         "only \"mean\" with " +
                         path + why);
    }
    if (config.server.overSelect != 1.0)
    {
        errors.push_back("server.over_select: the round's cohort shares its keys before "
                         "training, so the first updates cannot be taken and the rest left "
                         "out; only 1 with " +
                         path + why);
    }
    const SelectionTraits selection = config.server.selection.Traits();
    if (selection.needsLoss || selection.polls)
    {
        errors.push_back("server.selection.type: \"" + config.server.selection.type +
                         "\" has every site send its loss beside its update (or polls it "
                         "before the round), which a masked vector cannot carry; not with " +
                         path + why);
    }
    if (config.training.pipelining.layerwise)
    {
        errors.push_back("training.pipelining.mode: \"layerwise\" sends buckets before the "
                         "update is whole, and a masked vector is one; not with " +
                         path + why);
    }
    if (config.dp.AdaptiveClipping())
    {
        errors.push_back("privacy.dp.adaptive_clipping: each site's clipped-count bit would "
                         "travel beside the masked vector, in the clear; not with " +
                         path + why);
    }
}

} // namespace fedran
