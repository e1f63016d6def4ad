// server.mode and server.async: asynchronous FL's settings, and what async mode refuses.

#include "compression/codec-spec.h"
#include "simulator/scenario/config-readers.h"

namespace fedran
{

void
ReadAsync(const nlohmann::json& server, ScenarioConfig& config, std::vector<std::string>& errors)
{
    config.server.async = server.at("mode").get<std::string>() == "async";
    if (!config.server.async)
    {
        return;
    }
    AsyncConfig& async = config.server.asyncConfig;
    if (!server.contains("async"))
    {
        errors.push_back("server.async: missing; server.mode \"async\" needs its buffer and "
                         "concurrency");
        return;
    }
    {
        const nlohmann::json& spec = server.at("async");
        async.buffer = spec.at("buffer").get<uint32_t>();
        async.concurrency = spec.at("concurrency").get<uint32_t>();
        const nlohmann::json& staleness = spec.at("staleness");
        async.staleness.kind = ParseStalenessKind(staleness.at("type").get<std::string>());
        async.staleness.a = staleness.at("a").get<double>();
        async.staleness.b = staleness.at("b").get<double>();
        if (spec.contains("max_staleness"))
        {
            async.maxStaleness = spec.at("max_staleness").get<uint32_t>();
        }
    }
    // Cross-key refusals: each names the key that cannot apply.
    if (config.server.overSelect > 1.0)
    {
        errors.push_back("server.over_select: over-selection closes a synchronous round early; "
                         "async mode has no rounds to close (server.mode is \"async\")");
    }
    if (config.uplinkCodec.TwoExchanges())
    {
        errors.push_back("compression.uplink.type: " + config.uplinkCodec.Type() +
                         " needs a synchronous round (two exchanges between the server and "
                         "every selected client); server.mode is \"async\"");
    }
    if (config.downlinkClientView)
    {
        errors.push_back("compression.downlink_reference: \"client_view\" is not supported in "
                         "async mode (server.mode is \"async\"); use \"model\"");
    }
    uint64_t clients = 0;
    for (const ClientGroupConfig& group : config.groups)
    {
        clients += group.count;
    }
    if (async.concurrency > clients)
    {
        errors.push_back("server.async.concurrency: " + std::to_string(async.concurrency) +
                         " sites training at once, but there are " + std::to_string(clients) +
                         " in clients.groups");
    }
}

} // namespace fedran
