// Where dgc's mode "step" (its default) can run: only as a site's own uplink codec, whose Encode
// follows the local trainer's steps (compression/internal/dgc-codec.h). Everywhere else a
// codec sees a finished update only, so a dgc there must say "mode": "round"; and the few
// settings that do not fit a codec acting inside training are refused with the key to change.

#include "simulator/scenario/config-readers.h"

#include <nlohmann/json.hpp>

#include <string>

namespace fedran
{

namespace
{

bool
IsStepDgc(const nlohmann::json& spec)
{
    return spec.is_object() && spec.value("type", "") == "dgc" &&
           spec.value("mode", std::string("step")) == "step";
}

/// Reports every dgc in mode step within `spec` (at `path`, itself included unless
/// `allowTop`): its base and its ladder's rungs see the finished update only.
void
FindNestedStepDgc(const nlohmann::json& spec,
                  const std::string& path,
                  bool allowTop,
                  const std::string& where,
                  std::vector<std::string>& errors)
{
    if (!spec.is_object())
    {
        return;
    }
    if (!allowTop && IsStepDgc(spec))
    {
        errors.push_back(path +
                         ".mode: dgc's \"step\" mode (the default) acts at every step of a "
                         "site's local training, which " +
                         where + " does not see; set \"mode\": \"round\" (docs/codecs.md)");
    }
    if (const auto base = spec.find("base"); base != spec.end())
    {
        FindNestedStepDgc(*base, path + ".base", false, "a wrapper's base", errors);
    }
    if (const auto ladder = spec.find("ladder"); ladder != spec.end() && ladder->is_array())
    {
        for (size_t i = 0; i < ladder->size(); ++i)
        {
            FindNestedStepDgc((*ladder)[i],
                              path + ".ladder." + std::to_string(i),
                              false,
                              "a rung of an adaptive ladder",
                              errors);
        }
    }
}

} // namespace

void
CheckDgcStepMode(const nlohmann::json& scenario,
                 const ScenarioConfig& config,
                 std::vector<std::string>& errors)
{
    FindNestedStepDgc(config.uplinkCodec, "compression.uplink", true, "", errors);
    FindNestedStepDgc(config.downlinkCodec,
                      "compression.downlink",
                      false,
                      "the downlink (the server's model)",
                      errors);
    if (const auto network = scenario.find("network"); network != scenario.end())
    {
        if (const auto hubs = network->find("hubs"); hubs != network->end() && hubs->is_array())
        {
            for (size_t e = 0; e < hubs->size(); ++e)
            {
                const nlohmann::json& hub = (*hubs)[e];
                if (!hub.is_object() || !hub.contains("aggregator") ||
                    !hub.at("aggregator").contains("compression"))
                {
                    continue;
                }
                const nlohmann::json& codecs = hub.at("aggregator").at("compression");
                for (const char* key : {"uplink", "downlink"})
                {
                    if (codecs.contains(key))
                    {
                        FindNestedStepDgc(codecs.at(key),
                                          "network.hubs." + std::to_string(e) +
                                              ".aggregator.compression." + key,
                                          false,
                                          "an edge aggregator (it trains nothing)",
                                          errors);
                    }
                }
            }
        }
    }

    if (!IsStepDgc(config.uplinkCodec))
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
