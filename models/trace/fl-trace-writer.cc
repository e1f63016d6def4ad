#include "models/trace/fl-trace-writer.h"

#include "models/trace/trace-schema.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fedran
{

namespace
{

void
AddTime(CsvWriter& csv, double seconds)
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
AddCost(CsvWriter& csv, double seconds)
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

/// An energy in joules: it spans microjoules to megajoules, so significant digits.
void
AddJoules(CsvWriter& csv, double joules)
{
    csv.AddSignificant(joules, 9);
}

} // namespace

EnergyTimes
EnergyTimesOf(const ClientRow& row)
{
    EnergyTimes times;
    if (row.modelSentS >= 0.0 && row.modelReceivedS >= 0.0)
    {
        times.downloadS = row.modelReceivedS - row.modelSentS;
    }
    times.computeS = row.computeS;
    times.encodeS = row.encodeS;
    if (row.uploadStartS >= 0.0 && row.uploadEndS >= 0.0)
    {
        times.uploadS = row.uploadEndS - row.uploadStartS;
    }
    // Idle only when the update arrived within the window: a site still busy at its end (or
    // gone) was never idle in it, since a round's steps follow one another.
    if (row.windowStartS >= 0.0 && row.uploadEndS >= 0.0 && row.uploadEndS <= row.windowEndS)
    {
        times.windowS = row.windowEndS - row.windowStartS;
    }
    return times;
}

const char*
ClientStatus(UpdateFate fate, bool arrived)
{
    if (!arrived)
    {
        return "late";
    }
    switch (fate)
    {
        case UpdateFate::Accepted:
            return "completed";
        case UpdateFate::Late:
            return "late";
        case UpdateFate::Failed:
            return "failed";
        case UpdateFate::Dropped:
            return "dropped";
        case UpdateFate::Stale:
            return "stale";
        case UpdateFate::Corrupt:
            return "corrupt";
    }
    return "failed";
}

FlTraceWriter::FlTraceWriter(const std::string& outDir,
                             std::vector<std::string> clientGroupNames,
                             std::string uplinkCodec,
                             bool selectionScores)
    : m_groupNames(std::move(clientGroupNames))
    , m_uplinkCodec(std::move(uplinkCodec))
    , m_selectionScores(selectionScores)
{
    m_rounds = OpenTrace(outDir, "rounds.csv");
    m_clients = OpenTrace(outDir, "clients.csv", {}, selectionScores);
    // The adaptive-bitrate columns: from rung to skipped.
    const std::vector<std::string>& columns = m_clients->Columns();
    const auto rung = std::find(columns.begin(), columns.end(), "rung");
    const auto skipped = std::find(columns.begin(), columns.end(), "skipped");
    if (rung == columns.end() || skipped < rung)
    {
        throw std::logic_error("clients.csv: the trace table has no rung ... skipped columns");
    }
    m_adaptiveColumns = static_cast<size_t>(skipped - rung) + 1;
}

void
FlTraceWriter::SetChild(uint32_t id, const std::string& group, const std::string& hub)
{
    if (m_groupNames.size() <= id)
    {
        m_groupNames.resize(id + 1);
    }
    if (m_clientHubs.size() <= id)
    {
        m_clientHubs.resize(id + 1);
    }
    m_groupNames[id] = group;
    m_clientHubs[id] = hub;
}

void
FlTraceWriter::AddAdaptiveColumns(const ClientRow& row)
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
    const bool met = row.arrived && row.fate == UpdateFate::Accepted;
    m_clients->Add(uint64_t{met}).Add(uint64_t{row.skipped});
}

void
FlTraceWriter::SetEnergy(std::vector<std::optional<EnergySpec>> clients,
                         std::optional<double> serverComputeW)
{
    m_energy = std::move(clients);
    m_serverComputeW = serverComputeW;
    m_energyColumns = serverComputeW.has_value();
    for (const std::optional<EnergySpec>& spec : m_energy)
    {
        m_energyColumns = m_energyColumns || spec.has_value();
    }
}

