#ifndef FEDRAN_SIMULATOR_FL_STATS_COLLECTOR_H
#define FEDRAN_SIMULATOR_FL_STATS_COLLECTOR_H

#include "models/ns3/model/fl-client-app.h"
#include "models/ns3/model/fl-edge-app.h"
#include "models/ns3/model/fl-server-app.h"
#include "simulator/csv-writer.h"
#include "simulator/network-topology.h"
#include "models/learning/byzantine-config.h"

#include <ns3/packet.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/// Totals over the whole run, for run.json and the progress line.
struct RunTotals
{
    uint32_t rounds = 0;
    double finalAccuracy = 0.0;
    double simTimeS = 0.0;
    uint64_t uplinkPayloadBytes = 0;
    uint64_t downlinkPayloadBytes = 0;
    uint64_t uplinkWireBytes = 0;
    uint64_t downlinkWireBytes = 0;
    uint32_t clientsJoined = 0;   ///< clients joined when the first round started
    uint32_t clientsExpected = 0; ///< clients on at time 0, whom the first round waited for
    double joinTimeS = 0.0;       ///< when the first round started
    /// Packets the access links transmitted, both directions (background traffic excluded):
    /// the per-site packet count behind the benchmark's packets per wall second.
    uint64_t accessPackets = 0;

    /// Wall-clock cost of the run (run.json "timing"; never in the traces, which stay
    /// byte-identical between runs).
    struct Timing
    {
        double prepareWallS = 0.0;  ///< loading and partitioning the data, building the model
        double setupWallS = 0.0;    ///< building network and applications, before the first event
        double joinWallS = 0.0;     ///< first event to the first round's start
        double simulateWallS = 0.0; ///< first event to the last
        std::vector<double> roundWallS; ///< each round's wall time (round 1 from the join)
        /// CPU seconds of the whole process (all threads) over the same spans: on a loaded
        /// machine wall time includes waiting for a core, CPU time does not.
        double simulateCpuS = 0.0;
        std::vector<double> roundCpuS;
        uint64_t events = 0; ///< simulator events executed
    } timing;
    /// The signal (SIGINT, SIGTERM) that stopped the run before its last round; 0 if none.
    int stopSignal = 0;
};

/**
 * Turns the applications' trace sources and the backhaul devices' transmissions into
 * rounds.csv and clients.csv (columns in simulator/trace-columns.cc, documented in
 * docs/traces.md), written out and fsynced at every round's end, before the next round
 * starts. A late client's row (`late`) is written when its round ends; if its discarded
 * update arrives later, a `late_arrival` row for the same round and client records when.
 *
 * Byte accounting is by time: a round's columns count what was sent while it was open
 * (from the previous round's end, or time 0, to its own end). Payload bytes are whole
 * frames handed to the transport; wire bytes are what the backhaul devices transmitted
 * (PPP, IP and TCP headers, retransmissions and ACKs included), uplink at the client end,
 * downlink at the router end, so that the core link is not counted twice.
 */
class FlStatsCollector
{
  public:
    FlStatsCollector(const std::string& outDir,
                     const std::vector<std::string>& clientGroupNames,
                     const std::string& uplinkCodec);

    /// Fills the adaptive-bitrate columns (rung ... skipped), empty otherwise.
    void SetAdaptive(bool adaptive)
    {
        m_adaptive = adaptive;
    }

    /// Per client id, its attack (FederatedTask::attacks; empty: nobody), for the attack column.
    void SetAttacks(std::vector<fedran::AttackConfig> attacks)
    {
        m_attacks = std::move(attacks);
    }

    /// With `counters` (a transport that carries no packets) the wire bytes are that
    /// transport's counts of the clients' links instead of the devices' transmissions.
    /// server.mode async: a clients.csv row per trip (model sent to update arrived), written
    /// with the server step the update counted in.
    void SetAsync(bool async)
    {
        m_async = async;
    }

    void Connect(Ptr<FlServerApp> server,
                 const std::vector<Ptr<FlClientApp>>& clients,
                 const NetworkTopology& topology,
                 const TransportLinkCounters* counters = nullptr);

    /// Edge aggregation: an aggregating hub, a child (of the server or of another hub) with
    /// the id it joins with. Its rows in clients.csv (when the server selects it) have the
    /// hub's name as `group` and its parent hub's as `hub`; its update frames and the model
    /// frames it sends its children count in rounds.csv's payload columns.
    void ConnectAggregator(Ptr<FlEdgeApp> aggregator,
                           uint32_t id,
                           const std::string& name,
                           const std::string& parentHub);

