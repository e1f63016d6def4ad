#ifndef FEDRAN_SIMULATOR_SCENARIO_CONFIG_READERS_H
#define FEDRAN_SIMULATOR_SCENARIO_CONFIG_READERS_H

// Pieces of ToConfig shared between its source files. Each reader appends one line per
// problem to `errors`, starting with the JSON path, and reads a validated scenario only.

#include "simulator/scenario/scenario.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fedran
{

/// A count the schema bounds from below only, as the 32-bit typed field it goes into.
/// The codec spec at `path`, checked; empty (and the error in `errors`) if it is not valid.
CodecSpec ReadCodecSpec(const nlohmann::json& spec,
                        const std::string& path,
                        std::vector<std::string>& errors);

uint32_t ReadUint32(const nlohmann::json& value,
                    const std::string& path,
                    std::vector<std::string>& errors);

/// The keys every link model shares (type, rate, delay, loss; `spec` the whole object, `path`
/// its JSON path); the model reads the rest from `spec` itself. No background.
LinkConfig ReadLink(const nlohmann::json& link, const std::string& path);

/// backhaul.background of a validated backhaul object at `path`; nullopt without one.
std::optional<BackgroundConfig> ReadBackground(const nlohmann::json& backhaul,
                                               const std::string& path,
                                               std::vector<std::string>& errors);

/**
 * network.hubs and clients.groups[].hub (config.groups already read): expands families,
 * resolves parents and each group's hubs, and reports a duplicate name, an unknown parent or
 * hub, a loop and a hub link or group that cannot be one (lte).
 */
void ReadHubs(const nlohmann::json& scenario,
              ScenarioConfig& config,
              std::vector<std::string>& errors);

/// output.pcap and output.flowmon, for a scenario of `clients` clients and config.network.hubs.
void ReadCaptureOutputs(const nlohmann::json& output,
                        uint64_t clients,
                        ScenarioConfig& config,
                        std::vector<std::string>& errors);

/// clients.groups[].compute at `path`: cores, codec_speed and the cost profile (a file that
/// cannot be read or is malformed is an error naming the key; absent: the reference's).
DeviceCompute ReadClientCompute(const nlohmann::json& compute,
                                const std::string& path,
                                std::vector<std::string>& errors);
/// server.compute of a validated server object.
DeviceCompute ReadServerCompute(const nlohmann::json& server, std::vector<std::string>& errors);

/// training.pipelining against the uplink codec and server.mode (both already read).
void CheckPipelining(const ScenarioConfig& config, std::vector<std::string>& errors);

/// dgc's mode "step" (its default) anywhere but a site's own uplink codec, and what does not
/// fit it there (training.momentum, layerwise pipelining, model-poisoning attacks).
void CheckDgcStepMode(const ScenarioConfig& config, std::vector<std::string>& errors);

/// server.robust (absent: "mean") of a validated server object: its type must be registered;
/// its keys are the rule's to check (CheckRobust).
RuleSpec ReadRobust(const nlohmann::json& server, std::vector<std::string>& errors);

/// clients.groups[].attack at `path` (checks that each key is the type's own).
AttackConfig ReadAttack(const nlohmann::json& attack,
                        const std::string& path,
                        std::vector<std::string>& errors);

/// network.hubs[].aggregator, onto the hubs ReadHubs expanded.
void ReadAggregators(const nlohmann::json& scenario,
                     ScenarioConfig& config,
                     std::vector<std::string>& errors);
/// Edge aggregation against the rest of the scenario (mode, codecs, attacks, the tiers'
/// clients_per_round against their direct children); needs everything else read.
void CheckAggregators(const nlohmann::json& scenario,
                      const ScenarioConfig& config,
                      std::vector<std::string>& errors);

/// server.selection (absent: "random") of a validated server object: its type must be
/// registered; its keys are the policy's to check (CheckSelection).
SelectionSpec ReadSelection(const nlohmann::json& server, std::vector<std::string>& errors);
/// server.selection's keys, and the modes a policy other than "random" does not run in
/// (async, edge aggregation, layerwise pipelining).
void CheckSelection(const ScenarioConfig& config, std::vector<std::string>& errors);

/// server.robust against the uplink codec and clients_per_round (CheckRobustRule).
void CheckRobust(const ScenarioConfig& config, std::vector<std::string>& errors);
/// server.mode and server.async; refuses what async mode cannot do (needs the codecs and
/// compression.downlink_reference already read).
void ReadAsync(const nlohmann::json& server,
               ScenarioConfig& config,
               std::vector<std::string>& errors);
/// privacy.dp (the server, the codecs and the hubs already read): refuses what cannot clip
/// each site's update or combines other than by the mean.
void ReadPrivacy(const nlohmann::json& scenario,
                 ScenarioConfig& config,
                 std::vector<std::string>& errors);
/// privacy.secure_aggregation (after privacy.dp): its keys, and what cannot compose with
/// masked sums (codecs with supports of their own, votes, robust rules, async, edge
/// aggregators, over-selection, loss reports, adaptive links, layerwise buckets).
void ReadSecureAggregation(const nlohmann::json& scenario,
                           ScenarioConfig& config,
                           std::vector<std::string>& errors);
/// faults (config.groups and config.network.hubs already read): resolves group and hub names.
void ReadFaults(const nlohmann::json& scenario,
                ScenarioConfig& config,
                std::vector<std::string>& errors);

/// clients.groups[].energy (presets resolved) and server.energy; refuses energy for the sites
/// behind an edge aggregator and idle_w in async mode (needs hubs, aggregators and the mode
/// read).
void ReadEnergy(const nlohmann::json& scenario,
                ScenarioConfig& config,
                std::vector<std::string>& errors);
/// Makes run.json record the powers used (a preset's values filled in), and no energy object
/// for a group without one.
void RecordEnergy(nlohmann::json& scenario, const ScenarioConfig& config);

/// "data", "model" and "training" (needs config.rounds already read, for the cosine schedule).
void ReadLearning(const nlohmann::json& scenario,
                  ScenarioConfig& config,
                  std::vector<std::string>& errors);

/**
 * Makes the resolved scenario record what the learning keys actually mean: the model with its
 * type's defaults, and no "data.synthetic" or "data.cell_traffic" block unless that dataset is
 * used (the validator
 * fills it in for every scenario).
 */
void RecordLearning(nlohmann::json& scenario, const ScenarioConfig& config);

/// Refuses, by name, features defined on class labels (a label_flip attack) when the dataset
/// is a forecasting one ("cell-traffic"). Label partitions are refused when "data" is read.
void CheckLearningTask(const ScenarioConfig& config, std::vector<std::string>& errors);

} // namespace fedran

#endif
