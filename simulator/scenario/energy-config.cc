// clients.groups[].energy and server.energy: the powers of the energy model (docs/energy.md),
// a preset resolved and overridden by the keys next to it, and what the model cannot charge.
#include "simulator/scenario/config-readers.h"

namespace fedran
{

namespace
{

const char* const kPowerKeys[] = {"compute_w", "tx_w", "rx_w"};

std::string
PresetNames()
{
    std::string names;
    for (const EnergyPreset& preset : EnergyPresets())
    {
        names += (names.empty() ? "" : ", ") + preset.name;
    }
    return names;
}

/// The group's energy object at `path`; nullopt (and an error) when it cannot be resolved,
/// nullopt without an error when it is empty (the validator's filled-in default: none).
std::optional<EnergySpec>
ReadGroupEnergy(const nlohmann::json& energy,
                const std::string& path,
                std::vector<std::string>& errors)
{
    if (energy.empty())
    {
        return std::nullopt;
    }
    EnergySpec spec;
    if (energy.contains("preset"))
    {
        const std::string name = energy.at("preset").get<std::string>();
        const EnergyPreset* preset = FindEnergyPreset(name);
        if (preset == nullptr)
        {
            errors.push_back(path + ".preset: unknown preset \"" + name +
                             "\" (known: " + PresetNames() + ")");
            return std::nullopt;
        }
        spec = preset->spec;
    }
    else
    {
        for (const char* key : kPowerKeys)
        {
            if (!energy.contains(key))
            {
                errors.push_back(path + "." + key + ": missing (give compute_w, tx_w and rx_w, " +
                                 "or a preset)");
                return std::nullopt;
            }
        }
    }
    // Explicit keys override the preset's values.
    spec.computeW = energy.value("compute_w", spec.computeW);
    spec.txW = energy.value("tx_w", spec.txW);
    spec.rxW = energy.value("rx_w", spec.rxW);
    spec.idleW = energy.value("idle_w", spec.idleW);
    return spec;
}

} // namespace

void
ReadEnergy(const nlohmann::json& scenario, ScenarioConfig& config, std::vector<std::string>& errors)
{
    const nlohmann::json& server = scenario.at("server");
    if (server.contains("energy"))
    {
        config.server.energyComputeW = server.at("energy").at("compute_w").get<double>();
    }
    const nlohmann::json& groups = scenario.at("clients").at("groups");
    for (size_t i = 0; i < groups.size() && i < config.groups.size(); ++i)
    {
        const auto it = groups[i].find("energy");
        if (it == groups[i].end())
        {
            continue;
        }
        const std::string path = "clients.groups." + std::to_string(i) + ".energy";
        ClientGroupConfig& group = config.groups[i];
        group.energy = ReadGroupEnergy(*it, path, errors);
        if (!group.energy)
        {
            continue;
        }
        for (uint32_t hub : group.hubs)
        {
            if (config.AggregatorAt(int32_t(hub)) != HubConfig::kCore)
            {
                // Their updates stop at the edge aggregator: no clients.csv rows to charge.
                errors.push_back(path + ": the group's sites report to an edge aggregator (" +
                                 "network.hubs[].aggregator), whose sites have no clients.csv " +
                                 "rows to charge");
                break;
            }
        }
        if (group.energy->Idle() && config.server.async)
        {
            errors.push_back(path + ".idle_w: server.mode \"async\" has no rounds to be idle in " +
                             "(give compute_w, tx_w and rx_w only)");
        }
    }
}

void
RecordEnergy(nlohmann::json& scenario, const ScenarioConfig& config)
{
    nlohmann::json& groups = scenario.at("clients").at("groups");
    for (size_t i = 0; i < groups.size() && i < config.groups.size(); ++i)
    {
        const std::optional<EnergySpec>& spec = config.groups[i].energy;
        if (!spec)
        {
            groups[i].erase("energy"); // the validator's empty default: no energy
            continue;
        }
        nlohmann::json& energy = groups[i]["energy"];
        energy["compute_w"] = spec->computeW;
        energy["tx_w"] = spec->txW;
        energy["rx_w"] = spec->rxW;
        if (spec->Idle())
        {
            energy["idle_w"] = spec->idleW;
        }
    }
}

} // namespace fedran
