#ifndef FEDRAN_MODELS_FL_CLIENT_APP_H
#define FEDRAN_MODELS_FL_CLIENT_APP_H

#include "compression/codec.h"
#include "compression/ladder-codec.h"
#include "models/client-availability.h"
#include "models/control/rate-controller.h"
#include "models/fl-trace-records.h"
#include "models/learning/federated-task.h"
#include "models/message-transport.h"
#include "models/thread-pool.h"

#include <ns3/address.h>
#include <ns3/application.h>
#include <ns3/event-id.h>
#include <ns3/nstime.h>
#include <ns3/traced-callback.h>

#include <deque>
#include <future>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * A federated-learning client (a cell site with compute and a backhaul link).
 *
 * It connects to the server and announces itself. For each global model it receives it
 * decodes the model, trains on its own slice of the data for real, encodes the update with
 * the uplink codec, waits the simulated compute time (examples processed / SamplesPerSecond),
 * and sends the encoded frame. With a two-exchange codec (power_sgd) it also takes the codec's
 * state before the model and answers the server's mid-round message with a reply frame; the
 * reply's arithmetic (a product with the update) is not given simulated compute time.
 *
 * With an Availability it can go away: when its on/off process turns off, or when it drops
 * out of a round, it aborts its connection at once (an upload in progress stops; the server
 * sees the reset) and abandons the round's training. It reconnects and joins again when the
 * process turns back on, or right away after a dropout.
 *
 * With an "adaptive" uplink a RateController picks the ladder rung (or a skip) each round from
 * what this client observes: the acknowledged duration of its own past uploads, this round's
 * model download, its compute time and the round Deadline (see docs/adaptive-bitrate.md).
 */
class FlClientApp : public Application
{
  public:
    static TypeId GetTypeId();

    FlClientApp();
    ~FlClientApp() override;

    /// The learning problem; must be set (after ClientId) before the application starts.
    void SetTask(std::shared_ptr<const fedran::FederatedTask> task);

    /// Where local training runs; without a pool it runs on the simulation thread.
    void SetTrainingPool(std::shared_ptr<ThreadPool> pool);

    typedef void (*ModelReceivedCallback)(uint32_t round, uint32_t client, uint64_t frameBytes);
    typedef void (*UpdateSentCallback)(const UpdateSentRecord& record);
    typedef void (*LeftCallback)(uint32_t client);
    typedef void (*UploadMeasuredCallback)(const UploadMeasuredRecord& record);

  private:
    void StartApplication() override;
    void StopApplication() override;
    void DoDispose() override;

    void Connect();
    void HandleConnected(Ptr<MessageChannel> channel);
    /// Goes away: abandons the current round and aborts the connection.
    void Leave();
    void TurnOff();
    void TurnOn();
    /// Leaves the current round part-way through its training, then reconnects.
    void DropOut();
    void HandleFrame(Ptr<MessageChannel> channel, const fedran::Frame& frame);
    void HandleChannelError(Ptr<MessageChannel> channel, const std::string& why);
    void HandleGlobalModel(Ptr<MessageChannel> channel, const fedran::Frame& frame);
    /// A two-exchange uplink codec's message: its round state before the model, or the
    /// server's question about the update this client sent for the round, answered at once.
    void HandleCodecState(Ptr<MessageChannel> channel, const fedran::Frame& frame);
    void HandleDelivered(Ptr<MessageChannel> channel, const TransferRecord& record);
    /// The controller's inputs known when the model has arrived (adaptive uplink only).
    void GatherRoundInputs(uint32_t round, uint64_t frameBytes, double computeS);
    /// Picks the rung (or a skip) for `result` and encodes; an empty payload is a skip.
    void EncodeAdaptive(uint32_t round,
                        const fedran::TrainingResult& result,
                        std::vector<uint8_t>& payload,
                        UpdateSentRecord& record);
    /// The encoded update frame and what the trace reports about it.
    struct EncodedUpdate
    {
        std::vector<uint8_t> frame;
        UpdateSentRecord record;
    };

    void TrainAndSchedule(const fedran::Frame& frame);
    EncodedUpdate TrainAndEncode(uint32_t round);
    void SendUpdate(double computeS);
    void WaitForTraining();

    // Attributes
    uint32_t m_clientId;
    Address m_server;
    double m_samplesPerSecond;
    Time m_deadline;
    Ptr<MessageTransport> m_transport;
    Ptr<ClientAvailability> m_availability;

    std::shared_ptr<const fedran::FederatedTask> m_task;
    std::unique_ptr<fedran::Codec> m_modelDecoder;
    std::unique_ptr<fedran::Codec> m_updateEncoder;
    fedran::Rng m_trainRng;
    fedran::Rng m_codecRng;
    std::vector<float> m_model; ///< this client's copy of the global model
    std::vector<float> m_delta; ///< decoded downlink delta (downlink_reference client_view)
    Ptr<MessageChannel> m_channel;
    EventId m_sendEvent;
    EventId m_dropEvent;
    bool m_online;
    std::shared_ptr<ThreadPool> m_pool;
    std::future<EncodedUpdate> m_pending; ///< the training of the current round
    uint32_t m_sentRound; ///< round of the last update sent (0: none yet)

    fedran::LadderCodec* m_ladder = nullptr; ///< m_updateEncoder, if it is adaptive
    std::unique_ptr<fedran::control::RateController> m_controller;
    fedran::control::RoundInputs m_inputs; ///< this round's, for the training thread
    double m_inputsMeasuredBps = -1.0;     ///< m_lastMeasuredBps when m_inputs was gathered
    /// Rounds of the messages sent and not yet acknowledged, in order (0: not an update).
    std::deque<uint32_t> m_unacknowledged;
    Time m_rtt; ///< the transport's RTT at the last acknowledgement
    double m_lastMeasuredBps = -1.0;

    TracedCallback<uint32_t, uint32_t, uint64_t> m_modelReceivedTrace;
    TracedCallback<const UpdateSentRecord&> m_updateSentTrace;
    TracedCallback<uint32_t> m_leftTrace;
    TracedCallback<const UploadMeasuredRecord&> m_uploadMeasuredTrace;
};

} // namespace ns3

#endif
