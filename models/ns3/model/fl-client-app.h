#ifndef FEDRAN_MODELS_NS3_MODEL_FL_CLIENT_APP_H
#define FEDRAN_MODELS_NS3_MODEL_FL_CLIENT_APP_H

#include "models/fl/client-session.h"
#include "models/fl/federated-task.h"
#include "models/fl/trace-records.h"
#include "models/ns3/model/client-availability.h"
#include "models/ns3/model/client-round-work.h"
#include "models/ns3/model/message-transport.h"
#include "models/ns3/model/reconnect-backoff.h"
#include "models/ns3/model/thread-pool.h"

#include <ns3/address.h>
#include <ns3/application.h>
#include <ns3/event-id.h>
#include <ns3/nstime.h>
#include <ns3/random-variable-stream.h>
#include <ns3/traced-callback.h>

#include <memory>

namespace ns3
{

/**
 * A federated-learning client (a cell site with compute and a backhaul link) as an ns-3
 * application. What it holds and does with each frame is a fedran::ClientSession
 * (models/fl/client-session.h); this class connects, runs the simulated compute time, goes
 * away and comes back, and reports through trace sources.
 *
 * For each global model it receives, a ClientRoundWork trains and encodes the update while
 * the simulated compute time (examples processed / SamplesPerSecond) passes, then sends it.
 * With a two-exchange codec (power_sgd) the session also takes the codec's state before the
 * model and answers the server's mid-round message at once; that reply is not given compute
 * time.
 *
 * With an Availability it can go away: when its on/off process turns off, or when it drops
 * out of a round, it aborts its connection at once (an upload in progress stops; the server
 * sees the reset) and abandons the round's training. It reconnects and joins again when the
 * process turns back on, or right away after a dropout.
 *
 * Faults (docs/reliability.md): with CrashProbability a site crashes part-way through a
 * round's training (its connection reset, as a dropout's), stays down for CrashRestart and
 * comes back without its codec state; with CorruptUplink its update frames are damaged after
 * their CRC was computed, which the server's CRC check catches.
 *
 * With an "adaptive" uplink the session's rate controller picks the ladder rung (or a skip)
 * each round from what this client observes: the acknowledged duration of its own past
 * uploads, this round's model download, its compute time and the round Deadline (see
 * docs/adaptive-bitrate.md).
 */
class FlClientApp : public Application
{
  public:
    static TypeId GetTypeId();

    FlClientApp();
    ~FlClientApp() override;

    /// The learning problem; must be set (after ClientId, SamplesPerSecond and Deadline) before
    /// the application starts.
    void SetTask(std::shared_ptr<const fedran::FederatedTask> task);

    /// Where local training runs; without a pool it runs on the simulation thread.
    void SetTrainingPool(std::shared_ptr<ThreadPool> pool);

    /// Fixes the stream of the join instant and reconnection delays; returns streams used.
    int64_t AssignStreams(int64_t stream);

    uint32_t GetClientId() const
    {
        return m_clientId;
    }

    /// The site's copy of the global model (empty while it holds none): with
    /// downlink_reference client_view, what the server's mirror of it must equal (tests).
    std::span<const float> HeldModel() const
    {
        return m_session ? m_session->HeldModel() : std::span<const float>();
    }

    typedef void (*ModelReceivedCallback)(uint32_t round, uint32_t client, uint64_t frameBytes);
    typedef void (*UpdateSentCallback)(const fedran::UpdateSentRecord& record);
    typedef void (*LeftCallback)(uint32_t client);
    typedef void (*UploadMeasuredCallback)(const fedran::UploadMeasuredRecord& record);
    typedef void (*CrashedCallback)(uint32_t round, uint32_t client);
    typedef void (*LossRepliedCallback)(uint32_t round, uint32_t client, uint64_t frameBytes);

  private:
    void StartApplication() override;
    void StopApplication() override;
    void DoDispose() override;

