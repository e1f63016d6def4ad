// server.selection: reading it, and the checks the schema cannot make (a key of another
// policy, a setting a policy refuses, a mode a policy does not run in).

#include "simulator/scenario/config-readers.h"

#include <string>

namespace fedran
{

SelectionSpec
ReadSelection(const nlohmann::json& server, std::vector<std::string>& errors)
{
    if (!server.contains("selection"))
    {
        return SelectionSpec{};
    }
    try
    {
        return SelectionSpec::Parse(server.at("selection"), "server.selection");
    }
    catch (const RuleConfigError& e)
    {
        errors.push_back(e.what());
    }
    return SelectionSpec{};
}

void
CheckSelection(const ScenarioConfig& config, std::vector<std::string>& errors)
{
    const SelectionSpec& spec = config.server.selection;
    try
    {
        MakeSelectionPolicy(spec,
                            SelectionContext{1,
                                             config.rounds,
                                             config.server.deadlineS,
                                             WantedClients(config.server.overSelect,
                                                           config.server.clientsPerRound)});
    }
    catch (const RuleConfigError& e)
    {
        errors.push_back(e.what());
        return;
    }
    if (spec.IsRandom())
    {
        return;
    }
    const std::string what = spec.path + ".type: \"" + spec.type + "\" ";
    // Each refusal names the key that cannot apply (docs/selection.md).
    if (config.server.async)
    {
        errors.push_back(what + "selects the clients of a synchronous round; server.mode is "
                                "\"async\" (only \"random\")");
    }
    if (config.Hierarchical())
    {
        errors.push_back(what + "is not supported with edge aggregation "
                                "(network.hubs[].aggregator): only \"random\"");
    }
    if (config.training.pipelining.layerwise)
    {
        errors.push_back(what + "measures whole update frames; training.pipelining is "
                                "\"layerwise\" (only \"random\")");
    }
}

} // namespace fedran
