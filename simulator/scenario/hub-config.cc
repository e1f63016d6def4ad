// network.hubs and clients.groups[].hub: the tree of hub sites between the clients and the
// aggregation router, checked before anything runs (names, parents, loops).

#include "models/link-config/link-types.h"
#include "simulator/scenario/config-readers.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace fedran
{

namespace
{

using nlohmann::json;

/// Where a name given in a scenario points: one hub, or a family's members in order.
using NameTable = std::map<std::string, std::vector<uint32_t>>;

bool
BadHubName(const std::string& name)
{
    // Letters, digits, '_', '.' and '-' only: the name becomes part of file and link names.
    const bool allowed =
        !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '_' || c == '.' || c == '-';
        });
    auto endsWith = [&name](const std::string& tail) {
        return name.size() >= tail.size() &&
               name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
    };
    return !allowed || name == "core" || endsWith("-up") || endsWith("-down");
}

/// Follows every hub's parents to the router; reports each loop once, at the entry that
/// closes it, with the names along it.
void
CheckLoops(const std::vector<HubConfig>& hubs,
           const std::vector<std::string>& entryPath,
           std::vector<std::string>& errors)
{
    enum class State
    {
        New,
        Open,
        Done
    };
    std::vector<State> state(hubs.size(), State::New);
    for (uint32_t start = 0; start < hubs.size(); ++start)
    {
        std::vector<uint32_t> walk;
        int32_t h = static_cast<int32_t>(start);
        while (h != HubConfig::kCore && state[h] == State::New)
        {
            state[h] = State::Open;
            walk.push_back(static_cast<uint32_t>(h));
            h = hubs[h].parent;
        }
        if (h != HubConfig::kCore && state[h] == State::Open)
        {
            // h is on this walk: the loop is from h's position to the end.
            std::string names;
            size_t from = 0;
            while (walk[from] != static_cast<uint32_t>(h))
            {
                ++from;
            }
            for (size_t k = from; k < walk.size(); ++k)
            {
                names += hubs[walk[k]].name + " -> ";
            }
            names += hubs[h].name;
            errors.push_back(entryPath[walk.back()] + ".parent: the hubs' parents make a loop (" +
                             names + "); every chain of parents must end at \"core\"");
        }
        for (uint32_t k : walk)
        {
            state[k] = State::Done;
        }
    }
}

} // namespace

void
ReadHubs(const json& scenario, ScenarioConfig& config, std::vector<std::string>& errors)
{
    const json& entries = scenario.at("network").at("hubs");
    std::vector<HubConfig>& hubs = config.network.hubs;
    std::vector<std::string> entryPath; // per expanded hub: its network.hubs entry's path
    std::vector<std::string> parentName;
    std::vector<uint32_t> parentSlot; // member k of a family: k, for a family parent
    std::vector<bool> chained;
    NameTable names;
    std::map<std::string, std::string> namedAt; // name -> path that defined it

    auto define =
        [&](const std::string& name, const std::string& path, std::vector<uint32_t> members) {
            auto [it, inserted] = namedAt.emplace(name, path);
            if (!inserted)
            {
                errors.push_back(path + ": \"" + name + "\" is already the name of a hub (" +
                                 it->second + ")");
                return;
            }
            names.emplace(name, std::move(members));
        };

    for (size_t e = 0; e < entries.size(); ++e)
    {
        const json& entry = entries[e];
        const std::string path = "network.hubs." + std::to_string(e);
        const std::string name = entry.at("name").get<std::string>();
        const uint32_t count = ReadUint32(entry.at("count"), path + ".count", errors);
        const bool chain = entry.at("chain").get<bool>();
        if (BadHubName(name))
        {
            errors.push_back(path + ".name: \"" + name +
                             "\" is not a hub name (letters, digits, '_', '.', '-'; not "
                             "\"core\"; not ending in -up or -down)");
            continue;
        }
        const std::string type = entry.at("backhaul").at("type").get<std::string>();
        if (const LinkTypeTraits* link = FindLinkType(type);
            link != nullptr && !link->notAHubLinkBecause.empty())
        {
            errors.push_back(path + ".backhaul.type: \"" + type + "\" cannot be a hub's link (" +
                             std::string(link->notAHubLinkBecause) + ")");
            continue;
        }
        const json& backhaul = entry.at("backhaul");
        LinkConfig link = ReadLink(backhaul, path + ".backhaul");
        link.background = ReadBackground(backhaul, link.path, errors);

        std::vector<uint32_t> members;
        for (uint32_t k = 0; k < count; ++k)
        {
            HubConfig hub;
            hub.family = name;
            hub.name = count > 1 ? name + "-" + std::to_string(k) : name;
            hub.backhaul = link;
            members.push_back(static_cast<uint32_t>(hubs.size()));
            if (count > 1)
            {
                define(hub.name, path + ".name", {members.back()});
            }
            hubs.push_back(std::move(hub));
            entryPath.push_back(path);
            parentName.push_back(entry.at("parent").get<std::string>());
            parentSlot.push_back(k);
            chained.push_back(chain && k > 0);
        }
        define(name, path + ".name", members);
    }

    // Parents, once every name is known (a parent may come later in the list).
    for (uint32_t h = 0; h < hubs.size(); ++h)
    {
        if (chained[h])
        {
            hubs[h].parent = static_cast<int32_t>(h - 1);
            continue;
        }
        if (parentName[h] == "core")
        {
            continue;
        }
        auto it = names.find(parentName[h]);
        if (it == names.end())
        {
            if (parentSlot[h] == 0)
            {
                errors.push_back(entryPath[h] + ".parent: no hub \"" + parentName[h] +
                                 "\" (\"core\" or a name from network.hubs)");
            }
            hubs[h].parent = HubConfig::kCore;
            continue;
        }
        const std::vector<uint32_t>& members = it->second;
        hubs[h].parent = static_cast<int32_t>(members[parentSlot[h] % members.size()]);
    }
    CheckLoops(hubs, entryPath, errors);

    const json& groups = scenario.at("clients").at("groups");
    for (size_t g = 0; g < groups.size() && g < config.groups.size(); ++g)
    {
        if (!groups[g].contains("hub"))
        {
            continue;
        }
        const std::string path = "clients.groups." + std::to_string(g) + ".hub";
        const std::string hub = groups[g].at("hub").get<std::string>();
        auto it = names.find(hub);
        if (it == names.end())
        {
            errors.push_back(path + ": no hub \"" + hub + "\" in network.hubs");
            continue;
        }
        const std::string& type = config.groups[g].backhaul.type;
        if (const LinkTypeTraits* link = FindLinkType(type); link && link->routesOwnClients)
        {
            errors.push_back(path + ": the sites of a \"" + type +
                             "\" group reach the "
                             "aggregation router through the link's own core network "
                             "(an LTE EPC) and cannot hang off a hub");
            continue;
        }
        config.groups[g].hubs = it->second;
    }
}

} // namespace fedran
