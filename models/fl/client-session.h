#ifndef FEDRAN_MODELS_FL_CLIENT_SESSION_H
#define FEDRAN_MODELS_FL_CLIENT_SESSION_H

// A client's side of federated learning, without ns-3: what it holds (its copy of the model,
// its codecs, its rate controller), what each server frame asks of it, how it trains and
// encodes (or skips), and what it measures of its own uploads. FlClientApp is the ns-3 glue:
// connections, the simulated compute time, availability, trace sources.

#include "compression/codec-spec.h"
#include "compression/cost-model.h"
#include "models/fl/codec-bank.h"
#include "models/fl/collusion-oracle.h"
#include "models/fl/federated-task.h"
#include "models/fl/layerwise-encoder.h"
#include "models/fl/pipeline-plan.h"
#include "models/fl/rate-controller.h"
#include "models/fl/secagg/secagg-round.h"
#include "models/fl/site-faults.h"
#include "models/fl/site-training.h"
#include "models/fl/trace-records.h"
#include "models/fl/update-frame.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace fedran
{

struct ClientSessionConfig
{
    uint32_t clientId = 0;
    /// Training speed: examples processed per simulated second.
    double samplesPerSecond = 2000.0;
    /// The server's round deadline, announced to clients: an adaptive uplink budgets against it.
    double deadlineS = 60.0;
    /// faults.corrupt_uplink: probability that an update frame's payload is damaged after its
    /// CRC was computed.
    double corruptUplink = 0.0;
    /// faults.crashes of the client's group: probability per round of crashing while training.
    double crashProbability = 0.0;
    /// How the model frames of this client's parent are encoded: an edge aggregator's own
    /// downlink codec (network.hubs[].aggregator); empty: the task's (the server's).
    CodecSpec downlinkCodec;
};

/// What a frame from the server is, for this client.
enum class ServerFrameKind
{
    Model,      ///< the global model (or its delta) to train from
    CodecState, ///< a two-exchange codec's state before the model, or its mid-round question
    LossPoll,   ///< pow-d: the model, and a request for the loss at it (AcceptModel decodes it)
    TrainStart, ///< pow-d: train from the model of this round's poll
    SecAgg,     ///< privacy.secure_aggregation: a stage's message (AcceptSecAgg answers it)
    Unexpected, ///< not for this client, or not a frame a server sends
};

/// An encoded update frame and what the client reports about it.
struct EncodedUpdate
{
    std::vector<uint8_t> frame; ///< empty when the update goes as `parts`
    /// training.pipelining layerwise: the buckets, in sending order (record.frameBytes and
    /// record.encodeS are their sums).
    std::vector<EncodedPart> parts;
    UpdateSentRecord record;
};

/// What the sending endpoint observed about one of its messages once it was acknowledged.
struct Delivery
{
    uint64_t bytes = 0;
    double durationS = 0.0;     ///< handed over until the last byte was acknowledged
    double rttS = 0.0;          ///< the transport's smoothed RTT then
    double acknowledgedS = 0.0; ///< when, on the client's own clock
};

class ClientSession
{
  public:
    ClientSession(ClientSessionConfig config, std::shared_ptr<const FederatedTask> task);
    ~ClientSession();

    /// A new connection: the model starts from zeros again (as the server's mirror of it
    /// does), messages of an earlier connection will never be acknowledged, and the join
    /// frame to send first is returned.
    std::vector<uint8_t> BeginConnection();

    ServerFrameKind Classify(const Frame& frame) const;

    /// Decodes a Model (or LossPoll) frame into this client's copy. Throws DecodeError.
    void AcceptModel(const Frame& frame);

    /// pow-d: the mean loss of this client's examples at the model of the LossPoll just
    /// accepted (ClientLoss: every local example, as the paper's pow-d; the mini-batch
    /// estimate is its cpr-pow-d variant), and the simulated time it takes (PollSeconds).
    double PollLoss() const;
    double PollSeconds() const;
    /// pow-d: the LossReply frame for `round` carrying `loss` (a message the transport will
    /// acknowledge).
    std::vector<uint8_t> LossReplyFrame(uint32_t round, double loss);
    /// pow-d: a TrainStart frame; the model to train from is the one its round's poll
    /// brought. Throws DecodeError when this client holds no model of that round.
    void AcceptTrainStart(const Frame& frame);

    /// privacy.secure_aggregation: a Setup, Keys, Shares or Unmask frame; returns the answer's
    /// frame (none for the Shares relay), a message the transport will acknowledge. Throws
    /// DecodeError.
    std::vector<uint8_t> AcceptSecAgg(const Frame& frame);

    /// Simulated compute time of one round's local training: the examples it processes
    /// (epochs x examples, or local steps x batch), which do not depend on its outcome.
    double ComputeSeconds() const;

    /// What is known once the model has arrived, for an adaptive uplink's inputs and an
    /// adaptive downlink's report: the model's download as the client saw it (first byte to
    /// last), its size, and the compute time ahead.
    /// `modelFirstByteS`: when its first byte arrived, on the client's own clock.
    void PrepareRound(uint32_t round,
                      uint64_t modelFrameBytes,
                      double downloadS,
                      double computeS,
                      double modelFirstByteS = 0.0);

    /// Trains on this client's data from its copy of the model and encodes the update (or,
    /// adaptive, picks a rung or skips); record.encodeS is the encoding's simulated time,
    /// which delays the upload after the compute time. Touches only this session's own state and
    /// read-only data, so it may run on a worker thread while nothing else uses the session.
    EncodedUpdate TrainAndEncode(uint32_t round);

    /// The update is handed to the network now (layerwise: its first bucket).
    void UpdateSent(const UpdateSentRecord& record);
    /// Layerwise: a later bucket of the update is handed to the network now.
    void PartSent();
    /// When the first bucket is ready, from the start of training (without pipelining: the
    /// end of training), i.e. when the host needs TrainAndEncode's result.
    double FirstPartReadyS();

    /// A CodecState frame: takes the round state (nothing to send), or answers the server's
    /// question about the update sent for its round (the reply frame and its record).
    /// Throws DecodeError.
    std::optional<EncodedUpdate> AcceptCodecState(const Frame& frame);

    /// The transport acknowledged the oldest message not yet acknowledged. For an update,
    /// what the client measured of its upload.
    std::optional<UploadMeasuredRecord> Delivered(const Delivery& delivery);

    /// faults.crashes: whether this round's training ends in a crash, and if so at what
    /// fraction of the compute time (a draw of the client's own crash stream).
    std::optional<double> DrawCrash();

    /// The site crashed: it restarts without its codec state (an error-feedback residual
    /// starts from zero again), its model copy or its connection's messages.
    void Crash();

    bool IsAdaptive() const
    {
        return m_controller != nullptr;
    }

    /// An adaptive downlink: each update ends with the model's download time (downlink-rungs.h).
    bool ReportsDownload() const
    {
        return m_reportDownload;
    }

    /// This client's copy of the global model (empty while it holds none): with
    /// downlink_reference client_view, what the server's mirror of it must equal.
    std::span<const float> HeldModel() const
    {
        return m_model;
    }

    /// Floats of model this session holds now (0 while it is not training, unless the
    /// downlink is relative to its copy).
    size_t HeldModelFloats() const
    {
        return m_model.size();
    }

  private:
    /// Fresh codecs (and rate controller): at the start, and after a crash, which loses them.
    void ResetCodecs();
    /// Picks the rung (or a skip) for `result` and encodes; an empty payload is a skip.
    void EncodeAdaptive(uint32_t round,
                        const TrainingResult& result,
                        std::optional<bool> unclipped,
                        std::vector<uint8_t>& payload,
                        UpdateSentRecord& record);
    /// What follows the codec's payload: adaptive clipping's bit (`unclipped`, if any), then
    /// the loss report if a level or selection policy needs one (`report`).
    void AppendReports(std::vector<uint8_t>& payload, std::optional<bool> unclipped, bool report);

    /// privacy.secure_aggregation: the update as the uplink codec's decoder would have it
    /// (the masked vector's input; the update itself without a codec).
    std::vector<float> SecAggInput(uint32_t round,
                                   std::vector<float> update,
                                   UpdateSentRecord& record);

    ClientSessionConfig m_config;
    /// This client's device (task->clientCompute; no profile: coding takes no time).
    DeviceCompute m_device;
    std::shared_ptr<const FederatedTask> m_task;
    /// The model's decoder, the update's encoder and, layerwise, the buckets' encoders.
    CodecBank m_codecs;
    LayerwiseEncoder m_layerwise;       ///< training.pipelining layerwise
    AdaptiveLadder* m_ladder = nullptr; ///< the update encoder's rungs, if it is adaptive
    std::unique_ptr<control::RateController> m_controller;
    Rng m_trainRng;
    Rng m_codecRng;
    SiteAttack m_attack; ///< clients.groups[].attack of this client
    SiteFaults m_faults; ///< faults.corrupt_uplink and faults.crashes
    Rng m_spreadRng;     ///< an adaptive variance rule's minibatches (GradientSpread)
    /// privacy.dp local: this site's noise (LocalDpStream).
    Rng m_dpRng;
    /// privacy.secure_aggregation: this site's side of the protocol (nullptr without), and the
    /// uplink codec's decoder for a dense codec's update (nullptr without a codec).
    std::unique_ptr<secagg::SecAggSite> m_secagg;
    std::unique_ptr<Codec> m_secaggDecoder;
    /// privacy.dp.adaptive_clipping: the round's C, from the model frame.
    double m_clipNorm = 0.0;
    /// This client's copy of the global model: empty unless it is training (with
    /// downlink_reference client_view, kept from the connection on as the frames' reference).
    std::vector<float> m_model;
    uint32_t m_sentRound = 0;  ///< round of the last update sent (0: none yet)
    uint32_t m_modelRound = 0; ///< round of the model frame last accepted (0: none)
    /// A level policy (level-policy.h): each rung's QSGD level, the level the server assigned
    /// in this round's model frame, and the loss of that model reported with the update.
    std::vector<uint32_t> m_rungLevels;
    uint32_t m_assignedLevel = 0;
    double m_reportLoss = 0.0;
    /// Whether server.selection needs every update to carry a loss report.
    bool SelectionReportsLoss() const
    {
        return m_task->selection.Traits().needsLoss;
    }

    control::RoundInputs m_inputs;     ///< this round's, for the training thread
    double m_inputsMeasuredBps = -1.0; ///< m_lastMeasuredBps when m_inputs was gathered
    /// Rounds of the messages sent and not yet acknowledged, in order (0: not an update).
    /// A vector, not a deque: it holds a few entries, and an empty deque allocates 576 bytes,
    /// which every one of a million idle sites would hold.
    std::vector<uint32_t> m_unacknowledged;
    double m_rttS = 0.0; ///< the transport's RTT at the last acknowledgement
    double m_lastMeasuredBps = -1.0;
    bool m_reportDownload = false; ///< the downlink is adaptive: report each download's time
    double m_downloadS = 0.0;      ///< this round's model download (first byte to last)
};

} // namespace fedran

#endif
