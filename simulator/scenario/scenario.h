#ifndef FEDRAN_SIMULATOR_SCENARIO_SCENARIO_H
#define FEDRAN_SIMULATOR_SCENARIO_SCENARIO_H

// Reading a scenario: parse the JSON file, apply --set overrides, validate against
// scenarios/scenario.schema.json (compiled in), fill defaults, and extract typed settings.
// Every error is a ScenarioError whose message names the JSON path or the file; the CLI
// maps it to exit status 2. ScenarioError, LinkConfig and the units of rates and times live
// in models/link-config/, which the link models read too.

#include "compression/codec-spec.h"
#include "models/fl/byzantine-config.h"
#include "models/fl/energy-model.h"
#include "models/fl/federated-task.h"
#include "models/fl/rule-spec.h"
#include "models/fl/secagg/secagg-config.h"
#include "models/fl/selection-policy.h"
#include "models/fl/staleness.h"
#include "models/learning/client-sizes.h"
#include "models/learning/compute-speed.h"
#include "models/learning/csv-reader.h"
#include "models/learning/local-trainer.h"
#include "models/learning/server-optimizer.h"
#include "models/learning/synthetic-clients.h"
#include "models/learning/traffic-windows.h"
#include "models/link-config/link-config.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fedran
{

/// When a group's clients can take part (clients.groups[].availability).
struct AvailabilityConfig
{
    double dropout = 0.0;  ///< per-round probability that a selected client leaves
    double meanOnS = 0.0;  ///< on/off process: mean on period; 0 without the process
    double meanOffS = 0.0; ///< on/off process: mean off period

    bool OnOff() const
    {
        return meanOnS > 0.0;
    }
};

struct ClientGroupConfig
{
    std::string name;
    uint32_t count = 0;
    ComputeSpeedSpec compute; ///< samples per second, fixed or drawn per client
    DeviceCompute device;     ///< compute.cores, codec_speed and profile
    AvailabilityConfig availability;
    AttackConfig attack; ///< clients.groups[].attack; type empty: honest
    /// clients.groups[].energy, a preset resolved; none without (docs/energy.md).
    std::optional<EnergySpec> energy;
    LinkConfig backhaul;
    /// clients.groups[].hub: the hubs (indices into Network::hubs) the group's clients hang
    /// off in turn (client j of the group: hubs[j % size]); empty: the aggregation router.
    std::vector<uint32_t> hubs;
};

/// One hub of network.hubs, a family's members expanded (<name>-0 ... <name>-(count-1)).
/// network.hubs[].aggregator: an edge aggregator at the hub site (docs/hierarchical.md).
struct AggregatorConfig
{
    uint32_t edgeRounds = 1;
    uint32_t clientsPerRound = 1;
    double deadlineS = 60.0;
    CodecSpec uplinkCodec;   ///< the hub's update to its parent
    CodecSpec downlinkCodec; ///< the edge model to its children
};

struct HubConfig
{
    static constexpr int32_t kCore = -1; ///< parent: the aggregation router

    std::string name;       ///< the hub's own name (a member's: "<family>-k")
    std::string family;     ///< the network.hubs entry's name
    int32_t parent = kCore; ///< index into Network::hubs, or kCore
    LinkConfig backhaul;    ///< the link to the parent; uplink is what the hub sends
    std::optional<AggregatorConfig> aggregator; ///< absent: the hub only routes
};

/// faults.link_outages and faults.server_outages entries (docs/reliability.md).
struct OutageConfig
{
    std::vector<uint32_t> clients; ///< link_outages with a group: its clients
    std::vector<uint32_t> hubs;    ///< link_outages with a hub: indices into network.hubs
    double startS = 0.0;
    double durationS = 0.0;
};

/// faults: what is injected (all zero or empty: nothing).
struct FaultsConfig
{
    double corruptUplink = 0.0;
    std::vector<OutageConfig> linkOutages;
    std::vector<OutageConfig> serverOutages;
    /// faults.crashes, per group (index into ScenarioConfig::groups); 0 for groups without.
    std::vector<double> crashProbability;
    std::vector<double> crashRestartS;
};

struct ScenarioConfig
{
    std::string name;
    uint64_t seed = 1;
    uint32_t rounds = 0;

    struct Data
    {
        std::string dataset;  ///< "fashion-mnist" | "mnist" | "csv" | "synthetic" | "cell-traffic"
        std::string path;     ///< folder with the four IDX files (gzipped or not)
        std::string csvTrain; ///< csv: training file
        std::string csvTest;  ///< csv: test file
        CsvOptions csv;       ///< csv: label column, header, separator, scaling

        /// data.synthetic: the generator's settings (testClients only on demand).
        struct Synthetic : SyntheticSpec
        {
            bool onDemand = false; ///< generate "on_demand" (else "upfront")
        } synthetic;

        /// cell-traffic: where the series come from and how examples are cut from them.
        struct CellTraffic
        {
            std::string format = "synthetic"; ///< "synthetic" | "milan"
            std::string path;                 ///< milan: folder of the daily files
            std::string signal = "internet";  ///< milan: "internet" | "sms" | "call" | "all"
            uint32_t cells = 16;              ///< synthetic: generated; milan: first N (0 all)
            uint32_t days = 28;               ///< synthetic
            uint64_t seed = 0;                ///< synthetic: generator seed (0: the scenario's)
            ForecastWindows windows;
        } cellTraffic;

        std::string partition; ///< "iid" | "dirichlet" | "shards" | "by_cell"
        double alpha = 0.5;    ///< dirichlet concentration
        uint32_t minSamples = 10;
        uint32_t shardsPerClient = 2;
        SizeSpec sizes; ///< iid: quantity skew (kind and sigma)
    } data;

    std::string modelType; ///< "softmax" | "mlp" | "cnn"
    nlohmann::json model;  ///< the "model" object with its type's defaults, for MakeModel

    /// Local training, checked (ValidateTrainingConfig); totalRounds is `rounds`.
    TrainingConfig training;

    struct Server
    {
        uint32_t clientsPerRound = 0;
        double overSelect = 1.0; ///< select ceil(overSelect * clientsPerRound) each round
        double deadlineS = 60.0;
        double joinWindowS = 1.0;        ///< clients connect at uniform instants in [0, this)
        double joinTimeoutS = 30.0;      ///< the first round starts by then at the latest
        ServerOptimizerConfig optimizer; ///< "aggregation" and the server_* settings
        RuleSpec robust;                 ///< server.robust (absent: type "mean")
        SelectionSpec selection;         ///< server.selection (absent: type "random")
        bool async = false;              ///< server.mode "async"
        AsyncConfig asyncConfig;         ///< server.async
        DeviceCompute compute;           ///< server.compute
        /// server.energy.compute_w; none without.
        std::optional<double> energyComputeW;
    } server;

    std::vector<ClientGroupConfig> groups;

    struct Network
    {
        uint64_t coreRateBps = 0;
        double coreDelayS = 0.0;
        std::string coreQueue = "fifo";    ///< network.core.queue.discipline
        uint32_t coreQueuePackets = 100;   ///< network.core.queue.packets
        std::string routerQueue = "fifo";  ///< network.router.queue.discipline
        uint32_t routerQueuePackets = 100; ///< network.router.queue.packets
        std::string transport;             ///< "tcp"
        /// network.flow_ports: "packet" runs overflowing drop-tail ports of the flow
        /// transport at packet level; "fluid" (default) keeps them in the flow model.
        std::string flowPorts = "fluid";
        /// network.tcp: TCP on every host (ConfigureBackhaulTcp).
        struct Tcp
        {
            std::string congestionControl = "cubic";
            uint32_t initialWindow = 10; ///< segments
            bool delayedAck = true;
            bool sack = true;
        } tcp;
        /// network.hubs, expanded; every parent chain ends at the router (no loops).
        std::vector<HubConfig> hubs;
    } network;

    CodecSpec uplinkCodec; ///< checked when read (empty if it failed: the error is reported)
    CodecSpec downlinkCodec;
    bool downlinkClientView = false; ///< compression.downlink_reference == "client_view"

    std::string outputDir;
    double linkSampleS = 1.0; ///< output.link_sample_s: links.csv period; 0 = no links.csv
    /// output.pcap: the link directions to capture, named as in links.csv ("core-up",
    /// "client-3-down"), in that order; empty: no pcap files.
    std::vector<std::string> pcapLinks;
    bool flowmon = false; ///< output.flowmon: write flowmon.xml

    FaultsConfig faults;
    DpConfig dp; ///< privacy.dp (mode empty: none)
    /// privacy.secure_aggregation (type empty: none).
    SecAggConfig secagg;

    /// The whole scenario after overrides and defaults: what run.json records.
    nlohmann::json resolved;

    uint32_t TotalClients() const;

    /// Per client (numbered group by group): the hub it hangs off, HubConfig::kCore for the
    /// aggregation router.
    std::vector<int32_t> ClientHubs() const;
    /// The nearest hub with an aggregator at or above `hub` (following parents), or
    /// HubConfig::kCore: where the traffic of what hangs off `hub` is aggregated.
    int32_t AggregatorAt(int32_t hub) const;
    /// Whether any hub has an aggregator.
    bool Hierarchical() const;
};

/// Reads and parses a JSON file; syntax errors name the file, line and column.
nlohmann::json ReadScenarioFile(const std::string& file);

/**
 * Applies one "--set" override "a.b.0.c=VALUE". VALUE is parsed as JSON when it is valid
 * JSON (numbers, true/false/null, quoted strings, arrays, objects) and taken as a plain
 * string otherwise (so rate=10Mbps works). Missing object keys are created; array indices
 * must exist (or equal the size, to append).
 */
void ApplyOverride(nlohmann::json& scenario, const std::string& assignment);

/**
 * Validates against the compiled-in schema and fills defaults in place. Unknown keys are
 * errors that suggest the nearest known key.
 */
void ValidateScenario(nlohmann::json& scenario);

/// Typed settings from a validated scenario, with the cross-field checks the schema can't
/// express (clients_per_round <= clients, ...).
ScenarioConfig ToConfig(const nlohmann::json& resolved);

/// The compiled-in JSON Schema (scenarios/scenario.schema.json).
const nlohmann::json& ScenarioSchema();

} // namespace fedran

#endif