    const RunTotals& Totals() const
    {
        return m_totals;
    }

    /// Called after each round's rows are written, with the totals so far.
    using RoundObserver = std::function<void(const fedran::RoundRecord&, const RunTotals&)>;

    void SetRoundObserver(RoundObserver observer)
    {
        m_observer = std::move(observer);
    }

    /// Ends the run: rows of an unfinished round are not written.
    void Finish();

  private:
    struct ClientRow
    {
        double modelReceivedS = -1.0;
        double uploadStartS = -1.0;
        double uploadEndS = -1.0;
        double computeS = -1.0;
        double encodeS = -1.0;
        double decodeS = -1.0;
        double trainLoss = 0.0;
        double updateNorm = 0.0;
        double gradVariance = 0.0;
        uint64_t rawBytes = 0;
        uint64_t payloadBytes = 0;
        int64_t predictedPayloadBytes = -1; ///< adaptive: the chosen rung's trial frame
        uint64_t downlinkBytes = 0;
        fedran::UpdateFate fate = fedran::UpdateFate::Late;
        bool arrived = false;
        bool skipped = false;
        bool crashed = false; ///< faults.crashes: the site crashed while training
        int rung = -1;
        double predictedBps = -1.0;
        double measuredBps = -1.0;
        double timeBudgetS = -1.0;
        double aggregateWeight = -1.0; ///< < 0: not aggregated
        int64_t modelVersion = -1; ///< async: the version trained from
        int64_t staleness = -1;    ///< async: versions the server moved on meanwhile
    };

    /// The row of (round, client) if it is still open: of the current round, or late.
    ClientRow* FindRow(uint32_t round, uint32_t client);
    void WriteClientRow(uint32_t round, uint32_t client, const ClientRow& row, const char* status);
    void ModelSent(uint32_t round, uint32_t client, uint64_t frameBytes);
    void ModelReceived(uint32_t round, uint32_t client, uint64_t frameBytes);
    /// An edge aggregator's model frame to one of its children.
    void EdgeModelSent(uint32_t round, uint32_t client, uint64_t frameBytes);
    void UpdateSent(const fedran::UpdateSentRecord& record);
    void Crashed(uint32_t round, uint32_t client);
    void UpdateArrival(const fedran::UpdateArrivalRecord& record);
    void RoundEnded(const fedran::RoundRecord& record);
    void AddAdaptiveColumns(const ClientRow& row);
    /// Async: an update arrived (or its client was lost): its row is complete.
    void TripEnded(const fedran::UpdateArrivalRecord& record);
    void UplinkTx(Ptr<const Packet> packet);
    void DownlinkTx(Ptr<const Packet> packet);

    std::vector<std::string> m_groupNames;
    std::vector<std::string> m_clientHubs; ///< per client: its hub's name, "" for the router
    std::string m_uplinkCodec;
    bool m_adaptive = false;
    std::vector<fedran::AttackConfig> m_attacks;
    size_t m_adaptiveColumns = 0; ///< clients.csv's columns from rung on
    std::unique_ptr<fedran::CsvWriter> m_rounds;
    std::unique_ptr<fedran::CsvWriter> m_clients;
    std::map<uint32_t, ClientRow> m_current; ///< rows of the open round, by client
    /// Rows of late clients, by (round, client), until their update arrives (late_arrival).
    std::map<std::pair<uint32_t, uint32_t>, ClientRow> m_late;
    uint32_t m_currentRound = 0;
    bool m_async = false;
    /// Async: open trips, by (model's round, client).
    std::map<std::pair<uint32_t, uint32_t>, ClientRow> m_trips;

    // Counters since the last round ended.
    uint64_t m_uplinkPayload = 0;
    uint64_t m_downlinkPayload = 0;
    uint64_t m_uplinkWire = 0;
    uint64_t m_downlinkWire = 0;
    RunTotals m_totals;
    RoundObserver m_observer;
    const TransportLinkCounters* m_counters = nullptr;
    uint64_t m_countedUplink = 0;   ///< with counters: their reading at the last round end
    uint64_t m_countedDownlink = 0;
};

} // namespace ns3

#endif
