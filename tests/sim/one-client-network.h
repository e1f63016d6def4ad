#ifndef FEDRAN_TESTS_SIM_ONE_CLIENT_NETWORK_H
#define FEDRAN_TESTS_SIM_ONE_CLIENT_NETWORK_H

// For tests that build their own ns-3 network (a NetworkTopology with a single client) rather
// than run a scenario through the fedran executable.

#include "simulator/scenario/scenario.h"

#include <string>

namespace fedran::test
{

/// fedran's TCP settings (1448-byte segments, 4 MiB socket buffers), as FlExperiment sets them.
void SetFedranTcpDefaults();

/// One group of one client on a p2p backhaul of `rate` and one-way `delayS`, behind a core
/// link of `coreRate` and `coreDelayS`.
ScenarioConfig OneClientConfig(const std::string& rate,
                               double delayS,
                               const std::string& coreRate,
                               double coreDelayS);

} // namespace fedran::test

#endif
