#ifndef FEDRAN_MODELS_NS3_MODEL_FL_SERVER_APP_H
#define FEDRAN_MODELS_NS3_MODEL_FL_SERVER_APP_H

#include "models/fl/federated-task.h"
#include "models/fl/round-coordinator.h"
#include "models/fl/trace-records.h"
#include "models/ns3/model/child-connections.h"
#include "models/ns3/model/message-transport.h"

#include <ns3/application.h>
#include <ns3/event-id.h>
#include <ns3/nstime.h>
#include <ns3/random-variable-stream.h>
#include <ns3/traced-callback.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace ns3
{

/**
 * The federated-learning server as an ns-3 application: it accepts clients' channels, hands
 * their frames to a fedran::RoundCoordinator (which holds the whole round logic: selection,
 * deadlines, aggregation, evaluation; see models/fl/round-coordinator.h), carries out what
 * the coordinator asks (send a frame, arm a timer) on the simulator, and reports through
 * trace sources.
 */
class FlServerApp
    : public Application
    , private fedran::CoordinatorHost
{
  public:
    static TypeId GetTypeId();

    FlServerApp();
    ~FlServerApp() override;

    /// The learning problem; must be set before the application starts.
    void SetTask(std::shared_ptr<const fedran::FederatedTask> task);
    /// Asynchronous FL (server.mode "async") with these settings; call before the start.
    /// Rounds then counts server steps, and ClientsPerRound, OverSelect and Deadline are unused.
    void SetAsync(const fedran::AsyncConfig& config);
    /// Children that are edge aggregators (network.hubs[].aggregator), by the id they join
    /// with, each with its uplink codec spec; call before the start.
    void SetAggregatorChildren(std::map<uint32_t, fedran::CodecSpec> uplinkCodecs);

    /// Where server.selection "network" learns each client's path capacity now (PathCapacity,
    /// models/ns3/helper/path-capacity.h); without it the policy uses measurements only.
    using PathRates = std::function<std::optional<fedran::PathRate>(uint32_t client)>;
    void SetPathRates(PathRates rates);

    int64_t AssignStreams(int64_t stream);

    /// The round logic, once the application has started (nullptr before): for tests that
    /// look at the server's state, e.g. RoundCoordinator::ClientView.
    const fedran::ServerCoordinator* GetCoordinator() const
    {
        return m_coordinator.get();
    }

    typedef void (*JoinClosedCallback)(uint32_t joined, uint32_t expected);
    typedef void (*RoundStartedCallback)(uint32_t round, const std::vector<uint32_t>& selected);
    typedef void (*ModelSentCallback)(uint32_t round, uint32_t client, uint64_t frameBytes);
    typedef void (*ModelCodecCallback)(uint32_t round,
                                       uint32_t client,
                                       const std::string& downlinkCodec);
    typedef void (*UpdateArrivalCallback)(const fedran::UpdateArrivalRecord& record);
    typedef void (*RoundEndedCallback)(const fedran::RoundRecord& record);
    typedef void (*FinishedCallback)();

  private:
    void StartApplication() override;
    void StopApplication() override;
    void DoDispose() override;

    // fedran::CoordinatorHost
    double NowSeconds() const override;
    void Send(uint32_t client, std::vector<uint8_t> frame) override;
    void ArmTimer(fedran::CoordinatorTimer timer, int64_t delayTicks) override;
    void CancelTimer(fedran::CoordinatorTimer timer) override;
    uint32_t DrawInteger(uint32_t lo, uint32_t hi) override;
    bool KnowsPathRates() const override;
    std::optional<fedran::PathRate> PathRateOf(uint32_t client) const override;
    void JoinClosed(uint32_t joined, uint32_t expected) override;
    void RoundStarted(uint32_t round, const std::vector<uint32_t>& selected) override;
    void FrameSent(uint32_t round,
                   uint32_t client,
                   uint64_t frameBytes,
                   const std::string& downlinkCodec) override;
    void UpdateArrived(const fedran::UpdateArrivalRecord& record) override;
    void RoundEnded(const fedran::RoundRecord& record) override;
    void Finished() override;

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
    std::unique_ptr<fedran::ServerCoordinator> m_coordinator;
    std::optional<fedran::AsyncConfig> m_async; ///< set: server.mode async
    std::map<uint32_t, fedran::CodecSpec> m_aggregatorChildren;
    PathRates m_pathRates; ///< empty: no path capacities
    Ptr<UniformRandomVariable> m_sampler;
    std::unique_ptr<ChildConnections> m_clients;      ///< from the start on
    EventId m_timers[fedran::kCoordinatorTimerCount]; ///< by fedran::CoordinatorTimer

    TracedCallback<uint32_t, uint32_t> m_joinClosedTrace;
    TracedCallback<uint32_t, const std::vector<uint32_t>&> m_roundStartedTrace;
    TracedCallback<uint32_t, uint32_t, uint64_t> m_modelSentTrace;
    TracedCallback<uint32_t, uint32_t, const std::string&> m_modelCodecTrace;
    TracedCallback<const fedran::UpdateArrivalRecord&> m_updateArrivalTrace;
    TracedCallback<const fedran::RoundRecord&> m_roundEndedTrace;
    TracedCallback<> m_finishedTrace;
};

} // namespace ns3

#endif
