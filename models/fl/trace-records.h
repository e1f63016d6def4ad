#ifndef FEDRAN_MODELS_FL_TRACE_RECORDS_H
#define FEDRAN_MODELS_FL_TRACE_RECORDS_H

// What the FL server and clients report; the ns-3 applications pass them on through their
// trace sources. Plain structs, so that a trace sink (the stats collector, a test, a user's
// script) gets every field by name.

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace fedran
{

/// A client has encoded its update (or a reply) and starts handing it to the network.
struct UpdateSentRecord
{
    uint32_t round = 0;
    uint32_t client = 0;
    uint64_t rawBytes = 0;   ///< the update as float32, before compression
    uint64_t frameBytes = 0; ///< the encoded frame (header + codec payload) put on the channel
    double computeS = 0.0;   ///< simulated local training time
    /// Simulated encoding time after it (a reply: the codec's second client step); the
    /// upload starts when it is over. 0 without a cost profile.
    double encodeS = 0.0;
    double trainLoss = 0.0;  ///< mean minibatch loss of the local training
    double updateNorm = 0.0; ///< L2 norm of the update before compression
    /// Estimated variance of the minibatch gradient (TrainingResult::gradVariance)
    double gradVariance = 0.0;
    std::string codec;
    /// What clients.csv's `codec` column says of this update when more than the uplink
    /// codec's type: a level policy's level, "qsgd(s=4)" (empty: the type).
    std::string codecLabel;
    /// A two-exchange codec's reply to the server (frameBytes only; no training behind it).
    bool reply = false;
    // With an "adaptive" uplink (otherwise rung < 0 and the rest unset):
    int rung = -1;            ///< ladder rung used; for a skip, -1 with skipped = true
    bool skipped = false;     ///< lazy update: an empty frame instead of the update
    double predictedBps = -1; ///< the bandwidth prediction used (< 0: none)
    double timeBudgetS = -1;  ///< the upload time budget used (< 0: none)
    /// Frame bytes (header + payload) of the chosen rung's trial encoding, the size the
    /// controller judged it by (< 0: no rung sent). The trial is what is sent, so it equals
    /// frameBytes.
    int64_t predictedPayloadBytes = -1;
    /// The client's newest own measurement when it chose: bytes / (hand-off -> acknowledged)
    /// of its latest acknowledged update (< 0: none yet).
    double measuredBps = -1;
    /// faults.corrupt_uplink damaged a payload byte of the frame after its CRC was computed.
    bool corrupted = false;
};

/// A client's upload was acknowledged: what it measured about its own transfer.
struct UploadMeasuredRecord
{
    uint32_t round = 0;
    uint32_t client = 0;
    uint64_t bytes = 0;
    double durationS = 0.0; ///< hand-off to the transport until the last byte was acknowledged
    double rttS = 0.0;

    double Bps() const
    {
        return durationS > 0.0 ? 8.0 * double(bytes) / durationS : 0.0;
    }
};

/// Why the server did not use an update it received (or expected).
enum class UpdateFate
{
    Accepted, ///< arrived before the deadline and decoded
    Late,     ///< arrived after its round had ended: recorded, discarded
    Failed,   ///< bad frame or decode error
    Dropped,  ///< the client went away (closed or reset its connection) before its update arrived
    Stale,    ///< async mode: older than server.async.max_staleness versions, discarded
    /// The update frame failed its CRC check (damaged in flight, faults.corrupt_uplink): not
    /// used; the connection survives and the client may be selected again next round.
    Corrupt,
};

struct UpdateArrivalRecord
{
    uint32_t round = 0;
    uint32_t client = 0;
    uint64_t frameBytes = 0;
    UpdateFate fate = UpdateFate::Accepted;
    std::string reason;   ///< for Failed and Dropped
    bool skipped = false; ///< a lazy-update skip (Accepted: reused or omitted, see on_skip)
    /// The server's simulated time decoding and folding in this update (its service time on
    /// one core; a reply's adds to its first payload's) and when it was folded in, after any
    /// queue for the server's cores (< 0: not decoded).
    double decodeS = -1.0;
    double foldedS = -1.0;
    /// Async mode: the server step the update counts in (rounds.csv's round), the version
    /// the client trained from, and how many versions the server moved on meanwhile
    /// (-1: not known, as for a client lost before its update arrived).
    uint32_t step = 0;
    int64_t modelVersion = -1;
    int64_t staleness = -1;
};

/// The server closed a round: aggregated, updated and evaluated the global model.
struct RoundRecord
{
    uint32_t round = 0;
    double startS = 0.0;
    double endS = 0.0;
    std::vector<uint32_t> selected;
    uint32_t participants = 0; ///< updates aggregated
    double testAccuracy = 0.0; ///< NaN for a forecasting task
    double testLoss = 0.0;
    /// Forecasting tasks: the new global model's errors on the test set in the series'
    /// original units (Evaluation); NaN for classification.
    double testRmse = std::numeric_limits<double>::quiet_NaN();
    double testMae = std::numeric_limits<double>::quiet_NaN();
    double testNrmse = std::numeric_limits<double>::quiet_NaN();
    std::string robustRule; ///< server.robust.type
    /// Per aggregated update (client, AggregationRule::AggregateWeights), in arrival order;
    /// empty for a two-exchange codec, whose server combines the payloads itself.
    std::vector<std::pair<uint32_t, double>> aggregateWeights;
    /// Per selected client that server.selection scored (client, score): clients.csv
    /// selection_score; empty under "random".
    std::vector<std::pair<uint32_t, double>> selectionScores;
    double bufferFillS = -1.0; ///< async: first to last update of the step's buffer
    /// privacy.dp: the epsilon spent by rounds 1..round at privacy.dp.delta; NaN without DP.
    double epsilon = std::numeric_limits<double>::quiet_NaN();
    /// privacy.dp: the accountant's steps behind `epsilon` (central: rounds; local: the
    /// most-selected site's selections); 0 without DP.
    uint32_t privacySteps = 0;
    /// privacy.dp: the clip norm C used in this round (adaptive clipping: the estimator's C of
    /// the round); NaN without DP.
    double clipNorm = std::numeric_limits<double>::quiet_NaN();
    /// Simulated server time after the last update was folded in: combining and applying the
    /// update, then evaluating the new model (endS includes both).
    double aggregateS = 0.0;
    double evaluateS = 0.0;
    /// privacy.secure_aggregation: "ok" or "failed_<stage>" (empty without); the failure's
    /// reason; the protocol's frames beyond the masked vectors, both ways (header included);
    /// the seconds of its key and unmask stages.
    std::string secaggStatus;
    std::string secaggFailure;
    uint64_t secaggBytes = 0;
    double secaggS = 0.0;
};

} // namespace fedran

#endif
