#ifndef FEDRAN_SIMULATOR_FL_EXPERIMENT_H
#define FEDRAN_SIMULATOR_FL_EXPERIMENT_H

#include "models/fl/federated-task.h"
#include "models/fl/trace-records.h"
#include "models/ns3/helper/fl-client-helper.h"
#include "models/ns3/helper/fl-stats-helper.h"
#include "models/ns3/model/client-availability.h"
#include "simulator/scenario/scenario.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * One simulation run of a scenario: loads the data, partitions it, builds the network,
 * installs the server and client applications, runs every round and writes the traces.
 */
class FlExperiment
{
  public:
    /// Called after each round with the round's record and the totals so far.
    using RoundObserver = FlStatsHelper::RoundObserver;

    /// `threads`: workers for the clients' local training (0: one per hardware thread). It
    /// changes wall time only: results are identical for any value.
    explicit FlExperiment(fedran::ScenarioConfig config, unsigned threads = 1);

    /// Loads and partitions the data and builds the model. Throws fedran::DataError for a
    /// missing or malformed dataset, before anything is written.
    void Prepare();

    /// Simulates every round, writing rounds.csv and clients.csv into `outDir` (which must
    /// exist). Throws std::runtime_error if the run cannot finish. A SIGINT or SIGTERM
    /// (StopSignals) stops it early: the totals then count the complete rounds and name the
    /// signal (`stopSignal`).
    RunTotals Run(const std::string& outDir, RoundObserver observer = {});

    const fedran::FederatedTask& Task() const
    {
        return *m_task;
    }

    /// Group index of each client, in client order.
    const std::vector<uint32_t>& ClientGroups() const
    {
        return m_clientGroup;
    }

    /// Training speed of each client (examples per simulated second), in client order.
    const std::vector<double>& SamplesPerSecond() const
    {
        return m_samplesPerSecond;
    }

  private:
    /// What Run builds, step by step; defined in fl-experiment.cc.
    struct RunState;

    // Run's steps, in order.
    /// TCP settings, random seeds, the message transport and the network.
    void BuildNetwork(RunState& run) const;
    /// The server application and the edge tiers.
    void InstallServer(RunState& run) const;
    /// A client application per site (partition.csv).
    void InstallClients(RunState& run) const;
    /// Fixed random streams, the server's join, the edge aggregators (population.csv).
    void AssignStreamsAndInstallAggregators(RunState& run) const;
    /// The traces: statistics, link samples, captures; outages; the end of the run.
    void ConnectTraces(RunState& run, RoundObserver observer) const;
    void Simulate(RunState& run) const;
    /// The run's totals and timing; ends the simulation (Simulator::Destroy).
    RunTotals CollectTotals(RunState& run) const;

    /// rounds.csv, clients.csv and edge_rounds.csv (part of ConnectTraces).
    void ConnectStats(RunState& run) const;
    /// The client helper of the sites that report to `tier`, made on first use.
    FlClientHelper& ClientHelperFor(RunState& run, int32_t tier) const;
    /// Client i's on/off and dropout process (null: always on), as its group says.
    Ptr<ClientAvailability> MakeAvailability(RunState& run, uint32_t i) const;

    fedran::ScenarioConfig m_config;
    std::shared_ptr<fedran::FederatedTask> m_task;
    std::vector<uint32_t> m_clientGroup;
    std::vector<double> m_samplesPerSecond; ///< per client, drawn from its group's spec
    unsigned m_threads;
    double m_prepareWallS = 0.0; ///< wall time of Prepare, for run.json's timing
};

} // namespace ns3

#endif
