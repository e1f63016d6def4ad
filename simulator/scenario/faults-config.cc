// faults: the injected faults of docs/reliability.md, with the checks the schema can't express
// (names of groups and hubs that exist, a group or a hub per link outage).

#include "simulator/scenario/config-readers.h"

namespace fedran
{

namespace
{

using nlohmann::json;

void
ReadLinkOutage(const json& spec,
               const std::string& path,
               const ScenarioConfig& config,
               FaultsConfig& faults,
               std::vector<std::string>& errors)
{
    OutageConfig outage;
    outage.startS = spec.at("start_s").get<double>();
    outage.durationS = spec.at("duration_s").get<double>();
    if (spec.contains("group") == spec.contains("hub"))
    {
        errors.push_back(path + ": give \"group\" or \"hub\", one of them");
        return;
    }
    if (spec.contains("group"))
    {
        const std::string name = spec.at("group").get<std::string>();
        uint32_t first = 0;
        bool found = false;
        for (const ClientGroupConfig& group : config.groups)
        {
            if (group.name == name)
            {
                for (uint32_t i = 0; i < group.count; ++i)
                {
                    outage.clients.push_back(first + i);
                }
                found = true;
            }
            first += group.count;
        }
        if (!found)
        {
            errors.push_back(path + ".group: no group is called \"" + name + "\"");
            return;
        }
    }
    else
    {
        const std::string name = spec.at("hub").get<std::string>();
        for (uint32_t h = 0; h < config.network.hubs.size(); ++h)
        {
            const HubConfig& hub = config.network.hubs[h];
            if (hub.name == name || hub.family == name)
            {
                outage.hubs.push_back(h);
            }
        }
        if (outage.hubs.empty())
        {
            errors.push_back(path + ".hub: no hub (or hub family) is called \"" + name + "\"");
            return;
        }
    }
    faults.linkOutages.push_back(std::move(outage));
}

} // namespace

void
ReadFaults(const json& scenario, ScenarioConfig& config, std::vector<std::string>& errors)
{
    FaultsConfig& faults = config.faults;
    faults = FaultsConfig{};
    faults.crashProbability.assign(config.groups.size(), 0.0);
    faults.crashRestartS.assign(config.groups.size(), 0.0);
    if (!scenario.contains("faults"))
    {
        return;
    }
    const json& spec = scenario.at("faults");
    faults.corruptUplink = spec.value("corrupt_uplink", 0.0);
    const json none = json::array();
    const json& links = spec.contains("link_outages") ? spec.at("link_outages") : none;
    for (size_t i = 0; i < links.size(); ++i)
    {
        ReadLinkOutage(links[i],
                       "faults.link_outages." + std::to_string(i),
                       config,
                       faults,
                       errors);
    }
    const json& server = spec.contains("server_outages") ? spec.at("server_outages") : none;
    for (const json& entry : server)
    {
        OutageConfig outage;
        outage.startS = entry.at("start_s").get<double>();
        outage.durationS = entry.at("duration_s").get<double>();
        faults.serverOutages.push_back(outage);
    }
    const json& crashes = spec.contains("crashes") ? spec.at("crashes") : none;
    std::vector<bool> given(config.groups.size(), false);
    for (size_t i = 0; i < crashes.size(); ++i)
    {
        const std::string path = "faults.crashes." + std::to_string(i) + ".group";
        const std::string name = crashes[i].at("group").get<std::string>();
        bool found = false;
        for (size_t g = 0; g < config.groups.size(); ++g)
        {
            if (config.groups[g].name != name)
            {
                continue;
            }
            found = true;
            if (given[g])
            {
                errors.push_back(path + ": \"" + name + "\" has crashes already");
            }
            given[g] = true;
            faults.crashProbability[g] = crashes[i].at("probability").get<double>();
            faults.crashRestartS[g] = crashes[i].value("restart_s", 10.0);
        }
        if (!found)
        {
            errors.push_back(path + ": no group is called \"" + name + "\"");
        }
    }
}

} // namespace fedran
