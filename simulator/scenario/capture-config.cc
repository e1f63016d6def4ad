// output.pcap and output.flowmon: which link directions to capture, checked against the
// scenario's clients and hubs before anything runs or is written.

#include "simulator/scenario/config-readers.h"

#include <regex>
#include <set>

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
    static const std::regex kName(R"((core|client-(0|[1-9][0-9]{0,9}))(-up|-down)?)");
    std::set<std::string> wanted;
    for (size_t k = 0; k < pcap.size(); ++k)
    {
        const std::string name = pcap[k].get<std::string>();
        std::smatch match;
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
        if (!std::regex_match(name, match, kName))
        {
            errors.push_back(path + ": \"" + name +
                             "\" is not a link direction (core-up, core-down, client-<i>-up, "
                             "client-<i>-down, or core / client-<i> for both)");
            continue;
        }
        if (match[2].matched && std::stoull(match[2].str()) >= clients)
        {
            errors.push_back(path + ": \"" + name + "\": there are " + std::to_string(clients) +
                             " clients, numbered from 0");
            continue;
        }
        if (match[3].matched)
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
