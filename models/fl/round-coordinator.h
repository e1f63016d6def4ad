#ifndef FEDRAN_MODELS_FL_ROUND_COORDINATOR_H
#define FEDRAN_MODELS_FL_ROUND_COORDINATOR_H

// The server's side of synchronous federated learning, without ns-3: which clients have
// joined, who is selected, when a round ends, what becomes of each update, how updates are
// combined and when the model is evaluated. It is driven by events (a client joined or was
// lost, a frame arrived, a timer fired) and acts through a CoordinatorHost (send a frame, arm
// or cancel a timer, report). FlServerApp is the ns-3 host; tests drive it with a fake clock.

#include "compression/codec-spec.h"
#include "models/fl/aggregation-rule.h"
#include "models/fl/bucket-assembler.h"
#include "models/fl/client-view-encoder.h"
#include "models/fl/federated-task.h"
#include "models/fl/server-clock.h"
#include "models/fl/server-state.h"
#include "models/fl/staleness.h"
#include "models/fl/trace-records.h"
#include "models/fl/update-frame.h"
#include "models/learning/server-optimizer.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace fedran
{

/// The coordinator's timers; at most one of each is armed at a time.
enum class CoordinatorTimer
{
    JoinTimeout, ///< start the first round with whoever has joined
    Deadline,    ///< the current round's deadline
    RoundClose,  ///< the server's aggregation and evaluation of the closed round are done
    PhaseClose,  ///< a two-exchange codec's server work between the phases is done
};

/// Everything the coordinator asks of the world around it.
class CoordinatorHost
{
  public:
    virtual ~CoordinatorHost() = default;

    /// The current time, for the round records.
    virtual double NowSeconds() const = 0;
    /// Queues a whole frame for a joined client.
    virtual void Send(uint32_t client, std::vector<uint8_t> frame) = 0;
    /// Calls RoundCoordinator::OnTimer(timer) `delayTicks` host time steps from now.
    virtual void ArmTimer(CoordinatorTimer timer, int64_t delayTicks) = 0;
    virtual void CancelTimer(CoordinatorTimer timer) = 0;
    /// A uniform integer in [lo, hi] from the server's sampling stream.
    virtual uint32_t DrawInteger(uint32_t lo, uint32_t hi) = 0;

    // Reports.
    /// The first round is about to start: `joined` clients have joined of the `expected`
    /// (fewer when the join timeout fired first).
    virtual void JoinClosed(uint32_t joined, uint32_t expected) = 0;
    virtual void RoundStarted(uint32_t round, const std::vector<uint32_t>& selected) = 0;
    virtual void FrameSent(uint32_t round, uint32_t client, uint64_t frameBytes) = 0;
    virtual void UpdateArrived(const UpdateArrivalRecord& record) = 0;
    virtual void RoundEnded(const RoundRecord& record) = 0;
    virtual void Finished() = 0;

    /// An edge tier (CoordinatorConfig::episodic): the last round of an episode has ended;
    /// GlobalParams() is the episode's model.
    virtual void EpisodeEnded()
    {
    }
};

struct CoordinatorConfig
{
    uint32_t rounds = 1;
    uint32_t clientsPerRound = 1;
    /// Select ceil(overSelect x clientsPerRound); aggregate the first clientsPerRound.
    double overSelect = 1.0;
    /// The first round starts once this many have joined (or at the join timeout).
    uint32_t expectedClients = 1;
    int64_t deadlineTicks = 0;    ///< from a round's start; host time steps
    int64_t joinTimeoutTicks = 0; ///< from Start()
    /// Host time steps per simulated second: the server's compute times become timers.
    double ticksPerSecond = 1e9;
    /// server.mode "async": AsyncCoordinator's settings (server.async); unused in sync mode.
    bool async = false;
    AsyncConfig asyncConfig;

    /// An edge aggregator's tier (network.hubs[].aggregator, EdgeAggregator): rounds run
    /// only in episodes that BeginEpisode starts from the model its parent sent; the join
    /// closing starts nothing; each round's combined update is added as it is (the server
    /// optimiser is the cloud's), nothing is evaluated (the record's accuracy and loss are
    /// NaN) and the collusion oracle is not told (colluding attacks are refused with edge
    /// aggregation).
    bool episodic = false;
    /// The codec of the model frames this tier sends (empty: the task's downlink codec).
    CodecSpec downlinkCodec;
    /// Children that are edge aggregators, by the id they join with (the number of sites +
    /// the hub's index), each with the uplink codec its updates use; sites use the task's.
    std::map<uint32_t, CodecSpec> aggregatorUplinkCodecs;
    /// The stream of the downlink codec's draws (an edge tier has its own).
    uint64_t codecStream = kServerCodecStream;
};

/**
 * What the server application drives, in either mode: RoundCoordinator (synchronous rounds)
 * or AsyncCoordinator (FedAsync / FedBuff). Made by MakeServerCoordinator.
 */
class ServerCoordinator
{
  public:
    virtual ~ServerCoordinator() = default;

    /// Arms the join timeout.
    virtual void Start() = 0;
    /// Disarms every timer; nothing more happens.
    virtual void Stop() = 0;
    /// Whether a join from `client` can be accepted at all (a known client id).
    virtual bool Admits(uint32_t client) const = 0;
    /// `client` joined (Admits was true). A client already joined is taken to have
    /// reconnected: its old session is lost ("dropped", "reconnected") first.
    virtual void OnJoin(uint32_t client) = 0;
    /// The connection of a joined client ended; `fate` is Dropped (peer gone) or Failed.
    virtual void OnClientLost(uint32_t client, UpdateFate fate, const std::string& why) = 0;
    /// A frame from a client other than a join. Returns why the frame breaks the protocol
    /// (the host should end that connection), or nothing. A `corrupt` update or reply (CRC
    /// mismatch) is dropped with fate Corrupt and the connection kept; its header's client
    /// must be the connection's (the host sets it: the damaged header is not trusted).
    virtual std::optional<std::string> OnFrame(const Frame& frame) = 0;
    virtual void OnTimer(CoordinatorTimer timer) = 0;
    virtual const std::vector<float>& GlobalParams() const = 0;

  protected:
    /// The join timeout, the same in both modes: armed by Start, disarmed when the first
    /// round (or step) starts before it fires, or by Stop.
    void ArmJoinTimeout(CoordinatorHost& host, int64_t delayTicks)
    {
        m_joinTimeoutArmed = true;
        host.ArmTimer(CoordinatorTimer::JoinTimeout, delayTicks);
    }

    void CancelJoinTimeout(CoordinatorHost& host)
    {
        if (m_joinTimeoutArmed)
        {
            m_joinTimeoutArmed = false;
            host.CancelTimer(CoordinatorTimer::JoinTimeout);
        }
    }

    void JoinTimeoutFired()
    {
        m_joinTimeoutArmed = false;
    }

  private:
    bool m_joinTimeoutArmed = false;
};

/// Throws DecodeError unless an update or reply frame names the uplink codec and a weight.
void CheckUpdateFrame(const Frame& frame, uint16_t uplinkCodecId);

/// The coordinator for `config`'s mode.
std::unique_ptr<ServerCoordinator> MakeServerCoordinator(CoordinatorConfig config,
                                                         std::shared_ptr<const FederatedTask> task,
                                                         CoordinatorHost& host);

/**
 * Synchronous FedAvg rounds. Each round samples ceil(overSelect x clientsPerRound) idle
 * clients, sends each the encoded global model, and aggregates the first clientsPerRound
 * updates that arrive before the deadline; the round closes as soon as it has them (or nobody
 * is outstanding, or at the deadline). A client whose update is still outstanding when a round
 * ends is "late": it is not selected again until that update has arrived (and been
 * discarded). A client lost while selected has "dropped" (peer gone) or "failed" (bad
 * frame); when it joins again it joins afresh. A round without any update leaves the global
 * model as it was.
 *
 * With a two-exchange uplink codec (power_sgd) a round has two phases inside the same
 * deadline: the codec's state goes out before the model, the first payloads are combined once
 * every selected client has sent one (or failed), the codec's message goes back to those
 * clients, and their replies make the update.
 */
class RoundCoordinator : public ServerCoordinator
{
  public:
    RoundCoordinator(CoordinatorConfig config,
                     std::shared_ptr<const FederatedTask> task,
                     CoordinatorHost& host);
    ~RoundCoordinator();

    RoundCoordinator(const RoundCoordinator&) = delete;
    RoundCoordinator& operator=(const RoundCoordinator&) = delete;

    void Start() override;
    void Stop() override;
    bool Admits(uint32_t client) const override;
    void OnJoin(uint32_t client) override;
    void OnClientLost(uint32_t client, UpdateFate fate, const std::string& why) override;
    std::optional<std::string> OnFrame(const Frame& frame) override;
    void OnTimer(CoordinatorTimer timer) override;

    const std::vector<float>& GlobalParams() const override
    {
        return m_state.global;
    }

    size_t JoinedCount() const
    {
        return m_joined.size();
    }

    /// Episodic tier: runs `rounds` rounds from `model`, then reports EpisodeEnded. An
    /// episode in progress is abandoned (its round ends now, its updates will be late).
    void BeginEpisode(std::span<const float> model, uint32_t rounds);

    /// Episodic tier: whether an episode is running.
    bool InEpisode() const
    {
        return m_round < m_episodeEnd;
    }

  private:
    void HandleUpdate(const Frame& frame);
    void HandleReply(const Frame& frame);
    void HandleCorrupt(const Frame& frame);
    /// A bucket of a layerwise-pipelined update: decoded into the client's partial update,
    /// which is folded in once its last bucket has arrived.
    void HandlePart(const Frame& frame);
    /// The record of an update or reply frame, fate still to be set.
    static UpdateArrivalRecord ArrivalOf(const Frame& frame);
    void DiscardLate(UpdateArrivalRecord record);
    /// Throws DecodeError unless an update or reply frame names the uplink codec and a weight.
    void CheckUplinkFrame(const Frame& frame) const;
    /// Decodes a one-exchange update into the rule (or reuses / omits a skip).
    void AddUpdate(uint32_t client, const Frame& frame, UpdateArrivalRecord& record);
    void StartRound();
    void EndRound();
    /// Two-exchange codecs: combines the first payloads and asks their senders for replies.
    void CloseFirstPhase();
    std::vector<uint32_t> SampleClients();
    /// Marks a selected client as answered (or failed) and ends the round when none remain.
    void SettleClient(uint32_t client);
    void RemoveClient(uint32_t client, UpdateFate fate, const std::string& why);
    void SendToClient(uint32_t client,
                      FrameType type,
                      uint16_t codec,
                      std::span<const uint8_t> payload);
    /// The uplink decoder of `client`, told the current round.
    Codec& DecoderFor(uint32_t client);
    /// The uplink codec spec of `client`'s updates.
    const CodecSpec& UplinkSpecOf(uint32_t client) const;
    /// The first round starts (or, episodic, the join is only reported).
    void CloseJoin();
    void ArmDeadline();
    void CancelDeadline();
    /// Reports the closed round and starts the next (or finishes).
    void ReportRound();
    /// Two-exchange codecs: sends the mid-round message to the contributors.
    void SendPhaseMessages();

    CoordinatorConfig m_config;
    std::shared_ptr<const FederatedTask> m_task;
    CoordinatorHost& m_host;
    ServerState m_state;
    ServerClock m_clock; ///< the server's decoding, folding, applying and evaluating

    ClientViewEncoder m_views; ///< compression.downlink_reference client_view
    std::map<uint32_t, std::unique_ptr<Codec>> m_decoders;
    BucketAssembler m_buckets; ///< training.pipelining layerwise: buckets so far

    std::set<uint32_t> m_joined;  ///< joined clients, in id order (sampling depends on it)
    std::set<uint32_t> m_busy;    ///< clients whose update for an earlier round is outstanding
    std::set<uint32_t> m_pending; ///< selected this round, not answered yet
    std::vector<uint32_t> m_selected;

    std::vector<uint32_t> m_added; ///< clients whose update went into m_rule, in Add order
    /// Server side of a two-exchange uplink codec (nullptr otherwise: payloads decode alone).
    std::unique_ptr<RoundExchange> m_exchange;
    uint16_t m_uplinkCodecId = 0;
    std::map<uint32_t, uint16_t> m_aggregatorCodecIds; ///< by child id (aggregatorUplinkCodecs)
    uint32_t m_episodeEnd = 0;                         ///< episodic: the episode's last round
    bool m_firstPhase = false;                 ///< two-exchange round waiting for first payloads
    std::vector<uint32_t> m_contributors;      ///< clients whose first payload was combined
    std::map<uint32_t, double> m_firstDecodeS; ///< their first payloads' decode_s
    uint32_t m_round = 0;                      ///< current round, 1-based; 0 before the first
    double m_roundStartS = 0.0;
    bool m_started = false;
    bool m_deadlineArmed = false;
    RoundRecord m_closed;                ///< the closed round, reported at its RoundClose timer
    bool m_closing = false;              ///< RoundClose armed
    std::vector<uint8_t> m_phaseMessage; ///< to send at the PhaseClose timer
    bool m_phaseClosing = false;         ///< PhaseClose armed
};

} // namespace fedran

#endif
