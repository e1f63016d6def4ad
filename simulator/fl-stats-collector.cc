#include "simulator/fl-stats-collector.h"

#include "models/ns3/model/background-source.h"
#include "simulator/trace-schema.h"

#include <ns3/abort.h>
#include <ns3/callback.h>
#include <ns3/simulator.h>

#include <algorithm>

namespace ns3
{

namespace
{

const char*
StatusName(fedran::UpdateFate fate, bool arrived)
{
    if (!arrived)
    {
        return "late";
    }
    switch (fate)
    {
    case fedran::UpdateFate::Accepted:
        return "completed";
    case fedran::UpdateFate::Late:
        return "late";
    case fedran::UpdateFate::Failed:
        return "failed";
    case fedran::UpdateFate::Dropped:
        return "dropped";
    case fedran::UpdateFate::Stale:
        return "stale";
    case fedran::UpdateFate::Corrupt:
        return "corrupt";
    }
    return "failed";
}

void
AddTime(fedran::CsvWriter& csv, double seconds)
{
    if (seconds < 0.0)
    {
        csv.AddEmpty();
    }
    else
    {
        csv.Add(seconds, 6);
    }
}

/// A compute time: often microseconds, so six significant digits; empty when < 0.
void
AddCost(fedran::CsvWriter& csv, double seconds)
{
    if (seconds < 0.0)
    {
        csv.AddEmpty();
    }
    else
    {
        csv.AddSignificant(seconds, 6);
    }
}

} // namespace

FlStatsCollector::FlStatsCollector(const std::string& outDir,
                                   const std::vector<std::string>& clientGroupNames,
                                   const std::string& uplinkCodec)
    : m_groupNames(clientGroupNames),
      m_uplinkCodec(uplinkCodec)
{
    m_rounds = fedran::OpenTrace(outDir, "rounds.csv");
    m_clients = fedran::OpenTrace(outDir, "clients.csv");
    // The adaptive-bitrate columns: from rung to skipped.
    const std::vector<std::string>& columns = m_clients->Columns();
    const auto rung = std::find(columns.begin(), columns.end(), "rung");
    const auto skipped = std::find(columns.begin(), columns.end(), "skipped");
    NS_ABORT_MSG_IF(rung == columns.end() || skipped < rung,
                    "clients.csv: the trace table has no rung ... skipped columns");
    m_adaptiveColumns = static_cast<size_t>(skipped - rung) + 1;
}

void
FlStatsCollector::Connect(Ptr<FlServerApp> server,
                          const std::vector<Ptr<FlClientApp>>& clients,
                          const NetworkTopology& topology,
                          const TransportLinkCounters* counters)
{
    m_counters = counters;
    server->TraceConnectWithoutContext("ModelSent",
                                       MakeCallback(&FlStatsCollector::ModelSent, this));
    server->TraceConnectWithoutContext("UpdateArrival",
                                       MakeCallback(&FlStatsCollector::UpdateArrival, this));
    server->TraceConnectWithoutContext("RoundEnded",
                                       MakeCallback(&FlStatsCollector::RoundEnded, this));
    m_clientHubs.clear();
    for (uint32_t i = 0; i < clients.size(); ++i)
    {
        m_clientHubs.push_back(topology.GetClientHub(i));
        clients[i]->TraceConnectWithoutContext(
            "ModelReceived",
            MakeCallback(&FlStatsCollector::ModelReceived, this));
        clients[i]->TraceConnectWithoutContext("UpdateSent",
                                               MakeCallback(&FlStatsCollector::UpdateSent, this));
        clients[i]->TraceConnectWithoutContext("Crashed",
                                               MakeCallback(&FlStatsCollector::Crashed, this));
        if (m_counters)
        {
            continue;
        }
        const InstalledLink& link = topology.GetLink(i);
        link.ConnectTransmitted(LinkDirection::Uplink,
                                MakeCallback(&FlStatsCollector::UplinkTx, this));
        link.ConnectTransmitted(LinkDirection::Downlink,
                                MakeCallback(&FlStatsCollector::DownlinkTx, this));
    }
}

void
FlStatsCollector::ConnectAggregator(Ptr<FlEdgeApp> aggregator,
                                    uint32_t id,
                                    const std::string& name,
                                    const std::string& parentHub)
{
    if (m_groupNames.size() <= id)
    {
        m_groupNames.resize(id + 1);
    }
    if (m_clientHubs.size() <= id)
    {
        m_clientHubs.resize(id + 1);
    }
    m_groupNames[id] = name;
    m_clientHubs[id] = parentHub;
    aggregator->TraceConnectWithoutContext("ModelReceived",
                                           MakeCallback(&FlStatsCollector::ModelReceived, this));
    aggregator->TraceConnectWithoutContext("UpdateSent",
                                           MakeCallback(&FlStatsCollector::UpdateSent, this));
    aggregator->TraceConnectWithoutContext("ModelSent",
                                           MakeCallback(&FlStatsCollector::EdgeModelSent, this));
}

void
FlStatsCollector::EdgeModelSent(uint32_t, uint32_t, uint64_t frameBytes)
{
    m_downlinkPayload += frameBytes;
}

void
FlStatsCollector::ModelSent(uint32_t round, uint32_t client, uint64_t frameBytes)
{
    if (m_async)
    {
        // A trip: from the model sent to the update's arrival, keyed by the model's round.
        m_trips[{round, client}].downlinkBytes += frameBytes;
        m_downlinkPayload += frameBytes;
        return;
    }
    m_currentRound = round;
    m_current[client].downlinkBytes += frameBytes; // a two-exchange codec sends more than one
    m_downlinkPayload += frameBytes;
}

void
FlStatsCollector::ModelReceived(uint32_t round, uint32_t client, uint64_t)
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

FlStatsCollector::ClientRow*
FlStatsCollector::FindRow(uint32_t round, uint32_t client)
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
FlStatsCollector::Crashed(uint32_t round, uint32_t client)
{
    if (ClientRow* row = FindRow(round, client))
    {
        row->crashed = true; // the server only sees its connection reset
    }
}

void
FlStatsCollector::UpdateSent(const fedran::UpdateSentRecord& record)
{
    m_uplinkPayload += record.frameBytes;
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
    row.payloadBytes += record.frameBytes;
    row.predictedPayloadBytes = record.predictedPayloadBytes;
    row.rung = record.rung;
    row.skipped = record.skipped;
    row.predictedBps = record.predictedBps;
    row.measuredBps = record.measuredBps;
    row.timeBudgetS = record.timeBudgetS;
}

void
FlStatsCollector::UpdateArrival(const fedran::UpdateArrivalRecord& record)
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
            WriteClientRow(record.round, record.client, it->second, "late_arrival");
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
FlStatsCollector::TripEnded(const fedran::UpdateArrivalRecord& record)
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
    WriteClientRow(record.step,
                   record.client,
                   row,
                   row.crashed ? "crashed" : StatusName(row.fate, true));
    m_trips.erase(it);
}

