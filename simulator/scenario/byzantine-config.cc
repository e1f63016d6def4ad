// server.robust and clients.groups[].attack: reading them, and the checks the schema cannot
// make (a rule's key of another type, a rule inadmissible for clients_per_round or
// meaningless for the uplink codec, an attack's missing setting).

#include "models/fl/aggregation-rule.h"
#include "simulator/scenario/config-readers.h"

#include <string>

namespace fedran
{

RuleSpec
ReadRobust(const nlohmann::json& server, std::vector<std::string>& errors)
{
    if (!server.contains("robust"))
    {
        return RuleSpec{};
    }
    try
    {
        return RuleSpec::Parse(server.at("robust"), "server.robust");
    }
    catch (const RuleConfigError& e)
    {
        errors.push_back(e.what());
    }
    return RuleSpec{};
}

AttackConfig
ReadAttack(const nlohmann::json& attack, const std::string& path, std::vector<std::string>& errors)
{
    AttackConfig config;
    config.type = attack.at("type").get<std::string>();
    // A key of another type is not an error: one object may carry the settings of every
    // type a sweep over attack.type goes through (scenarios/sweeps/byzantine.json).
    config.startRound = ReadUint32(attack.at("start_round"), path + ".start_round", errors);
    if (config.type == "scaled" && !attack.contains("scale"))
    {
        errors.push_back(path + ".scale: missing (a scaled attack sends scale x its update)");
    }
    if (config.type == "gaussian" && !attack.contains("sigma"))
    {
        errors.push_back(path + ".sigma: missing (a gaussian attack sends N(0, sigma^2) noise)");
    }
    config.scale = attack.value("scale", 1.0);
    config.sigma = attack.value("sigma", 1.0);
    config.epsilon = attack.value("epsilon", 0.1);
    if (attack.contains("z"))
    {
        config.z = attack.at("z").get<double>();
    }
    return config;
}

void
CheckRobust(const ScenarioConfig& config, std::vector<std::string>& errors)
{
    try
    {
        CheckRobustRule(config.server.robust,
                        config.uplinkCodec,
                        // In async mode a rule combines one step's buffer of K updates.
                        config.server.async ? config.server.asyncConfig.buffer
                                            : config.server.clientsPerRound);
    }
    catch (const RuleConfigError& e)
    {
        errors.push_back(e.what());
    }
    // A robust rule's combination is on the server's clock, priced by its profile.
    const auto& profile = config.server.compute.profile;
    const std::string& rule = config.server.robust.type;
    if (!config.server.robust.Traits().foldsOnArrival && profile && !profile->ruleWorkS.count(rule))
    {
        errors.push_back("server.compute.profile: has no server.rules." + rule +
                         " for server.robust.type \"" + rule +
                         "\" (fedran calibrate writes every rule's)");
    }
}

} // namespace fedran
