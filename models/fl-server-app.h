#ifndef FEDRAN_MODELS_FL_SERVER_APP_H
#define FEDRAN_MODELS_FL_SERVER_APP_H

#include "compression/codec.h"
#include "models/fl-trace-records.h"
#include "models/learning/federated-task.h"
#include "models/learning/server-optimizer.h"
#include "models/message-transport.h"

#include <ns3/application.h>
#include <ns3/event-id.h>
#include <ns3/nstime.h>
#include <ns3/random-variable-stream.h>
#include <ns3/traced-callback.h>

#include <map>
#include <memory>
#include <set>
#include <span>
#include <vector>

namespace ns3
{

/**
 * The federated-learning server: runs synchronous FedAvg rounds over MessageChannels.
 *
 * Each round it samples ceil(OverSelect x ClientsPerRound) idle clients, sends each the
 * encoded global model, and aggregates the first ClientsPerRound updates that arrive before
 * Deadline; the round closes as soon as it has them (or nobody is outstanding, or at the
 * deadline). A client whose update is still outstanding when a round ends is "late": it is
 * not selected again until that update has arrived (and been discarded), since a real server
 * would not queue work behind it. A client whose connection closes or resets while it is
 * selected has "dropped"; when it connects again it joins afresh. A round without any update
 * leaves the global model as it was.
 *
 * With a two-exchange uplink codec (power_sgd) a round has two phases inside the same
 * deadline: the codec's state goes out before the model, the first payloads are combined
 * once every selected client has sent one (or failed), the codec's message goes back to
 * those clients, and their replies make the update. ModelSent reports every server frame
 * and UpdateArrival the reply, so both exchanges' bytes and times are in the traces.
 */
class FlServerApp : public Application
{
  public:
    static TypeId GetTypeId();

    FlServerApp();
    ~FlServerApp() override;

    /// The learning problem; must be set before the application starts.
    void SetTask(std::shared_ptr<const fedran::FederatedTask> task);

    const std::vector<float>& GetGlobalParams() const
    {
        return m_global;
    }

    int64_t AssignStreams(int64_t stream);

    typedef void (*RoundStartedCallback)(uint32_t round, const std::vector<uint32_t>& selected);
    typedef void (*ModelSentCallback)(uint32_t round, uint32_t client, uint64_t frameBytes);
    typedef void (*UpdateArrivalCallback)(const UpdateArrivalRecord& record);
    typedef void (*RoundEndedCallback)(const RoundRecord& record);
    typedef void (*FinishedCallback)();

  private:
    void StartApplication() override;
    void StopApplication() override;
    void DoDispose() override;

    void HandleAccept(Ptr<MessageChannel> channel);
    void HandleFrame(Ptr<MessageChannel> channel, const fedran::Frame& frame);
    void HandleChannelError(Ptr<MessageChannel> channel, const std::string& why);
    void HandleJoin(Ptr<MessageChannel> channel, const fedran::Frame& frame);
    void HandleUpdate(const fedran::Frame& frame);
    void HandleReply(const fedran::Frame& frame);
    /// Throws DecodeError unless an update or reply frame names the uplink codec and a weight.
    void CheckUplinkFrame(const fedran::Frame& frame) const;
    /// Two-exchange codecs: combines the first payloads and asks their senders for replies.
    void CloseFirstPhase();
    /// Queues a frame for a client and reports its size (ModelSent).
    void SendToClient(uint32_t client, fedran::FrameType type, uint16_t codec,
                      std::span<const uint8_t> payload);

    void StartRound();
    void EndRound();
    std::vector<uint32_t> SampleClients();
    /// Marks a selected client as answered (or failed) and ends the round when none remain.
    void SettleClient(uint32_t client);
    /// Forgets a client whose connection ended; a selected one is reported with `fate`.
    void RemoveClient(uint32_t client, UpdateFate fate, const std::string& why);
    /// The uplink decoder of `client`, told the current round.
    fedran::Codec& DecoderFor(uint32_t client);
    /// Downlink payload of global − (the client's copy), and the copy moved as the client will.
    std::vector<uint8_t> EncodeForClientView(uint32_t client);

    // Attributes
    uint16_t m_port;
    uint32_t m_rounds;
    uint32_t m_clientsPerRound;
    double m_overSelect;
    uint32_t m_expectedClients;
    Time m_deadline;
    Time m_joinTimeout;
    Ptr<MessageTransport> m_transport;

    std::shared_ptr<const fedran::FederatedTask> m_task;
    Ptr<UniformRandomVariable> m_sampler;
    std::unique_ptr<fedran::Codec> m_modelEncoder; ///< also decodes, to mirror client views

    /// With compression.downlink_reference = client_view: what each client holds, and its
    /// downlink encoder (a codec may keep per-client state, like error feedback's residual).
    struct ClientView
    {
        std::vector<float> model;
        std::unique_ptr<fedran::Codec> encoder;
    };

    std::map<uint32_t, ClientView> m_views;
    std::map<uint32_t, std::unique_ptr<fedran::Codec>> m_decoders;
    fedran::Rng m_codecRng;

    std::map<uint32_t, Ptr<MessageChannel>> m_clients; ///< joined clients by id
    std::set<uint32_t> m_busy;    ///< clients whose update for an earlier round is outstanding
    std::set<uint32_t> m_pending; ///< selected this round, not answered yet
    std::vector<uint32_t> m_selected;

    std::vector<float> m_global;
    std::vector<float> m_scratch;
    std::unique_ptr<fedran::Aggregator> m_aggregator; ///< the uplink codec's combination rule
    /// Server side of a two-exchange uplink codec (nullptr otherwise: payloads decode alone).
    std::unique_ptr<fedran::RoundExchange> m_exchange;
    uint16_t m_uplinkCodecId;
    bool m_firstPhase;                   ///< two-exchange round waiting for first payloads
    std::vector<uint32_t> m_contributors; ///< clients whose first payload was combined
    std::vector<float> m_combined;
    std::unique_ptr<fedran::ServerOptimizer> m_optimizer;
    uint32_t m_round; ///< current round, 1-based; 0 before the first
    Time m_roundStart;
    bool m_started;
    EventId m_deadlineEvent;
    EventId m_joinTimeoutEvent;

    TracedCallback<uint32_t, const std::vector<uint32_t>&> m_roundStartedTrace;
    TracedCallback<uint32_t, uint32_t, uint64_t> m_modelSentTrace;
    TracedCallback<const UpdateArrivalRecord&> m_updateArrivalTrace;
    TracedCallback<const RoundRecord&> m_roundEndedTrace;
    TracedCallback<> m_finishedTrace;
};

} // namespace ns3

#endif
