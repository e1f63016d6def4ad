#ifndef FEDRAN_SIMULATOR_RUN_MANIFEST_H
#define FEDRAN_SIMULATOR_RUN_MANIFEST_H

#include "simulator/fl-stats-collector.h"
#include "simulator/scenario/scenario.h"

#include <string>

namespace ns3
{

/**
 * Writes OUT/run.json: the resolved scenario, seed, fedran version, wall time and totals.
 * It is written last and atomically (temporary file, then rename), so a complete run.json
 * marks a finished run.
 */
void WriteRunManifest(const std::string& outDir,
                      const fedran::ScenarioConfig& config,
                      const RunTotals& totals,
                      double wallSeconds);

/// The version compiled into this build ("0.1.0+<git describe>").
const char* FedranVersion();

} // namespace ns3

#endif
