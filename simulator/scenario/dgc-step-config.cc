// Where dgc's mode "step" (its default) can run: only as a site's own uplink codec, whose Encode
// follows the local trainer's steps (compression/internal/dgc-codec.h). Everywhere else a
// codec sees a finished update only, so a dgc there must say "mode": "round"; and the few
// settings that do not fit a codec acting inside training are refused with the key to change.

#include "simulator/scenario/config-readers.h"

#include <nlohmann/json.hpp>

#include <set>
#include <string>

namespace fedran
{

namespace
{

/// Reports every dgc in mode step within `spec` (itself included unless `allowTop`): its base
/// and its ladder's rungs see the finished update only.
void
FindNestedStepDgc(const CodecSpec& spec,
                  bool allowTop,
                  const std::string& where,
                  std::vector<std::string>& errors)
{
    if (spec.Empty())
    {
        return; // not read: its error is reported already
    }
    if (!allowTop && spec.UsesStepMode())
    {
        errors.push_back(spec.Path() + ".mode: " + spec.Type() +
                         "'s \"step\" mode (the default) acts at every step of a site's local "
                         "training, which " +
                         where + " does not see; set \"mode\": \"round\" (docs/codecs.md)");
    }
    for (const CodecSpec& child : spec.Children())
    {
        FindNestedStepDgc(child,
                          false,
                          spec.Traits().adaptive ? "a rung of an adaptive ladder"
                                                 : "a wrapper's base",
                          errors);
    }
}

} // namespace

void
CheckDgcStepMode(const ScenarioConfig& config, std::vector<std::string>& errors)
{
    FindNestedStepDgc(config.uplinkCodec, true, "", errors);
    FindNestedStepDgc(config.downlinkCodec, false, "the downlink (the server's model)", errors);
    std::set<std::string> reported; // the hubs of one network.hubs entry share its specs
    for (const HubConfig& hub : config.network.hubs)
    {
        if (!hub.aggregator)
        {
            continue;
        }
        for (const CodecSpec* spec : {&hub.aggregator->uplinkCodec, &hub.aggregator->downlinkCodec})
        {
            if (!spec->Empty() && reported.insert(spec->Path()).second)
            {
                FindNestedStepDgc(*spec, false, "an edge aggregator (it trains nothing)", errors);
            }
        }
    }

    if (!config.uplinkCodec.UsesStepMode())
    {
        return;
    }
    const std::string codec = "compression.uplink dgc in mode \"step\"";
    if (config.training.momentum != 0.0)
    {
        errors.push_back("training.momentum: " + codec +
                         " brings its own momentum (compression.uplink.momentum, the paper's "
                         "momentum correction), which the local steps follow; a second one "
                         "would compound it: set training.momentum to 0");
    }
    if (config.training.pipelining.layerwise)
    {
        errors.push_back("training.pipelining.mode: \"layerwise\" cannot split " + codec +
                         ": its momentum and accumulation cover the whole update and are "
                         "selected from at the round's end; use \"mode\": \"round\"");
    }
    for (size_t g = 0; g < config.groups.size(); ++g)
    {
        const std::string& type = config.groups[g].attack.type;
        if (!type.empty() && type != "label_flip")
        {
            errors.push_back("clients.groups." + std::to_string(g) + ".attack.type: \"" + type +
                             "\" corrupts the finished update, which " + codec +
                             " does not send (it sends what its steps accumulated); use "
                             "\"mode\": \"round\", or label_flip");
        }
    }
}

} // namespace fedran