void
FlStatsCollector::AddAdaptiveColumns(const ClientRow& row)
{
    if (!m_adaptive)
    {
        for (size_t i = 0; i < m_adaptiveColumns; ++i)
        {
            m_clients->AddEmpty();
        }
        return;
    }
    auto addOptional = [this](double value, int digits) {
        if (value < 0.0)
        {
            m_clients->AddEmpty();
        }
        else
        {
            m_clients->Add(value, digits);
        }
    };
    if (row.rung < 0)
    {
        m_clients->AddEmpty();
    }
    else
    {
        m_clients->Add(uint64_t(row.rung));
    }
    addOptional(row.predictedBps, 0);
    addOptional(row.measuredBps, 0);
    addOptional(row.timeBudgetS, 6);
    const bool met = row.arrived && row.fate == fedran::UpdateFate::Accepted;
    m_clients->Add(uint64_t{met}).Add(uint64_t{row.skipped});
}

void
FlStatsCollector::WriteClientRow(uint32_t round,
                                 uint32_t client,
                                 const ClientRow& row,
                                 const char* status)
{
    m_clients->Add(uint64_t{round}).Add(uint64_t{client}).Add(m_groupNames.at(client)).Add(status);
    AddTime(*m_clients, row.modelReceivedS);
    AddTime(*m_clients, row.computeS);
    AddCost(*m_clients, row.encodeS);
    AddTime(*m_clients, row.uploadStartS);
    AddTime(*m_clients, row.uploadEndS);
    AddCost(*m_clients, row.decodeS);
    m_clients->Add(row.trainLoss, 6)
        .AddSignificant(row.updateNorm, 6)
        .AddSignificant(row.gradVariance, 6)
        .Add(row.rawBytes)
        .Add(row.payloadBytes);
    if (row.predictedPayloadBytes < 0)
    {
        m_clients->AddEmpty();
    }
    else
    {
        m_clients->Add(uint64_t(row.predictedPayloadBytes));
    }
    m_clients->Add(row.downlinkBytes).Add(m_uplinkCodec);
    AddAdaptiveColumns(row);
    m_clients->Add(m_clientHubs.at(client));
    if (client < m_attacks.size() && m_attacks[client].Active(round))
    {
        m_clients->Add(m_attacks[client].type);
    }
    else
    {
        m_clients->AddEmpty();
    }
    if (row.aggregateWeight < 0.0)
    {
        m_clients->AddEmpty();
    }
    else
    {
        m_clients->AddSignificant(row.aggregateWeight, 6);
    }
    if (m_async)
    {
        m_clients->Add(uint64_t(row.modelVersion < 0 ? round - 1 : row.modelVersion));
    }
    else
    {
        m_clients->Add(uint64_t{round - 1}); // a synchronous round's model is version round − 1
    }
    const bool completed = row.arrived && row.fate == fedran::UpdateFate::Accepted;
    if (row.staleness >= 0)
    {
        m_clients->Add(uint64_t(row.staleness));
    }
    else if (!m_async && completed)
    {
        m_clients->Add(uint64_t{0});
    }
    else
    {
        m_clients->AddEmpty();
    }
    m_clients->EndRow();
}

