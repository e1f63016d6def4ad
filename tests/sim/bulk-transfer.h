#ifndef FEDRAN_TESTS_SIM_BULK_TRANSFER_H
#define FEDRAN_TESTS_SIM_BULK_TRANSFER_H

// Bulk TCP transfers over the simulator's topology, timed: every client sends `bytes` to the
// server, or the server to every client, as soon as the client's link is ready (time 0 but for
// lte; ns-3 BulkSend to a PacketSink, the simulator's TCP settings).

#include "simulator/scenario/scenario.h"

#include <cstdint>

namespace fedran::test
{

struct BulkResult
{
    double startS = 0.0;      ///< when the last upload started (its link's ReadyS())
    double doneS = -1.0;      ///< when the server had every byte of every client (-1: never)
    uint64_t coreDrops = 0;   ///< packets the core queue dropped
    uint64_t serverDrops = 0; ///< packets the server's own queues dropped
};

/// All clients of `config` (one group) upload `bytes` each, starting when their links are ready.
BulkResult RunBulkUploads(const ScenarioConfig& config, uint64_t bytes, double stopS = 120.0);

/// The server sends `bytes` to every client of `config`, starting when their links are ready.
BulkResult RunBulkDownloads(const ScenarioConfig& config, uint64_t bytes, double stopS = 120.0);

/// A scenario config with `clients` p2p clients of the given rate and delay and a core link.
ScenarioConfig BulkConfig(uint32_t clients,
                          const std::string& rate,
                          const std::string& delay,
                          const std::string& coreRate,
                          const std::string& coreDelay);

} // namespace fedran::test

#endif
