#ifndef FEDRAN_MODELS_TRACE_FL_TRACE_WRITER_H
#define FEDRAN_MODELS_TRACE_FL_TRACE_WRITER_H

#include "models/fl/byzantine-config.h"
#include "models/fl/energy-model.h"
#include "models/fl/trace-records.h"
#include "models/trace/csv-writer.h"
#include "models/trace/run-totals.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fedran
{

/// What clients.csv says of one client in one round (async: of one trip, model sent to
/// update arrived); times in simulated seconds, < 0 when the event did not happen.
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
    /// The `codec` column when it says more than the uplink codec's type (a level policy's
    /// "qsgd(s=4)"); empty: the uplink codec.
    std::string codec;
    int64_t predictedPayloadBytes = -1; ///< adaptive: the chosen rung's trial frame
    uint64_t downlinkBytes = 0;
    /// The model frame's codec (its type, or an adaptive downlink's rung, "quantization[2]").
    std::string downlinkCodec;
    UpdateFate fate = UpdateFate::Late;
    bool arrived = false;
    bool skipped = false;
    bool crashed = false; ///< faults.crashes: the site crashed while training
    int rung = -1;
    double predictedBps = -1.0;
    double measuredBps = -1.0;
    double timeBudgetS = -1.0;
    double aggregateWeight = -1.0; ///< < 0: not aggregated
    int64_t modelVersion = -1;     ///< async: the version trained from
    int64_t staleness = -1;        ///< async: versions the server moved on meanwhile
    double modelSentS = -1.0;      ///< when the server handed it the (first) model frame
    /// The window the row covers, for idle energy: the round (start, end); < 0: none.
    double windowStartS = -1.0;
    double windowEndS = -1.0;
    /// What earlier rows of the same update already charged (a `late` row, before its
    /// `late_arrival` row charges the rest).
    ClientEnergy charged;
    /// server.selection's score of the client this round (NaN: none), written only when
    /// the writer has the selection_score column.
    double selectionScore = std::numeric_limits<double>::quiet_NaN();
};

/// The busy times of `row` that the energy model charges (docs/energy.md).
EnergyTimes EnergyTimesOf(const ClientRow& row);

/// clients.csv's `status` of an update with `fate` ("late" if it never `arrived`).
const char* ClientStatus(UpdateFate fate, bool arrived);

/// The bytes a round's row counts: sent while the round was open.
struct RoundBytes
{
    uint64_t uplinkPayload = 0;
    uint64_t downlinkPayload = 0;
    uint64_t uplinkWire = 0;
    uint64_t downlinkWire = 0;
};

/**
 * rounds.csv and clients.csv of a run (columns in models/trace/trace-columns.cc, documented in
 * docs/traces.md): formats the rows, with no simulator behind it. What goes into the rows
 * (trace sources, byte counters) is the collector's business (models/ns3/helper/
 * fl-stats-helper.h).
 */
class FlTraceWriter
{
  public:
    /// Opens outDir/rounds.csv and outDir/clients.csv (recorded in outputs.txt). Client i's
    /// `group` column is clientGroupNames[i]; `codec` is every row's uplink codec type.
    /// `selectionScores`: clients.csv ends with the selection_score column (a server.selection
    /// policy that scores; without one the file is as it always was).
    FlTraceWriter(const std::string& outDir,
                  std::vector<std::string> clientGroupNames,
                  std::string uplinkCodec,
                  bool selectionScores = false);

    /// Fills the adaptive-bitrate columns (rung ... skipped), empty otherwise.
    void SetAdaptive(bool adaptive)
    {
        m_adaptive = adaptive;
    }

    /// Per client id, its attack (empty: nobody), for the attack column.
    void SetAttacks(std::vector<AttackConfig> attacks)
    {
        m_attacks = std::move(attacks);
    }

    /// server.mode async: rows are trips, model_version is the version trained from.
    void SetAsync(bool async)
    {
        m_async = async;
    }

    /// Per client, the name of the hub it hangs off ("" for none), for the hub column.
    void SetClientHubs(std::vector<std::string> clientHubs)
    {
        m_clientHubs = std::move(clientHubs);
    }

    /// Row identity of child `id` (an edge aggregator): its `group` and `hub` columns.
    void SetChild(uint32_t id, const std::string& group, const std::string& hub);

    /// Per client id, its energy model (nullopt: none, empty energy cells), and the server's
    /// compute power (nullopt: none). Either one set fills rounds.csv's energy columns.
    void SetEnergy(std::vector<std::optional<EnergySpec>> clients,
                   std::optional<double> serverComputeW);

    /// Writes the row; returns the energy its update has been charged so far (this row's
    /// cells plus row.charged), for a later row of the same update.
    ClientEnergy WriteClientRow(uint32_t round,
                                uint32_t client,
                                const ClientRow& row,
                                const char* status);

    /// The round's row; `totals` already include this round's bytes.
    void WriteRoundRow(const RoundRecord& record, const RoundBytes& bytes, const RunTotals& totals);

    /// Both files on disk (fsync): a run killed later keeps every finished round.
    void Sync();
    /// clients.csv on disk: the run's end, after its last rows.
    void SyncClients();

  private:
    void AddAdaptiveColumns(const ClientRow& row);
    /// The energy columns of client `client`'s row; returns its update's total so far.
    ClientEnergy AddEnergyColumns(uint32_t client, const ClientRow& row);

    std::vector<std::string> m_groupNames;
    std::vector<std::string> m_clientHubs;
    std::string m_uplinkCodec;
    bool m_adaptive = false;
    bool m_async = false;
    bool m_selectionScores = false;
    std::vector<AttackConfig> m_attacks;
    size_t m_adaptiveColumns = 0; ///< clients.csv's columns from rung on
    std::vector<std::optional<EnergySpec>> m_energy;
    std::optional<double> m_serverComputeW;
    bool m_energyColumns = false; ///< some energy is modelled: rounds.csv's cells are filled
    double m_roundClientJ = 0.0;  ///< client rows written since the last round row
    double m_roundDecodeS = 0.0;  ///< their decode_s: the server's time folding them in
    double m_cumulativeJ = 0.0;
    std::unique_ptr<CsvWriter> m_rounds;
    std::unique_ptr<CsvWriter> m_clients;
};

} // namespace fedran

#endif
