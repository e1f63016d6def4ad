#ifndef FEDRAN_SIMULATOR_RUN_MANIFEST_H
#define FEDRAN_SIMULATOR_RUN_MANIFEST_H

#include "models/trace/run-totals.h"
#include "simulator/core/version.h"
#include "simulator/scenario/scenario.h"

#include <nlohmann/json.hpp>

#include <string>

namespace ns3
{

using fedran::RunTotals;

/// What run.json says of the run (its "status").
enum class RunStatus
{
    Running,     ///< written when the run starts; left as it is by a kill (SIGKILL, power)
    Completed,   ///< every round ran
    Interrupted, ///< stopped by SIGINT or SIGTERM after `result.rounds` complete rounds
    Failed,      ///< ended by an error (a write that failed, a full disk): "error" says which
};

/**
 * Writes OUT/run.json: the status, the resolved scenario, seed, fedran version and, unless
 * running, wall time and totals. It is written when the run starts ("running") and replaced
 * atomically (temporary file, fsync, rename) when it ends, so run.json is always whole and a
 * "completed" one marks a finished run. `note` names what interrupted the run (the signal) or
 * why it failed (the error). `estimate` is the run's estimated needs (RunEstimate::ToJson).
 * `dataReport`'s keys (FederatedTask::dataReport) are copied to the top level when not null.
 */
void WriteRunManifest(const std::string& outDir,
                      const fedran::ScenarioConfig& config,
                      RunStatus status,
                      const RunTotals& totals = {},
                      double wallSeconds = 0.0,
                      const std::string& note = "",
                      const nlohmann::json& estimate = nullptr,
                      const nlohmann::json& dataReport = nullptr);

using fedran::FedranVersion;

} // namespace ns3

#endif