    void Connect();
    /// Tries to connect again after a failed or lost connection (see ReconnectBackoff).
    void ScheduleReconnect();
    /// A connection, or nullptr when the transport could not make one.
    void HandleConnected(Ptr<MessageChannel> channel);
    /// Goes away: abandons the current round and aborts the connection.
    void Leave();
    void TurnOff();
    void TurnOn();
    /// Leaves the current round part-way through its training, then reconnects.
    void DropOut();
    /// Crashes part-way through `round`'s training: down for CrashRestart, then restarts.
    void CrashOut(uint32_t round);
    void Restart();
    void HandleFrame(Ptr<MessageChannel> channel,
                     const fedran::Frame& frame,
                     const FrameReceipt& receipt);
    void HandleChannelError(Ptr<MessageChannel> channel, const std::string& why);
    void HandleGlobalModel(Ptr<MessageChannel> channel,
                           const fedran::Frame& frame,
                           const FrameReceipt& receipt);
    void HandleCodecState(Ptr<MessageChannel> channel, const fedran::Frame& frame);
    /// privacy.secure_aggregation: a stage's message, answered at once.
    void HandleSecAgg(Ptr<MessageChannel> channel, const fedran::Frame& frame);
    /// pow-d: decodes the polled model, evaluates its loss and answers after PollSeconds.
    void HandleLossPoll(Ptr<MessageChannel> channel,
                        const fedran::Frame& frame,
                        const FrameReceipt& receipt);
    void SendLossReply(uint32_t round, double loss);
    /// pow-d: trains from the polled model.
    void HandleTrainStart(Ptr<MessageChannel> channel,
                          const fedran::Frame& frame,
                          const FrameReceipt& receipt);
    void HandleDelivered(Ptr<MessageChannel> channel, const TransferRecord& record);
    /// `modelFrameBytes` and `download`: the model's frame and its download (first to last
    /// byte); `start`: when the round began for this client (the model's, or TrainStart's,
    /// first byte).
    void TrainAndSchedule(uint32_t round, uint64_t modelFrameBytes, Time download, Time start);

    /// "Endpoint"'s default: the client connects from the node it runs on.
    static constexpr uint32_t kOwnNode = UINT32_MAX;

    // Attributes
    uint32_t m_clientId;
    uint32_t m_endpoint = kOwnNode;
    Address m_server;
    double m_samplesPerSecond;
    Time m_deadline;
    std::string m_downlinkCodec; ///< JSON codec spec of the parent's model frames ("": task's)
    Time m_joinWindow;
    Time m_reconnectBackoff;
    Time m_reconnectBackoffMax;
    Ptr<MessageTransport> m_transport;
    Ptr<ClientAvailability> m_availability;
    double m_corruptUplink;
    double m_crashProbability;
    Time m_crashRestart;

    std::unique_ptr<fedran::ClientSession> m_session;
    std::unique_ptr<ClientRoundWork> m_work; ///< made with the session
    std::shared_ptr<ThreadPool> m_pool;
    Ptr<MessageChannel> m_channel;
    EventId m_dropEvent;
    EventId m_connectEvent;
    EventId m_restartEvent;
    EventId m_pollEvent;        ///< pow-d: the loss reply, once its evaluation's time has passed
    uint64_t m_polledBytes = 0; ///< pow-d: the last poll's model frame
    Time m_polledDownload;      ///< pow-d: its download, first byte to last
    bool m_crashed;             ///< down after a crash, until CrashRestart has passed
    Ptr<UniformRandomVariable> m_joinRng;
    ReconnectBackoff m_backoff;
    bool m_online;

    TracedCallback<uint32_t, uint32_t, uint64_t> m_modelReceivedTrace;
    TracedCallback<const fedran::UpdateSentRecord&> m_updateSentTrace;
    TracedCallback<uint32_t> m_leftTrace;
    TracedCallback<const fedran::UploadMeasuredRecord&> m_uploadMeasuredTrace;
    TracedCallback<uint32_t, uint32_t> m_crashedTrace;
    TracedCallback<uint32_t, uint32_t, uint64_t> m_lossRepliedTrace;
};

} // namespace ns3

#endif
