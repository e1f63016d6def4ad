#include "simulator/run-manifest.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace ns3
{

const char*
FedranVersion()
{
    return FEDRAN_VERSION;
}

void
WriteRunManifest(const std::string& outDir,
                 const fedran::ScenarioConfig& config,
                 const RunTotals& totals,
                 double wallSeconds)
{
    nlohmann::ordered_json manifest;
    manifest["fedran_version"] = FedranVersion();
    manifest["name"] = config.name;
    manifest["seed"] = config.seed;
    manifest["wall_time_s"] = wallSeconds;
    manifest["result"] = {{"rounds", totals.rounds},
                          {"final_test_accuracy", totals.finalAccuracy},
                          {"sim_time_s", totals.simTimeS},
                          {"uplink_payload_bytes", totals.uplinkPayloadBytes},
                          {"downlink_payload_bytes", totals.downlinkPayloadBytes},
                          {"uplink_wire_bytes", totals.uplinkWireBytes},
                          {"downlink_wire_bytes", totals.downlinkWireBytes},
                          {"clients_joined", totals.clientsJoined},
                          {"clients_expected", totals.clientsExpected},
                          {"join_time_s", totals.joinTimeS},
                          {"access_packets", totals.accessPackets}};
    // Wall-clock figures vary between runs; everything else in run.json does not.
    manifest["timing"] = {{"prepare_wall_s", totals.timing.prepareWallS},
                          {"setup_wall_s", totals.timing.setupWallS},
                          {"join_wall_s", totals.timing.joinWallS},
                          {"simulate_wall_s", totals.timing.simulateWallS},
                          {"round_wall_s", totals.timing.roundWallS},
                          {"events", totals.timing.events}};
    manifest["files"] = {"rounds.csv", "clients.csv", "partition.csv"};
    manifest["scenario"] = config.resolved;

    const std::string path = outDir + "/run.json";
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << manifest.dump(2) << '\n';
        if (!out)
        {
            throw std::runtime_error("cannot write " + tmp);
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
    {
        throw std::runtime_error("cannot rename " + tmp + " to " + path);
    }
}

} // namespace ns3
