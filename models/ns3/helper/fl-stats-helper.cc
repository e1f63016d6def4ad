#include "models/ns3/helper/fl-stats-helper.h"

#include "models/ns3/model/background-source.h"

#include <ns3/callback.h>
#include <ns3/simulator.h>

#include <algorithm>

namespace ns3
{

FlStatsHelper::FlStatsHelper(const std::string& outDir,
                             const std::vector<std::string>& clientGroupNames,
                             const std::string& uplinkCodec,
                             bool selectionScores)
    : m_writer(outDir, clientGroupNames, uplinkCodec, selectionScores)
{
}

void
FlStatsHelper::Connect(Ptr<FlServerApp> server,
                       const std::vector<Ptr<FlClientApp>>& clients,
                       const std::vector<std::string>& clientHubs)
{
    server->TraceConnectWithoutContext("ModelSent", MakeCallback(&FlStatsHelper::ModelSent, this));
    server->TraceConnectWithoutContext("ModelCodec",
                                       MakeCallback(&FlStatsHelper::ModelCodec, this));
    server->TraceConnectWithoutContext("UpdateArrival",
                                       MakeCallback(&FlStatsHelper::UpdateArrival, this));
    server->TraceConnectWithoutContext("RoundEnded",
                                       MakeCallback(&FlStatsHelper::RoundEnded, this));
    m_writer.SetClientHubs(clientHubs);
    for (const Ptr<FlClientApp>& client : clients)
    {
        client->TraceConnectWithoutContext("ModelReceived",
                                           MakeCallback(&FlStatsHelper::ModelReceived, this));
        client->TraceConnectWithoutContext("UpdateSent",
                                           MakeCallback(&FlStatsHelper::UpdateSent, this));
        client->TraceConnectWithoutContext("Crashed", MakeCallback(&FlStatsHelper::Crashed, this));
        client->TraceConnectWithoutContext("LossReplied",
                                           MakeCallback(&FlStatsHelper::LossReplied, this));
    }
}

void
FlStatsHelper::ConnectClientLink(const InstalledLink& link)
{
    link.ConnectTransmitted(LinkDirection::Uplink, MakeCallback(&FlStatsHelper::UplinkTx, this));
    link.ConnectTransmitted(LinkDirection::Downlink,
                            MakeCallback(&FlStatsHelper::DownlinkTx, this));
}

void
FlStatsHelper::ConnectClientDevices(Ptr<NetDevice> clientEnd, Ptr<NetDevice> networkEnd)
{
    // As PointToPointInstalledLink::ConnectTransmitted: a packet counts once it is sent.
    clientEnd->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&FlStatsHelper::UplinkTx, this));
    networkEnd->TraceConnectWithoutContext("PhyTxEnd",
                                           MakeCallback(&FlStatsHelper::DownlinkTx, this));
}

void
FlStatsHelper::ConnectAggregator(Ptr<FlEdgeApp> aggregator,
                                 uint32_t id,
                                 const std::string& name,
                                 const std::string& parentHub)
{
    m_writer.SetChild(id, name, parentHub);
    aggregator->TraceConnectWithoutContext("ModelReceived",
                                           MakeCallback(&FlStatsHelper::ModelReceived, this));
    aggregator->TraceConnectWithoutContext("UpdateSent",
                                           MakeCallback(&FlStatsHelper::UpdateSent, this));
    aggregator->TraceConnectWithoutContext("ModelSent",
                                           MakeCallback(&FlStatsHelper::EdgeModelSent, this));
}

void
FlStatsHelper::EdgeModelSent(uint32_t, uint32_t, uint64_t frameBytes)
{
    m_round.downlinkPayload += frameBytes;
}

void
FlStatsHelper::ModelCodec(uint32_t round, uint32_t client, const std::string& downlinkCodec)
{
    // Fired right after ModelSent for the same frame, so the row (or trip) exists.
    ClientRow& row = m_async ? m_trips[{round, client}] : m_current[client];
    row.downlinkCodec = downlinkCodec;
}

