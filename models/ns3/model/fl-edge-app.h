#ifndef FEDRAN_MODELS_NS3_MODEL_FL_EDGE_APP_H
#define FEDRAN_MODELS_NS3_MODEL_FL_EDGE_APP_H

#include "models/fl/edge-aggregator.h"
#include "models/fl/federated-task.h"
#include "models/fl/trace-records.h"
#include "models/ns3/model/child-connections.h"
#include "models/ns3/model/message-transport.h"
#include "models/ns3/model/reconnect-backoff.h"

#include <ns3/address.h>
#include <ns3/application.h>
#include <ns3/event-id.h>
#include <ns3/nstime.h>
#include <ns3/random-variable-stream.h>
#include <ns3/traced-callback.h>

#include <map>
#include <memory>

namespace ns3
{

/**
 * An edge aggregator (network.hubs[].aggregator) as an ns-3 application on a hub node: the
 * hub site's MEC server, co-located with the hub's router. Toward the sites and aggregators
 * behind it, it listens like FlServerApp; toward its parent (an aggregator further up, or
 * the server) it connects and joins like FlClientApp. Everything it decides is a
 * fedran::EdgeAggregator's (models/fl/edge-aggregator.h); this class carries frames and
 * timers and reports through trace sources.
 *
 * It joins its parent once its own children have joined (or its JoinTimeout has passed),
 * so that the parent's first round finds it ready; a lost parent connection is opened again
 * after a backoff as a client's is.
 */
class FlEdgeApp
    : public Application
    , private fedran::EdgeHost
{
  public:
    static TypeId GetTypeId();

    FlEdgeApp();
    ~FlEdgeApp() override;

    /// The learning problem and the aggregator's settings; before the application starts.
    void SetAggregator(std::shared_ptr<const fedran::FederatedTask> task,
                       const fedran::EdgeAggregatorConfig& config);

    /// Fixes the streams of child sampling and reconnection delays; returns streams used.
    int64_t AssignStreams(int64_t stream);

    typedef void (*EdgeRoundEndedCallback)(const fedran::EdgeRoundRecord& record);

  private:
    void StartApplication() override;
    void StopApplication() override;
    void DoDispose() override;

    // Parent.
    void ConnectParent();
    void HandleParentConnected(Ptr<MessageChannel> channel);
    void HandleParentFrame(Ptr<MessageChannel> channel,
                           const fedran::Frame& frame,
                           const FrameReceipt& receipt);
    void HandleParentError(Ptr<MessageChannel> channel, const std::string& why);

    // fedran::EdgeHost
    double NowSeconds() const override;
    void Send(uint32_t client, std::vector<uint8_t> frame) override;
    void ArmTimer(fedran::CoordinatorTimer timer, int64_t delayTicks) override;
    void CancelTimer(fedran::CoordinatorTimer timer) override;
    uint32_t DrawInteger(uint32_t lo, uint32_t hi) override;
    void JoinClosed(uint32_t joined, uint32_t expected) override;
    void RoundStarted(uint32_t round, const std::vector<uint32_t>& selected) override;
    void FrameSent(uint32_t round,
                   uint32_t client,
                   uint64_t frameBytes,
                   const std::string& downlinkCodec) override;
    void UpdateArrived(const fedran::UpdateArrivalRecord& record) override;
    void RoundEnded(const fedran::RoundRecord& record) override;
    void Finished() override;
    void ReadyForParent() override;
    void SendToParent(std::vector<uint8_t> frame) override;
    void EdgeRoundEnded(const fedran::EdgeRoundRecord& record) override;

    // Attributes
    uint16_t m_port;
    Address m_parent;
    Time m_joinTimeout;
    Time m_reconnectBackoff;
    Time m_reconnectBackoffMax;
    Ptr<MessageTransport> m_transport;

    std::shared_ptr<const fedran::FederatedTask> m_task;
    fedran::EdgeAggregatorConfig m_config;
    std::unique_ptr<fedran::EdgeAggregator> m_aggregator;
    Ptr<UniformRandomVariable> m_sampler;
    Ptr<UniformRandomVariable> m_reconnectRng;
    std::unique_ptr<ChildConnections> m_children; ///< from the start on
    Ptr<MessageChannel> m_parentChannel;
    bool m_wantParent = false;  ///< its children have joined: it belongs at its parent
    ReconnectBackoff m_backoff; ///< toward the parent
    EventId m_connectEvent;
    EventId m_timers[fedran::kCoordinatorTimerCount]; ///< by fedran::CoordinatorTimer

    TracedCallback<uint32_t, uint32_t, uint64_t> m_modelReceivedTrace;
    TracedCallback<const fedran::UpdateSentRecord&> m_updateSentTrace;
    TracedCallback<uint32_t, uint32_t, uint64_t> m_modelSentTrace;
    TracedCallback<const fedran::UpdateArrivalRecord&> m_updateArrivalTrace;
    TracedCallback<const fedran::EdgeRoundRecord&> m_edgeRoundEndedTrace;
};

} // namespace ns3

#endif