void
FlStatsCollector::Finish()
{
    // Late rows were written when their rounds ended; arrivals not seen by now never came.
    m_late.clear();
    // Async: sites still training when the last step was taken.
    for (const auto& [key, row] : m_trips)
    {
        WriteClientRow(key.first, key.second, row, "late");
    }
    m_trips.clear();
    m_clients->Sync();
}

void
FlStatsCollector::UplinkTx(Ptr<const Packet> packet)
{
    if (!BackgroundTag::IsBackground(packet))
    {
        m_uplinkWire += packet->GetSize();
        ++m_totals.accessPackets;
    }
}

void
FlStatsCollector::DownlinkTx(Ptr<const Packet> packet)
{
    if (!BackgroundTag::IsBackground(packet))
    {
        m_downlinkWire += packet->GetSize();
        ++m_totals.accessPackets;
    }
}

void
FlStatsCollector::RoundEnded(const fedran::RoundRecord& record)
{
    if (m_counters)
    {
        const uint64_t up = m_counters->ClientWireBytes(LinkDirection::Uplink);
        const uint64_t down = m_counters->ClientWireBytes(LinkDirection::Downlink);
        m_uplinkWire = up - m_countedUplink;
        m_downlinkWire = down - m_countedDownlink;
        m_countedUplink = up;
        m_countedDownlink = down;
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
        const ClientRow& row = m_current[client];
        WriteClientRow(record.round,
                       client,
                       row,
                       row.crashed ? "crashed" : StatusName(row.fate, row.arrived));
        if (!row.arrived)
        {
            // Kept for the `late_arrival` row, if its update arrives.
            m_late[{record.round, client}] = row;
        }
    }

    m_totals.rounds = record.round;
    m_totals.finalAccuracy = record.testAccuracy;
    m_totals.simTimeS = record.endS;
    m_totals.uplinkPayloadBytes += m_uplinkPayload;
    m_totals.downlinkPayloadBytes += m_downlinkPayload;
    m_totals.uplinkWireBytes += m_uplinkWire;
    m_totals.downlinkWireBytes += m_downlinkWire;

    m_rounds->Add(uint64_t{record.round})
        .Add(record.endS, 6)
        .Add(record.endS - record.startS, 6)
        .AddSignificant(record.aggregateS, 6)
        .AddSignificant(record.evaluateS, 6)
        .Add(record.testAccuracy, 6)
        .Add(record.testLoss, 6)
        .Add(uint64_t{record.selected.size()})
        .Add(uint64_t{record.participants})
        .Add(m_uplinkPayload)
        .Add(m_downlinkPayload)
        .Add(m_uplinkWire)
        .Add(m_downlinkWire)
        .Add(m_totals.uplinkWireBytes)
        .Add(m_totals.uplinkWireBytes + m_totals.downlinkWireBytes)
        .Add(record.robustRule);
    AddTime(*m_rounds, record.bufferFillS);
    m_rounds->EndRow();
    // On disk before the next round starts: a run killed later keeps every finished round.
    m_clients->Sync();
    m_rounds->Sync();

    m_uplinkPayload = 0;
    m_downlinkPayload = 0;
    m_uplinkWire = 0;
    m_downlinkWire = 0;
    m_current.clear();
    if (m_observer)
    {
        m_observer(record, m_totals);
    }
}

} // namespace ns3
