#ifndef FEDRAN_MODELS_NS3_HELPER_FL_STATS_HELPER_H
#define FEDRAN_MODELS_NS3_HELPER_FL_STATS_HELPER_H

#include "models/fl/byzantine-config.h"
#include "models/ns3/model/backhaul-link.h"
#include "models/ns3/model/fl-client-app.h"
#include "models/ns3/model/fl-edge-app.h"
#include "models/ns3/model/fl-server-app.h"
#include "models/ns3/model/transport-topology.h"
#include "models/trace/fl-trace-writer.h"
#include "models/trace/run-totals.h"

#include <ns3/net-device.h>
#include <ns3/packet.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

using fedran::RunTotals;

/**
 * Turns the applications' trace sources and the access links' transmissions into
 * rounds.csv and clients.csv (columns in models/trace/trace-columns.cc, documented in
 * docs/traces.md), written out and fsynced at every round's end, before the next round
 * starts. A late client's row (`late`) is written when its round ends; if its discarded
 * update arrives later, a `late_arrival` row for the same round and client records when.
 * It needs the applications and the clients' access links only, so any ns-3 program that
 * installs fedran's applications can write the same traces as `fedran run`:
 *
 *     FlStatsHelper stats(outDir, groupOfEachClient, "none");
 *     stats.Connect(server, clients);
 *     for (uint32_t i = 0; i < clients.size(); ++i)
 *         stats.ConnectClientDevices(clientDevice[i], routerDevice[i]);
 *     Simulator::Run();
 *     stats.Finish();
 *
 * Byte accounting is by time: a round's columns count what was sent while it was open
 * (from the previous round's end, or time 0, to its own end). Payload bytes are whole
 * frames handed to the transport; wire bytes are what the access links transmitted
 * (PPP, IP and TCP headers, retransmissions and ACKs included), uplink at the client end,
 * downlink at the network end, so that the core link is not counted twice.
 */
class FlStatsHelper
{
  public:
    /// Opens outDir/rounds.csv and outDir/clients.csv; client i's `group` column is
    /// clientGroupNames[i], every row's `codec` is `uplinkCodec`.
    /// `selectionScores`: clients.csv has the selection_score column (FlTraceWriter).
    FlStatsHelper(const std::string& outDir,
                  const std::vector<std::string>& clientGroupNames,
                  const std::string& uplinkCodec,
                  bool selectionScores = false);

    /// Fills the adaptive-bitrate columns (rung ... skipped), empty otherwise.
    void SetAdaptive(bool adaptive)
    {
        m_writer.SetAdaptive(adaptive);
    }

    /// Per client id, its attack (FederatedTask::attacks; empty: nobody), for the attack column.
    void SetAttacks(std::vector<fedran::AttackConfig> attacks)
    {
        m_writer.SetAttacks(std::move(attacks));
    }

    /// The energy model (docs/energy.md): per client id its powers (nullopt: none), and the
    /// server's compute power (nullopt: none).
    void SetEnergy(std::vector<std::optional<fedran::EnergySpec>> clients,
                   std::optional<double> serverComputeW)
    {
        m_writer.SetEnergy(std::move(clients), serverComputeW);
    }

    /// server.mode async: a clients.csv row per trip (model sent to update arrived), written
    /// with the server step the update counted in.
    void SetAsync(bool async)
    {
        m_async = async;
        m_writer.SetAsync(async);
    }

    /// The server's and the clients' trace sources; clientHubs[i] is the `hub` column of
    /// client i ("" or missing: none).
    void Connect(Ptr<FlServerApp> server,
                 const std::vector<Ptr<FlClientApp>>& clients,
                 const std::vector<std::string>& clientHubs = {});

    /// Counts the wire bytes of a client's access link: what its client end transmits
    /// (uplink) and what its network end transmits (downlink).
    void ConnectClientLink(const InstalledLink& link);

    /// The same for a point-to-point link of a program's own: `clientEnd`'s and
    /// `networkEnd`'s transmitted packets (their PhyTxEnd trace sources).
    void ConnectClientDevices(Ptr<NetDevice> clientEnd, Ptr<NetDevice> networkEnd);

    /// A transport that carries no packets: the wire bytes are its counts of the clients'
    /// links (read at each round's end) instead of the devices' transmissions.
    void SetLinkCounters(const TransportLinkCounters* counters)
    {
        m_counters = counters;
    }

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
    using ClientRow = fedran::ClientRow;

    /// The row of (round, client) if it is still open: of the current round, or late.
    ClientRow* FindRow(uint32_t round, uint32_t client);
    void ModelSent(uint32_t round, uint32_t client, uint64_t frameBytes);
    /// clients.csv downlink_codec: the codec of the model frame sent to `client`.
    void ModelCodec(uint32_t round, uint32_t client, const std::string& downlinkCodec);
    void ModelReceived(uint32_t round, uint32_t client, uint64_t frameBytes);
    /// An edge aggregator's model frame to one of its children.
    void EdgeModelSent(uint32_t round, uint32_t client, uint64_t frameBytes);
    void UpdateSent(const fedran::UpdateSentRecord& record);
    void Crashed(uint32_t round, uint32_t client);
    /// pow-d: a candidate's loss reply, counted in the round's uplink payload.
    void LossReplied(uint32_t round, uint32_t client, uint64_t frameBytes);
    void UpdateArrival(const fedran::UpdateArrivalRecord& record);
    void RoundEnded(const fedran::RoundRecord& record);
    /// Async: an update arrived (or its client was lost): its row is complete.
    void TripEnded(const fedran::UpdateArrivalRecord& record);
    void UplinkTx(Ptr<const Packet> packet);
    void DownlinkTx(Ptr<const Packet> packet);

    fedran::FlTraceWriter m_writer;
    std::map<uint32_t, ClientRow> m_current; ///< rows of the open round, by client
    /// Rows of late clients, by (round, client), until their update arrives (late_arrival).
    std::map<std::pair<uint32_t, uint32_t>, ClientRow> m_late;
    uint32_t m_currentRound = 0;
    bool m_async = false;
    /// Async: open trips, by (model's round, client).
    std::map<std::pair<uint32_t, uint32_t>, ClientRow> m_trips;

    fedran::RoundBytes m_round; ///< counters since the last round ended
    RunTotals m_totals;
    RoundObserver m_observer;
    const TransportLinkCounters* m_counters = nullptr;
    uint64_t m_countedUplink = 0; ///< with counters: their reading at the last round end
    uint64_t m_countedDownlink = 0;
};

} // namespace ns3

#endif