void
FlStatsHelper::ModelSent(uint32_t round, uint32_t client, uint64_t frameBytes)
{
    if (m_async)
    {
        // A trip: from the model sent to the update's arrival, keyed by the model's round.
        ClientRow& trip = m_trips[{round, client}];
        trip.downlinkBytes += frameBytes;
        if (trip.modelSentS < 0.0)
        {
            trip.modelSentS = Simulator::Now().GetSeconds();
        }
        m_round.downlinkPayload += frameBytes;
        return;
    }
    m_currentRound = round;
    ClientRow& row = m_current[client];
    row.downlinkBytes += frameBytes; // a two-exchange codec sends more than one
    if (row.modelSentS < 0.0)
    {
        row.modelSentS = Simulator::Now().GetSeconds(); // the download starts with the first
    }
    m_round.downlinkPayload += frameBytes;
}

void
FlStatsHelper::ModelReceived(uint32_t round, uint32_t client, uint64_t)
{
    if (m_async)
    {
        if (ClientRow* row = FindRow(round, client))
        {
            row->modelReceivedS = Simulator::Now().GetSeconds();
        }
        return;
    }
    if (round == m_currentRound && m_current.count(client))
    {
        m_current[client].modelReceivedS = Simulator::Now().GetSeconds();
    }
}

FlStatsHelper::ClientRow*
FlStatsHelper::FindRow(uint32_t round, uint32_t client)
{
    if (m_async)
    {
        auto it = m_trips.find({round, client});
        return it == m_trips.end() ? nullptr : &it->second;
    }
    if (round == m_currentRound)
    {
        auto it = m_current.find(client);
        return it == m_current.end() ? nullptr : &it->second;
    }
    auto it = m_late.find({round, client});
    return it == m_late.end() ? nullptr : &it->second;
}

void
FlStatsHelper::Crashed(uint32_t round, uint32_t client)
{
    if (ClientRow* row = FindRow(round, client))
    {
        row->crashed = true; // the server only sees its connection reset
    }
}

void
FlStatsHelper::LossReplied(uint32_t, uint32_t, uint64_t frameBytes)
{
    // Selection traffic: in the round's uplink payload, not in any client's update row
    // (docs/selection.md).
    m_round.uplinkPayload += frameBytes;
}

void
FlStatsHelper::UpdateSent(const fedran::UpdateSentRecord& record)
{
    m_round.uplinkPayload += record.frameBytes;
    ClientRow* found = FindRow(record.round, record.client);
    if (!found)
    {
        return;
    }
    ClientRow& row = *found;
    if (record.reply)
    {
        row.payloadBytes += record.frameBytes; // the second exchange of a two-exchange codec
        row.encodeS = std::max(row.encodeS, 0.0) + record.encodeS;
        return;
    }
    row.uploadStartS = Simulator::Now().GetSeconds();
    row.computeS = record.computeS;
    row.encodeS = record.encodeS;
    row.trainLoss = record.trainLoss;
    row.updateNorm = record.updateNorm;
    row.gradVariance = record.gradVariance;
    row.rawBytes = record.rawBytes;
    row.codec = record.codecLabel;
    row.payloadBytes += record.frameBytes;
    row.predictedPayloadBytes = record.predictedPayloadBytes;
    row.rung = record.rung;
    row.skipped = record.skipped;
    row.predictedBps = record.predictedBps;
    row.measuredBps = record.measuredBps;
    row.timeBudgetS = record.timeBudgetS;
}

void
FlStatsHelper::UpdateArrival(const fedran::UpdateArrivalRecord& record)
{
    if (m_async)
    {
        TripEnded(record);
        return;
    }
    if (record.round != m_currentRound)
    {
        // A straggler's update, discarded: its `late` row went out when its round ended;
        // the arrival gets a row of its own, written with the current round's rows.
        auto it = m_late.find({record.round, record.client});
        if (it != m_late.end() && record.fate == fedran::UpdateFate::Late)
        {
            it->second.uploadEndS = Simulator::Now().GetSeconds();
            m_writer.WriteClientRow(record.round, record.client, it->second, "late_arrival");
            m_late.erase(it);
        }
        return;
    }
    auto it = m_current.find(record.client);
    if (it == m_current.end())
    {
        return;
    }
    ClientRow& row = it->second;
    row.arrived = true;
    row.fate = record.fate;
    row.skipped = row.skipped || record.skipped;
    // Late within its own round: a two-exchange codec's first payload after the first
    // ClientsPerRound had closed the first phase.
    if (record.fate == fedran::UpdateFate::Accepted || record.fate == fedran::UpdateFate::Late)
    {
        row.uploadEndS = Simulator::Now().GetSeconds();
    }
    row.decodeS = record.decodeS;
}

