#ifndef FEDRAN_MODELS_FL_SERVER_COORDINATOR_H
#define FEDRAN_MODELS_FL_SERVER_COORDINATOR_H

// What the server application drives, without ns-3, in either mode: the events it hands over
// (a client joined or was lost, a frame arrived, a timer fired), what the coordinator asks of
// it in return (CoordinatorHost: send a frame, arm or cancel a timer, report) and the settings
// of both modes. RoundCoordinator runs synchronous rounds, AsyncCoordinator FedAsync / FedBuff;
// FlServerApp is the ns-3 host, tests drive them with a fake clock.

#include "compression/codec-spec.h"
#include "models/fl/federated-task.h"
#include "models/fl/selection-policy.h"
#include "models/fl/staleness.h"
#include "models/fl/trace-records.h"
#include "models/fl/update-frame.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
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
    PollTimeout, ///< power_of_choice pow-d: stop waiting for the candidates' losses
    SecAggStage, ///< privacy.secure_aggregation: a key or unmask stage's timeout_s
};

/// How many CoordinatorTimer values there are (a host's table of armed timers).
constexpr size_t kCoordinatorTimerCount = 6;

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
    /// Whether PathRateOf can know any client's path capacity.
    virtual bool KnowsPathRates() const
    {
        return false;
    }
    /// Client `client`'s path capacity now (server.selection "network"), or nullopt where the
    /// links cannot state it.
    virtual std::optional<PathRate> PathRateOf(uint32_t /* client */) const
    {
        return std::nullopt;
    }

    // Reports.
    /// The first round is about to start: `joined` clients have joined of the `expected`
    /// (fewer when the join timeout fired first).
    virtual void JoinClosed(uint32_t joined, uint32_t expected) = 0;
    virtual void RoundStarted(uint32_t round, const std::vector<uint32_t>& selected) = 0;
    /// A frame for `client`; `downlinkCodec` is the codec of a model frame (clients.csv
    /// downlink_codec: the type, or an adaptive downlink's rung), empty for other frames.
    virtual void FrameSent(uint32_t round,
                           uint32_t client,
                           uint64_t frameBytes,
                           const std::string& downlinkCodec) = 0;
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

} // namespace fedran

#endif
