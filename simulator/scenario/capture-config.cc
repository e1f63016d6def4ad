// output.pcap and output.flowmon: which link directions to capture, checked against the
// scenario's clients and hubs before anything runs or is written.

#include "simulator/scenario/config-readers.h"

#include <optional>
#include <set>
#include <string_view>

namespace fedran
{

namespace
{

/// The link directions of a scenario, in links.csv order: core, hubs, clients.
std::vector<std::string>
AllDirections(uint64_t clients, const std::vector<HubConfig>& hubs)
{
    std::vector<std::string> names = {"core-up", "core-down"};
    for (const HubConfig& hub : hubs)
    {
        names.push_back("hub-" + hub.name + "-up");
        names.push_back("hub-" + hub.name + "-down");
    }
    for (uint64_t i = 0; i < clients; ++i)
    {
        names.push_back("client-" + std::to_string(i) + "-up");
        names.push_back("client-" + std::to_string(i) + "-down");
    }
    return names;
}

/// "core" or "client-<i>" (i without leading zeros, at most ten digits), optionally followed
/// by "-up" or "-down".
struct LinkName
{
    std::optional<uint64_t> client;
    bool hasDirection = false;
};

std::optional<LinkName>
ParseLinkName(std::string_view name)
{
    LinkName link;
    for (std::string_view tail : {"-up", "-down"})
    {
        if (name.size() > tail.size() && name.substr(name.size() - tail.size()) == tail)
        {
            name.remove_suffix(tail.size());
            link.hasDirection = true;
            break;
        }
    }
    if (name == "core")
    {
        return link;
    }
    const std::string_view prefix = "client-";
    if (name.substr(0, prefix.size()) != prefix)
    {
        return std::nullopt;
    }
    const std::string_view digits = name.substr(prefix.size());
    if (digits.empty() || digits.size() > 10 || (digits.size() > 1 && digits[0] == '0'))
    {
        return std::nullopt;
    }
    uint64_t index = 0;
    for (char c : digits)
    {
        if (c < '0' || c > '9')
        {
            return std::nullopt;
        }
        index = index * 10 + static_cast<uint64_t>(c - '0');
    }
    link.client = index;
    return link;
}

} // namespace

void
ReadCaptureOutputs(const nlohmann::json& output,
                   uint64_t clients,
                   ScenarioConfig& config,
                   std::vector<std::string>& errors)
{
    config.flowmon = output.at("flowmon").get<bool>();
    const nlohmann::json& pcap = output.at("pcap");
    if (pcap.is_boolean())
    {
        config.pcapLinks = pcap.get<bool>() ? AllDirections(clients, config.network.hubs)
                                            : std::vector<std::string>{};
        return;
    }
    // "core" and "client-<i>" stand for both directions of the link.
    std::set<std::string> wanted;
    for (size_t k = 0; k < pcap.size(); ++k)
    {
        const std::string name = pcap[k].get<std::string>();
        const std::string path = "output.pcap." + std::to_string(k);
        if (name.rfind("hub-", 0) == 0)
        {
            // hub-<name>[-up|-down], for a hub of network.hubs.
            bool found = false;
            for (const HubConfig& hub : config.network.hubs)
            {
                const std::string link = "hub-" + hub.name;
                if (name == link)
                {
                    wanted.insert(link + "-up");
                    wanted.insert(link + "-down");
                    found = true;
                }
                else if (name == link + "-up" || name == link + "-down")
                {
                    wanted.insert(name);
                    found = true;
                }
            }
            if (!found)
            {
                errors.push_back(path + ": \"" + name +
                                 "\" is not a hub link direction (hub-<name>-up, "
                                 "hub-<name>-down or hub-<name> for a hub of network.hubs)");
            }
            continue;
        }
        const std::optional<LinkName> link = ParseLinkName(name);
        if (!link)
        {
            errors.push_back(path + ": \"" + name +
                             "\" is not a link direction (core-up, core-down, client-<i>-up, "
                             "client-<i>-down, or core / client-<i> for both)");
            continue;
        }
        if (link->client && *link->client >= clients)
        {
            errors.push_back(path + ": \"" + name + "\": there are " + std::to_string(clients) +
                             " clients, numbered from 0");
            continue;
        }
        if (link->hasDirection)
        {
            wanted.insert(name);
        }
        else
        {
            wanted.insert(name + "-up");
            wanted.insert(name + "-down");
        }
    }
    // links.csv order, whatever order the list gave.
    for (const std::string& direction : AllDirections(clients, config.network.hubs))
    {
        if (wanted.count(direction))
        {
            config.pcapLinks.push_back(direction);
        }
    }
}

} // namespace fedran