ClientEnergy
FlTraceWriter::AddEnergyColumns(uint32_t client, const ClientRow& row)
{
    if (client >= m_energy.size() || !m_energy[client])
    {
        m_clients->AddEmpty().AddEmpty().AddEmpty();
        return {};
    }
    const EnergySpec& spec = *m_energy[client];
    const ClientEnergy total = ChargeClient(spec, EnergyTimesOf(row));
    // A later row of the same update (late_arrival) charges what the earlier one could not.
    const double computeJ = total.computeJ - row.charged.computeJ;
    const double radioJ = total.radioJ - row.charged.radioJ;
    AddJoules(*m_clients, computeJ);
    AddJoules(*m_clients, radioJ);
    spec.Idle() ? AddJoules(*m_clients, total.idleJ) : (void)m_clients->AddEmpty();
    m_roundClientJ += computeJ + radioJ + total.idleJ;
    return total;
}

ClientEnergy
FlTraceWriter::WriteClientRow(uint32_t round,
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
    m_clients->Add(row.downlinkBytes)
        .Add(row.downlinkCodec)
        .Add(row.codec.empty() ? m_uplinkCodec : row.codec);
    AddAdaptiveColumns(row);
    m_clients->Add(client < m_clientHubs.size() ? m_clientHubs[client] : std::string());
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
    const bool completed = row.arrived && row.fate == UpdateFate::Accepted;
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
    if (row.decodeS > 0.0)
    {
        m_roundDecodeS += row.decodeS;
    }
    const ClientEnergy charged = AddEnergyColumns(client, row);
    if (m_selectionScores)
    {
        if (std::isnan(row.selectionScore))
        {
            m_clients->AddEmpty();
        }
        else
        {
            m_clients->AddSignificant(row.selectionScore, 6);
        }
    }
    m_clients->EndRow();
    return charged;
}

void
FlTraceWriter::WriteRoundRow(const RoundRecord& record,
                             const RoundBytes& bytes,
                             const RunTotals& totals)
{
    m_rounds->Add(uint64_t{record.round})
        .Add(record.endS, 6)
        .Add(record.endS - record.startS, 6)
        .AddSignificant(record.aggregateS, 6)
        .AddSignificant(record.evaluateS, 6);
    // A forecasting task has no accuracy, a classifier no forecast errors: empty cells. The
    // errors are in the signal's own units, which span orders of magnitude.
    std::isnan(record.testAccuracy) ? m_rounds->AddEmpty() : m_rounds->Add(record.testAccuracy, 6);
    m_rounds->Add(record.testLoss, 6);
    for (double error : {record.testRmse, record.testMae, record.testNrmse})
    {
        std::isnan(error) ? m_rounds->AddEmpty() : m_rounds->AddSignificant(error, 6);
    }
    m_rounds->Add(uint64_t{record.selected.size()})
        .Add(uint64_t{record.participants})
        .Add(bytes.uplinkPayload)
        .Add(bytes.downlinkPayload)
        .Add(bytes.uplinkWire)
        .Add(bytes.downlinkWire)
        .Add(totals.uplinkWireBytes)
        .Add(totals.uplinkWireBytes + totals.downlinkWireBytes)
        .Add(record.robustRule);
    AddTime(*m_rounds, record.bufferFillS);
    if (m_energyColumns)
    {
        // The server computes while it decodes the round's updates, combines them and
        // evaluates the new model; the clients' rows are those written during the round.
        const double serverJ =
            m_serverComputeW.value_or(0.0) *
            (m_roundDecodeS + std::max(record.aggregateS, 0.0) + std::max(record.evaluateS, 0.0));
        const double roundJ = m_roundClientJ + serverJ;
        m_cumulativeJ += roundJ;
        AddJoules(*m_rounds, roundJ);
        AddJoules(*m_rounds, m_cumulativeJ);
    }
    else
    {
        m_rounds->AddEmpty().AddEmpty();
    }
    m_roundClientJ = 0.0;
    m_roundDecodeS = 0.0;
    std::isnan(record.epsilon) ? m_rounds->AddEmpty() : m_rounds->AddSignificant(record.epsilon, 6);
    std::isnan(record.clipNorm) ? m_rounds->AddEmpty()
                                : m_rounds->AddSignificant(record.clipNorm, 6);
    if (record.secaggStatus.empty())
    {
        m_rounds->AddEmpty().AddEmpty().AddEmpty();
    }
    else
    {
        m_rounds->Add(record.secaggBytes);
        AddTime(*m_rounds, record.secaggS);
        m_rounds->Add(record.secaggStatus);
    }
    m_rounds->EndRow();
}

void
FlTraceWriter::Sync()
{
    m_clients->Sync();
    m_rounds->Sync();
}

void
FlTraceWriter::SyncClients()
{
    m_clients->Sync();
}

} // namespace fedran
