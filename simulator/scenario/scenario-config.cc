// Typed settings from a validated scenario, plus the checks that involve several keys and so
// can't be written in the schema.

#include "compression/adaptive-ladder.h"
#include "compression/codec-spec.h"
#include "models/fl/downlink-rungs.h"
#include "models/fl/level-policy.h"
#include "models/fl/rate-controller.h"
#include "models/link-config/link-types.h"
#include "simulator/scenario/config-readers.h"
#include "simulator/scenario/scenario.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace fedran
{

namespace
{

using nlohmann::json;

constexpr uint64_t kMaxUint32 = std::numeric_limits<uint32_t>::max();

} // namespace

LinkConfig
ReadLink(const nlohmann::json& link, const std::string& path)
{
    LinkConfig config;
    config.type = link.at("type").get<std::string>();
    config.rateBps = link.contains("rate") ? ParseDataRate(link.at("rate").get<std::string>()) : 0;
    config.delayS = link.contains("delay") ? ParseTime(link.at("delay").get<std::string>()) : 0.0;
    config.loss = link.value("loss", 0.0);
    config.rateDownBps =
        link.contains("rate_down") ? ParseDataRate(link.at("rate_down").get<std::string>()) : 0;
    config.delayDownS =
        link.contains("delay_down") ? ParseTime(link.at("delay_down").get<std::string>()) : -1.0;
    config.spec = link;
    config.path = path;
    return config;
}

namespace
{

/// A group's compute.samples_per_second: a number, or a distribution whose own keys the
/// schema lists but can't tie to "dist".
ComputeSpeedSpec
ReadComputeSpeed(const json& value, const std::string& path, std::vector<std::string>& errors)
{
    ComputeSpeedSpec spec;
    if (value.is_number())
    {
        spec.value = value.get<double>();
        return spec;
    }
    const std::string dist = value.at("dist").get<std::string>();
    const std::map<std::string, std::vector<std::string>> keys = {
        {"lognormal", {"median", "sigma"}},
        {"uniform", {"min", "max"}},
        {"tiers", {"tiers"}},
    };
    const std::vector<std::string>& needed = keys.at(dist);
    for (const auto& [key, unused] : value.items())
    {
        if (key != "dist" && std::find(needed.begin(), needed.end(), key) == needed.end())
        {
            errors.push_back(path + "." + key + ": not a parameter of dist \"" + dist + "\"");
        }
    }
    bool complete = true;
    for (const std::string& key : needed)
    {
        if (!value.contains(key))
        {
            errors.push_back(path + "." + key + ": missing (dist \"" + dist + "\" needs it)");
            complete = false;
        }
    }
    if (!complete)
    {
        return spec;
    }
    if (dist == "lognormal")
    {
        spec.kind = ComputeSpeedSpec::Kind::Lognormal;
        spec.median = value.at("median").get<double>();
        spec.sigma = value.at("sigma").get<double>();
    }
    else if (dist == "uniform")
    {
        spec.kind = ComputeSpeedSpec::Kind::Uniform;
        spec.min = value.at("min").get<double>();
        spec.max = value.at("max").get<double>();
        if (spec.max < spec.min)
        {
            errors.push_back(path + ".max: " + value.at("max").dump() + " is below min (" +
                             value.at("min").dump() + ")");
        }
    }
    else
    {
        spec.kind = ComputeSpeedSpec::Kind::Tiers;
        double total = 0.0;
        for (const json& tier : value.at("tiers"))
        {
            spec.tiers.push_back(
                {tier.at("samples_per_second").get<double>(), tier.at("share").get<double>()});
            total += spec.tiers.back().share;
        }
        if (std::abs(total - 1.0) > 1e-6)
        {
            errors.push_back(path + ".tiers: the shares sum to " + std::to_string(total) +
                             ", not 1");
        }
    }
    return spec;
}

AvailabilityConfig
ReadAvailability(const json& value, const std::string& path, std::vector<std::string>& errors)
{
    AvailabilityConfig config;
    const bool onOff = value.contains("mean_on_s") || value.contains("mean_off_s");
    if (value.contains("dropout") && onOff)
    {
        errors.push_back(path + ": give either dropout or mean_on_s and mean_off_s, not both");
        return config;
    }
    if (value.contains("dropout"))
    {
        config.dropout = value.at("dropout").get<double>();
    }
    else if (onOff)
    {
        for (const char* key : {"mean_on_s", "mean_off_s"})
        {
            if (!value.contains(key))
            {
                errors.push_back(path + "." + key +
                                 ": missing (the on/off process needs mean_on_s and mean_off_s)");
                return config;
            }
        }
        config.meanOnS = value.at("mean_on_s").get<double>();
        config.meanOffS = value.at("mean_off_s").get<double>();
    }
    return config;
}

ScenarioConfig
ReadConfig(const json& scenario, std::vector<std::string>& errors)
{
    ScenarioConfig config;
    config.name = scenario.at("name").get<std::string>();
    config.seed = scenario.at("seed").get<uint64_t>();
    config.rounds = ReadUint32(scenario.at("rounds"), "rounds", errors);

    ReadLearning(scenario, config, errors);

    const json& server = scenario.at("server");
    config.server.clientsPerRound =
        ReadUint32(server.at("clients_per_round"), "server.clients_per_round", errors);
    config.server.overSelect = server.at("over_select").get<double>();
    config.server.deadlineS = server.at("deadline_s").get<double>();
    config.server.joinWindowS = server.at("join_window_s").get<double>();
    config.server.joinTimeoutS = server.at("join_timeout_s").get<double>();
    ServerOptimizerConfig& optimizer = config.server.optimizer;
    optimizer.method = server.at("aggregation").get<std::string>();
    optimizer.lr = server.contains("server_lr")    ? server.at("server_lr").get<double>()
                   : optimizer.method == "fedadam" ? 0.01
                                                   : 1.0;
    optimizer.momentum = server.at("server_momentum").get<double>();
    optimizer.beta1 = server.at("server_beta1").get<double>();
    optimizer.beta2 = server.at("server_beta2").get<double>();
    optimizer.tau = server.at("server_tau").get<double>();
    config.server.robust = ReadRobust(server, errors);
    config.server.selection = ReadSelection(server, errors);
    config.server.compute = ReadServerCompute(server, errors);

    const json& groups = scenario.at("clients").at("groups");
    for (size_t i = 0; i < groups.size(); ++i)
    {
        const json& group = groups[i];
        const std::string path = "clients.groups." + std::to_string(i);
        ClientGroupConfig groupConfig;
        groupConfig.name = group.at("name").get<std::string>();
        groupConfig.count = ReadUint32(group.at("count"), path + ".count", errors);
        groupConfig.compute = ReadComputeSpeed(group.at("compute").at("samples_per_second"),
                                               path + ".compute.samples_per_second",
                                               errors);
        groupConfig.device = ReadClientCompute(group.at("compute"), path + ".compute", errors);
        if (group.contains("availability"))
        {
            groupConfig.availability =
                ReadAvailability(group.at("availability"), path + ".availability", errors);
        }
        if (group.contains("attack"))
        {
            groupConfig.attack = ReadAttack(group.at("attack"), path + ".attack", errors);
        }
        groupConfig.backhaul = ReadLink(group.at("backhaul"), path + ".backhaul");
        groupConfig.backhaul.background =
            ReadBackground(group.at("backhaul"), path + ".backhaul", errors);
        config.groups.push_back(std::move(groupConfig));
    }

    const json& network = scenario.at("network");
    config.network.coreRateBps = ParseDataRate(network.at("core").at("rate").get<std::string>());
    config.network.coreDelayS = ParseTime(network.at("core").at("delay").get<std::string>());
    const json& queue = network.at("core").at("queue");
    config.network.coreQueue = queue.at("discipline").get<std::string>();
    config.network.coreQueuePackets =
        ReadUint32(queue.at("packets"), "network.core.queue.packets", errors);
    const json& routerQueue = network.at("router").at("queue");
    config.network.routerQueue = routerQueue.at("discipline").get<std::string>();
    config.network.routerQueuePackets =
        ReadUint32(routerQueue.at("packets"), "network.router.queue.packets", errors);
    config.network.transport = network.at("transport").get<std::string>();
    config.network.flowPorts = network.at("flow_ports").get<std::string>();
    const json& tcp = network.at("tcp");
    config.network.tcp.congestionControl = tcp.at("congestion_control").get<std::string>();
    config.network.tcp.initialWindow =
        ReadUint32(tcp.at("initial_window"), "network.tcp.initial_window", errors);
    config.network.tcp.delayedAck = tcp.at("delayed_ack").get<bool>();
    config.network.tcp.sack = tcp.at("sack").get<bool>();
    ReadHubs(scenario, config, errors);
    ReadAggregators(scenario, config, errors);

    // A level policy without a ladder gets its QSGD levels (models/fl/level-policy.h).
    config.uplinkCodec =
        ReadCodecSpec(control::WithLevelLadder(scenario.at("compression").at("uplink")),
                      "compression.uplink",
                      errors);
    config.downlinkCodec =
        ReadCodecSpec(scenario.at("compression").at("downlink"), "compression.downlink", errors);
    config.downlinkClientView =
        scenario.at("compression").at("downlink_reference").get<std::string>() == "client_view";
    ReadAsync(server, config, errors);
    CheckPipelining(config, errors);

    const json& output = scenario.at("output");
    config.outputDir =
        output.contains("dir") ? output.at("dir").get<std::string>() : "results/" + config.name;
    config.linkSampleS = output.at("link_sample_s").get<double>();
    uint64_t clients = 0;
    for (const ClientGroupConfig& group : config.groups)
    {
        clients += group.count;
    }
    ReadCaptureOutputs(output, clients, config, errors);
    ReadFaults(scenario, config, errors);
    ReadEnergy(scenario, config, errors);
    ReadPrivacy(scenario, config, errors);
    ReadSecureAggregation(scenario, config, errors);
    return config;
}

/// What the transport cannot do that the scenario asks of it (models/link-config/link-types.h).
void
CheckTransport(const ScenarioConfig& config, std::vector<std::string>& errors)
{
    const TransportTraits* transport = FindTransport(config.network.transport);
    if (transport == nullptr)
    {
        return; // the schema lists the transports
    }
    const std::string name = "network.transport \"" + config.network.transport + "\"";
    // A transport that moves no packets leaves nothing to capture.
    if (!transport->carriesPackets && !config.pcapLinks.empty())
    {
        errors.push_back("output.pcap: " + name +
                         " carries no packets; packet captures need a "
                         "transport that does (\"tcp\")");
    }
    if (!transport->carriesPackets && config.flowmon)
    {
        errors.push_back("output.flowmon: " + name +
                         " carries no packets; FlowMonitor needs a "
                         "transport that does (\"tcp\")");
    }
    if (transport->needsLinkDelayAndLoss)
    {
        // Each link model says whether it can state them (link-types.h); none is assumed
        // lossless. Hub families share one backhaul object: one message per path.
        std::set<std::string> refused;
        auto check = [&](const LinkConfig& link) {
            const LinkTypeTraits* type = FindLinkType(link.type);
            if (type != nullptr && !type->noDelayAndLossBecause.empty() &&
                refused.insert(link.path).second)
            {
                errors.push_back(link.path + ".type: " + name +
                                 " needs each link's one-way delay and loss per direction, "
                                 "which link type \"" +
                                 link.type + "\" cannot state (" +
                                 std::string(type->noDelayAndLossBecause) +
                                 "; use the \"tcp\" transport)");
            }
        };
        for (const ClientGroupConfig& group : config.groups)
        {
            check(group.backhaul);
        }
        for (const auto& hub : config.network.hubs)
        {
            check(hub.backhaul);
        }
    }
    if (transport->fixedTcpBecause.empty())
    {
        return;
    }
    // TCP settings it does not model are refused rather than ignored.
    const auto& tcpConfig = config.network.tcp;
    const std::string why = std::string(transport->fixedTcpBecause);
    if (tcpConfig.congestionControl != "cubic")
    {
        errors.push_back("network.tcp.congestion_control: " + name +
                         " models no congestion "
                         "control but fair sharing (" +
                         why +
                         "; use \"cubic\", the default, "
                         "or the \"tcp\" transport)");
    }
    if (!tcpConfig.delayedAck || !tcpConfig.sack)
    {
        errors.push_back(std::string("network.tcp.") +
                         (!tcpConfig.delayedAck ? "delayed_ack" : "sack") + ": " + name +
                         " does not model it (" + why + "; use the \"tcp\" transport)");
    }
}

/// Checks across keys: a count that fits each group but not their sum, selection larger
/// than the population, and group names that would collide in node names and statistics.
void
CheckCrossFields(const ScenarioConfig& config, std::vector<std::string>& errors)
{
    uint64_t total = 0;
    std::map<std::string, size_t> firstIndex;
    for (size_t i = 0; i < config.groups.size(); ++i)
    {
        total += config.groups[i].count;
        auto [it, inserted] = firstIndex.emplace(config.groups[i].name, i);
        if (!inserted)
        {
            errors.push_back("clients.groups." + std::to_string(i) + ".name: \"" +
                             config.groups[i].name + "\" is already the name of clients.groups." +
                             std::to_string(it->second));
        }
    }
    if (total > kMaxUint32)
    {
        errors.push_back("clients.groups: " + std::to_string(total) +
                         " clients in total; at most " + std::to_string(kMaxUint32));
    }
    else if (config.server.clientsPerRound > total)
    {
        errors.push_back(
            "server.clients_per_round: " + std::to_string(config.server.clientsPerRound) +
            " is more than the number of clients (" + std::to_string(total) +
            " in clients.groups)");
    }
}

/// What a level policy's protocol (models/fl/level-policy.h) does not carry.
void
CheckLevelPolicy(const ScenarioConfig& config, std::vector<std::string>& errors)
{
    const std::string policy = config.uplinkCodec.Json().at("policy").get<std::string>();
    const std::string prefix = "compression.uplink.policy: \"" + policy + "\" ";
    if (config.server.async)
    {
        errors.push_back(prefix + "runs in synchronous rounds (server.mode \"sync\")");
    }
    if (config.training.pipelining.layerwise)
    {
        errors.push_back(prefix + "sends whole updates (training.pipelining is layerwise)");
    }
    if (config.Hierarchical())
    {
        errors.push_back(prefix + "needs the server to see every update (network.hubs[] " +
                         "has an aggregator)");
    }
}

/// What an adaptive downlink (models/fl/downlink-rungs.h) cannot be combined with. Edge
/// aggregation is refused where the tiers' codecs are checked (aggregator-config.cc).
void
CheckAdaptiveDownlink(const ScenarioConfig& config, std::vector<std::string>& errors)
{
    const CodecSpec& down = config.downlinkCodec;
    try
    {
        control::ParseDownlinkConfig(down.Json(), down.Path());
    }
    catch (const CodecConfigError& e)
    {
        errors.push_back(e.what());
    }
    const std::string prefix = "compression.downlink.type: \"adaptive\" ";
    if (config.server.async)
    {
        errors.push_back(prefix + "chooses each round's rungs together, which server.mode "
                                  "\"async\" has no rounds for (use \"sync\")");
    }
    if (config.training.pipelining.layerwise)
    {
        errors.push_back(prefix + "needs the download report at the end of a whole update; "
                                  "training.pipelining.mode \"layerwise\" sends it in buckets");
    }
    if (config.server.selection.Traits().polls)
    {
        errors.push_back(prefix + "chooses each client's rung when the round's model goes out; "
                                  "server.selection.variant \"pow-d\" sends it earlier, with "
                                  "the poll (use a fixed downlink codec)");
    }
    const CodecSpec& up = config.uplinkCodec;
    if (!up.Empty() && up.TwoExchanges())
    {
        errors.push_back(prefix +
                         "needs the download report at the end of a one-exchange "
                         "update; compression.uplink.type " +
                         up.Type() + " takes two exchanges per round");
    }
    if (!config.downlinkClientView)
    {
        // With "model" one encoding goes to every client, so a rung's per-client state (an
        // error-feedback residual) would be shared, i.e. wrong for all of them.
        for (const CodecSpec& rung : down.Children())
        {
            if (rung.KeepsState())
            {
                errors.push_back(rung.Path() + ": " + rung.Label() +
                                 " keeps a state per receiving client, which needs "
                                 "compression.downlink_reference \"client_view\" (with "
                                 "\"model\" every client gets the same encoding)");
            }
        }
    }
}

/// What the uplink and downlink codecs may not be (their specs were checked as they were read).
void
CheckCodecs(const ScenarioConfig& config, std::vector<std::string>& errors)
{
    const CodecSpec& down = config.downlinkCodec;
    if (down.TwoExchanges())
    {
        errors.push_back("compression.downlink.type: " + down.Type() +
                         " takes two exchanges per round (clients send P, the server answers, "
                         "clients send Q) and works on the uplink only");
    }
    else if (!down.Empty() && down.Traits().adaptive)
    {
        CheckAdaptiveDownlink(config, errors);
    }
    const CodecSpec& up = config.uplinkCodec;
    if (!up.Empty() && up.Traits().adaptive)
    {
        try
        {
            control::ParseControllerConfig(up.Json(), up.Path(), up.Children().size());
            if (control::IsLevelPolicy(up.Json()))
            {
                control::ParseLevelPolicy(up.Json(), up.Path(), config.rounds);
                CheckLevelPolicy(config, errors);
            }
        }
        catch (const CodecConfigError& e)
        {
            errors.push_back(e.what());
        }
    }
}

} // namespace

CodecSpec
ReadCodecSpec(const json& spec, const std::string& path, std::vector<std::string>& errors)
{
    // The schema checks only a codec spec's "type"; parsing it here turns a mistyped codec
    // parameter into a scenario error at load time rather than a failure mid-setup.
    try
    {
        return CodecSpec::Parse(spec, path);
    }
    catch (const CodecConfigError& e)
    {
        errors.push_back(e.what());
        return CodecSpec();
    }
}

uint32_t
ReadUint32(const json& value, const std::string& path, std::vector<std::string>& errors)
{
    const uint64_t number = value.get<uint64_t>();
    if (number > kMaxUint32)
    {
        errors.push_back(path + ": " + value.dump() + " is too large (at most " +
                         std::to_string(kMaxUint32) + ")");
        return 0;
    }
    return static_cast<uint32_t>(number);
}

uint32_t
ScenarioConfig::TotalClients() const
{
    // ToConfig has checked that the sum fits.
    uint32_t total = 0;
    for (const ClientGroupConfig& group : groups)
    {
        total += group.count;
    }
    return total;
}

ScenarioConfig
ToConfig(const nlohmann::json& resolved)
{
    // Validating again is cheap and idempotent, and makes ToConfig safe on any input: the
    // reads below may then assume every key is present and well typed.
    json scenario = resolved;
    ValidateScenario(scenario);

    std::vector<std::string> errors;
    ScenarioConfig config;
    try
    {
        config = ReadConfig(scenario, errors);
    }
    catch (const std::exception& e)
    {
        // Unreachable after validation unless schema and reader disagree.
        throw ScenarioError(std::string("scenario does not match the reader: ") + e.what());
    }
    CheckCrossFields(config, errors);
    CheckTransport(config, errors);
    CheckCodecs(config, errors);
    CheckDgcStepMode(config, errors);
    CheckLearningTask(config, errors);
    if (errors.empty())
    {
        CheckRobust(config, errors); // needs codecs that build
        CheckSelection(config, errors);
        CheckAggregators(scenario, config, errors);
    }
    if (!errors.empty())
    {
        std::string message;
        for (const std::string& line : errors)
        {
            message += (message.empty() ? "" : "\n") + line;
        }
        throw ScenarioError(message);
    }
    // run.json records the values actually used where the default depends on other keys.
    scenario["output"]["dir"] = config.outputDir;
    scenario["server"]["server_lr"] = config.server.optimizer.lr;
    RecordLearning(scenario, config);
    RecordEnergy(scenario, config);
    if (config.dp.adaptive.enabled)
    {
        scenario["privacy"]["dp"]["adaptive_clipping"]["clipped_count_stddev"] =
            config.dp.adaptive.countStddev;
    }
    config.resolved = std::move(scenario);
    return config;
}

} // namespace fedran