void
FlStatsHelper::TripEnded(const fedran::UpdateArrivalRecord& record)
{
    auto it = m_trips.find({record.round, record.client});
    if (it == m_trips.end())
    {
        return;
    }
    ClientRow& row = it->second;
    row.arrived = true;
    row.fate = record.fate;
    row.skipped = row.skipped || record.skipped;
    row.modelVersion = record.modelVersion;
    row.staleness = record.staleness;
    row.decodeS = record.decodeS;
    if (record.staleness >= 0)
    {
        row.uploadEndS = Simulator::Now().GetSeconds(); // the update did arrive
    }
    // Its row belongs to the server step it counted in (or was discarded at).
    m_writer.WriteClientRow(record.step,
                            record.client,
                            row,
                            row.crashed ? "crashed" : fedran::ClientStatus(row.fate, true));
    m_trips.erase(it);
}

void
FlStatsHelper::Finish()
{
    // Late rows were written when their rounds ended; arrivals not seen by now never came.
    m_late.clear();
    // Async: sites still training when the last step was taken.
    for (const auto& [key, row] : m_trips)
    {
        m_writer.WriteClientRow(key.first, key.second, row, "late");
    }
    m_trips.clear();
    m_writer.SyncClients();
}

void
FlStatsHelper::UplinkTx(Ptr<const Packet> packet)
{
    if (!BackgroundTag::IsBackground(packet))
    {
        m_round.uplinkWire += packet->GetSize();
        ++m_totals.accessPackets;
    }
}

void
FlStatsHelper::DownlinkTx(Ptr<const Packet> packet)
{
    if (!BackgroundTag::IsBackground(packet))
    {
        m_round.downlinkWire += packet->GetSize();
        ++m_totals.accessPackets;
    }
}

void
FlStatsHelper::RoundEnded(const fedran::RoundRecord& record)
{
    if (m_counters)
    {
        const uint64_t up = m_counters->ClientWireBytes(LinkDirection::Uplink);
        const uint64_t down = m_counters->ClientWireBytes(LinkDirection::Downlink);
        m_round.uplinkWire = up - m_countedUplink;
        m_round.downlinkWire = down - m_countedDownlink;
        m_countedUplink = up;
        m_countedDownlink = down;
    }
    for (const auto& [client, score] : record.selectionScores)
    {
        m_current[client].selectionScore = score;
    }
    for (const auto& [client, weight] : record.aggregateWeights)
    {
        auto it = m_current.find(client);
        if (it != m_current.end())
        {
            it->second.aggregateWeight = weight;
        }
    }
    for (uint32_t client : m_async ? std::vector<uint32_t>{} : record.selected)
    {
        ClientRow& row = m_current[client];
        row.windowStartS = record.startS;
        row.windowEndS = record.endS;
        const fedran::ClientEnergy charged = m_writer.WriteClientRow(
            record.round,
            client,
            row,
            row.crashed ? "crashed" : fedran::ClientStatus(row.fate, row.arrived));
        if (!row.arrived)
        {
            // Kept for the `late_arrival` row, if its update arrives; that row charges the
            // energy this one could not.
            ClientRow& late = m_late[{record.round, client}];
            late = row;
            late.charged = charged;
        }
    }

    m_totals.rounds = record.round;
    m_totals.finalAccuracy = record.testAccuracy;
    m_totals.finalNrmse = record.testNrmse;
    m_totals.privacySteps = record.privacySteps;
    m_totals.lastClipNorm = record.clipNorm;
    m_totals.secaggBytes += record.secaggBytes;
    m_totals.secaggS += record.secaggS;
    if (!record.secaggFailure.empty())
    {
        m_totals.secaggFailures.emplace_back(record.round,
                                             record.secaggStatus + ": " + record.secaggFailure);
    }
    m_totals.simTimeS = record.endS;
    m_totals.uplinkPayloadBytes += m_round.uplinkPayload;
    m_totals.downlinkPayloadBytes += m_round.downlinkPayload;
    m_totals.uplinkWireBytes += m_round.uplinkWire;
    m_totals.downlinkWireBytes += m_round.downlinkWire;

    m_writer.WriteRoundRow(record, m_round, m_totals);
    // On disk before the next round starts: a run killed later keeps every finished round.
    m_writer.Sync();

    m_round = {};
    m_current.clear();
    if (m_observer)
    {
        m_observer(record, m_totals);
    }
}

} // namespace ns3
