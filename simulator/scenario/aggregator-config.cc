// network.hubs[].aggregator: edge aggregation at hub sites (docs/hierarchical.md), read from
// the validated scenario and checked against what the rest of the scenario asks: the tiers
// run synchronous rounds with codecs that decode alone and combine by a weighted mean.

#include "compression/codec-spec.h"
#include "models/fl/aggregation-rule.h"
#include "simulator/scenario/config-readers.h"

#include <map>
#include <string>
#include <vector>

namespace fedran
{

using nlohmann::json;

std::vector<int32_t>
ScenarioConfig::ClientHubs() const
{
    std::vector<int32_t> result;
    for (const ClientGroupConfig& group : groups)
    {
        for (uint32_t j = 0; j < group.count; ++j)
        {
            result.push_back(group.hubs.empty()
                                 ? HubConfig::kCore
                                 : static_cast<int32_t>(group.hubs[j % group.hubs.size()]));
        }
    }
    return result;
}

int32_t
ScenarioConfig::AggregatorAt(int32_t hub) const
{
    while (hub != HubConfig::kCore && !network.hubs[hub].aggregator)
    {
        hub = network.hubs[hub].parent;
    }
    return hub;
}

bool
ScenarioConfig::Hierarchical() const
{
    for (const HubConfig& hub : network.hubs)
    {
        if (hub.aggregator)
        {
            return true;
        }
    }
    return false;
}

void
ReadAggregators(const json& scenario, ScenarioConfig& config, std::vector<std::string>& errors)
{
    // Hubs are expanded in entry order, count members per entry (ReadHubs).
    const json& entries = scenario.at("network").at("hubs");
    size_t h = 0;
    for (size_t e = 0; e < entries.size(); ++e)
    {
        const json& entry = entries[e];
        const uint64_t count = entry.at("count").get<uint64_t>();
        for (uint64_t k = 0; k < count && h < config.network.hubs.size(); ++k, ++h)
        {
            if (!entry.contains("aggregator"))
            {
                continue;
            }
            const json& a = entry.at("aggregator");
            AggregatorConfig aggregator;
            aggregator.edgeRounds = static_cast<uint32_t>(
                std::min<uint64_t>(a.at("edge_rounds").get<uint64_t>(), 1u << 20));
            aggregator.clientsPerRound = static_cast<uint32_t>(
                std::min<uint64_t>(a.at("clients_per_round").get<uint64_t>(), 1u << 31));
            aggregator.deadlineS = a.at("deadline_s").get<double>();
            const std::string path =
                "network.hubs." + std::to_string(e) + ".aggregator.compression.";
            if (k == 0)
            {
                aggregator.uplinkCodec =
                    ReadCodecSpec(a.at("compression").at("uplink"), path + "uplink", errors);
                aggregator.downlinkCodec =
                    ReadCodecSpec(a.at("compression").at("downlink"), path + "downlink", errors);
            }
            else
            {
                // The entry's other hubs share its checked specs (reported once).
                aggregator.uplinkCodec = config.network.hubs[h - 1].aggregator->uplinkCodec;
                aggregator.downlinkCodec = config.network.hubs[h - 1].aggregator->downlinkCodec;
            }
            config.network.hubs[h].aggregator = std::move(aggregator);
        }
    }
}

namespace
{

/// The path of hub h's aggregator key (its network.hubs entry's).
std::string
AggregatorPath(const json& scenario, const ScenarioConfig& /* config */, uint32_t hub)
{
    const json& entries = scenario.at("network").at("hubs");
    uint64_t first = 0;
    for (size_t e = 0; e < entries.size(); ++e)
    {
        const uint64_t count = entries[e].at("count").get<uint64_t>();
        if (hub < first + count)
        {
            return "network.hubs." + std::to_string(e) + ".aggregator";
        }
        first += count;
    }
    return "network.hubs";
}

/// Why a codec cannot be a tier's: empty if it can.
std::string
TierCodecProblem(const CodecSpec& spec)
{
    if (spec.Empty())
    {
        return ""; // not read: its error is reported already
    }
    if (spec.TwoExchanges())
    {
        return "takes two exchanges per round, which edge aggregation does not relay";
    }
    if (spec.Traits().adaptive)
    {
        return "\"adaptive\" is not supported with edge aggregation (its controller budgets "
               "against one deadline)";
    }
    if (spec.BringsAggregator())
    {
        return "combines by a majority vote of signs, which an aggregated update (a mean of "
               "many) cannot join; edge aggregation needs codecs combined by a weighted mean";
    }
    return "";
}

} // namespace

void
CheckAggregators(const json& scenario,
                 const ScenarioConfig& config,
                 std::vector<std::string>& errors)
{
    if (!config.Hierarchical())
    {
        return;
    }
    const std::vector<HubConfig>& hubs = config.network.hubs;
    uint32_t first = 0;
    while (!hubs[first].aggregator)
    {
        ++first;
    }
    const std::string firstPath = AggregatorPath(scenario, config, first);
    if (config.server.async)
    {
        errors.push_back(firstPath + ": edge aggregation runs synchronous rounds; server.mode "
                                     "\"async\" is not supported with it");
    }
    if (config.downlinkClientView)
    {
        errors.push_back(firstPath + ": compression.downlink_reference \"client_view\" is not "
                                     "supported with edge aggregation (an aggregator would have "
                                     "to mirror each child's copy of a model it relays)");
    }
    for (const char* key : {"uplink", "downlink"})
    {
        const CodecSpec& spec =
            std::string(key) == "uplink" ? config.uplinkCodec : config.downlinkCodec;
        const std::string path = std::string("compression.") + key;
        std::string problem = TierCodecProblem(spec);
        if (std::string(key) == "downlink" && !spec.Empty() && spec.Traits().adaptive)
        {
            problem = "\"adaptive\" is not supported with network.hubs[].aggregator (the server "
                      "chooses each site's rung from the site's download reports, and an "
                      "aggregator relays the model)";
        }
        if (!problem.empty())
        {
            errors.push_back(path + ".type: " + spec.Type() + " " + problem);
        }
    }
    for (size_t g = 0; g < config.groups.size(); ++g)
    {
        if (config.groups[g].attack.Colluding())
        {
            errors.push_back("clients.groups." + std::to_string(g) + ".attack.type: \"" +
                             config.groups[g].attack.type +
                             "\" colludes through the server's view of each round, which edge "
                             "aggregation does not give; not supported with it");
        }
    }

    // Direct children of each tier: the server (index hubs.size()) and each aggregator.
    const size_t server = hubs.size();
    std::vector<uint64_t> children(hubs.size() + 1, 0);
    auto tierOf = [&](int32_t hub) {
        const int32_t a = config.AggregatorAt(hub);
        return a == HubConfig::kCore ? server : static_cast<size_t>(a);
    };
    for (int32_t hub : config.ClientHubs())
    {
        ++children[tierOf(hub)];
    }
    for (uint32_t h = 0; h < hubs.size(); ++h)
    {
        if (hubs[h].aggregator)
        {
            ++children[tierOf(hubs[h].parent)];
        }
    }
    if (config.server.clientsPerRound > children[server])
    {
        errors.push_back(
            "server.clients_per_round: " + std::to_string(config.server.clientsPerRound) +
            " is more than the server's direct children (" + std::to_string(children[server]) +
            ": aggregating hubs and the sites whose traffic no aggregator takes)");
    }
    for (uint32_t h = 0; h < hubs.size(); ++h)
    {
        if (!hubs[h].aggregator)
        {
            continue;
        }
        const AggregatorConfig& aggregator = *hubs[h].aggregator;
        const std::string path = AggregatorPath(scenario, config, h);
        if (aggregator.clientsPerRound > children[h])
        {
            errors.push_back(path + ".clients_per_round: " +
                             std::to_string(aggregator.clientsPerRound) + " is more than hub " +
                             hubs[h].name + "'s direct children (" + std::to_string(children[h]) +
                             ": the sites and aggregating hubs it takes the traffic of)");
        }
        for (const char* key : {"uplink", "downlink"})
        {
            const CodecSpec& spec =
                std::string(key) == "uplink" ? aggregator.uplinkCodec : aggregator.downlinkCodec;
            const std::string codecPath = path + ".compression." + key;
            const std::string problem = TierCodecProblem(spec);
            if (!problem.empty())
            {
                errors.push_back(codecPath + ".type: " + spec.Type() + " " + problem);
            }
        }
        try
        {
            CheckRobustRule(config.server.robust, config.uplinkCodec, aggregator.clientsPerRound);
        }
        catch (const RuleConfigError& e)
        {
            errors.push_back(path +
                             ".clients_per_round: server.robust applies at the hub "
                             "too: " +
                             e.what());
        }
    }
}

} // namespace fedran
