#include "models/ns3/model/fl-edge-app.h"

#include <ns3/log.h>
#include <ns3/pointer.h>
#include <ns3/simulator.h>
#include <ns3/uinteger.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlEdgeApp");
NS_OBJECT_ENSURE_REGISTERED(FlEdgeApp);

TypeId
FlEdgeApp::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlEdgeApp")
            .SetParent<Application>()
            .SetGroupName("Fedran")
            .AddConstructor<FlEdgeApp>()
            .AddAttribute("Port",
                          "Port the aggregator listens on for its children.",
                          UintegerValue(7000),
                          MakeUintegerAccessor(&FlEdgeApp::m_port),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("Parent",
                          "Address and port of the parent: the next aggregator up, or the "
                          "server.",
                          AddressValue(),
                          MakeAddressAccessor(&FlEdgeApp::m_parent),
                          MakeAddressChecker())
            .AddAttribute("JoinTimeout",
                          "Join the parent with whichever children have joined by then.",
                          TimeValue(Seconds(30)),
                          MakeTimeAccessor(&FlEdgeApp::m_joinTimeout),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("ReconnectBackoff",
                          "Delay scale of the first retry after a failed or lost parent "
                          "connection; it doubles with each consecutive failure.",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&FlEdgeApp::m_reconnectBackoff),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("ReconnectBackoffMax",
                          "Cap of the reconnection delay scale.",
                          TimeValue(Seconds(30)),
                          MakeTimeAccessor(&FlEdgeApp::m_reconnectBackoffMax),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("Transport",
                          "How messages cross the network.",
                          PointerValue(),
                          MakePointerAccessor(&FlEdgeApp::m_transport),
                          MakePointerChecker<MessageTransport>())
            .AddTraceSource("ModelReceived",
                            "A model from the parent arrived and was decoded.",
                            MakeTraceSourceAccessor(&FlEdgeApp::m_modelReceivedTrace),
                            "ns3::FlClientApp::ModelReceivedCallback")
            .AddTraceSource("UpdateSent",
                            "The aggregated update was handed to the network.",
                            MakeTraceSourceAccessor(&FlEdgeApp::m_updateSentTrace),
                            "ns3::FlClientApp::UpdateSentCallback")
            .AddTraceSource("ModelSent",
                            "An edge model frame was queued for a child.",
                            MakeTraceSourceAccessor(&FlEdgeApp::m_modelSentTrace),
                            "ns3::FlServerApp::ModelSentCallback")
            .AddTraceSource("UpdateArrival",
                            "A child's update arrived (accepted, late or failed) or a "
                            "selected child dropped.",
                            MakeTraceSourceAccessor(&FlEdgeApp::m_updateArrivalTrace),
                            "ns3::FlServerApp::UpdateArrivalCallback")
            .AddTraceSource("EdgeRoundEnded",
                            "An edge round was combined.",
                            MakeTraceSourceAccessor(&FlEdgeApp::m_edgeRoundEndedTrace),
                            "ns3::FlEdgeApp::EdgeRoundEndedCallback");
    return tid;
}

FlEdgeApp::FlEdgeApp()
    : m_port(7000)
    , m_sampler(CreateObject<UniformRandomVariable>())
    , m_reconnectRng(CreateObject<UniformRandomVariable>())
{
}

FlEdgeApp::~FlEdgeApp() = default;

void
FlEdgeApp::SetAggregator(std::shared_ptr<const fedran::FederatedTask> task,
                         const fedran::EdgeAggregatorConfig& config)
{
    m_task = std::move(task);
    m_config = config;
}

int64_t
FlEdgeApp::AssignStreams(int64_t stream)
{
    m_sampler->SetStream(stream);
    m_reconnectRng->SetStream(stream + 1);
    return 2;
}

void
FlEdgeApp::StartApplication()
{
    NS_ABORT_MSG_IF(!m_task, "FlEdgeApp: SetAggregator was not called");
    NS_ABORT_MSG_IF(!m_transport, "FlEdgeApp: no Transport");
    m_config.tier.joinTimeoutTicks = m_joinTimeout.GetTimeStep();
    m_config.tier.ticksPerSecond = double(Seconds(1).GetTimeStep());
    fedran::EdgeHost& host = *this;
    m_aggregator = std::make_unique<fedran::EdgeAggregator>(m_config, m_task, host);
    fedran::EdgeAggregator* aggregator = m_aggregator.get();
    ChildConnections::Handlers handlers;
    handlers.admits = [aggregator](uint32_t child) {
        return aggregator->Admits(child);
    };
    handlers.joined = [aggregator](uint32_t child) {
        aggregator->OnChildJoin(child);
    };
    handlers.frame = [aggregator](const fedran::Frame& frame) {
        return aggregator->OnChildFrame(frame);
    };
    handlers.lost = [aggregator](uint32_t child, fedran::UpdateFate fate, const std::string& why) {
        aggregator->OnChildLost(child, fate, why);
    };
    m_children = std::make_unique<ChildConnections>("hub " + std::to_string(m_config.hub),
                                                    std::move(handlers));
    m_transport->Listen(GetNode(),
                        m_port,
                        MakeCallback(&ChildConnections::Accept, m_children.get()));
    m_aggregator->Start();
}

void
FlEdgeApp::StopApplication()
{
    m_connectEvent.Cancel();
    if (m_aggregator)
    {
        m_aggregator->Stop();
    }
    if (m_children)
    {
        m_children->CloseAll();
    }
    if (m_parentChannel)
    {
        m_parentChannel->Close();
    }
}

void
FlEdgeApp::DoDispose()
{
    if (m_children)
    {
        m_children->Clear(); // kept: a late callback of a channel may still reach it
    }
    m_parentChannel = nullptr;
    m_transport = nullptr;
    m_aggregator.reset();
    m_task.reset();
    Application::DoDispose();
}

void
FlEdgeApp::ConnectParent()
{
    m_transport->Connect(GetNode(),
                         m_parent,
                         MakeCallback(&FlEdgeApp::HandleParentConnected, this));
}

void
FlEdgeApp::HandleParentConnected(Ptr<MessageChannel> channel)
{
    if (!channel)
    {
        // As a client does: try again after a growing, randomised delay.
        m_connectEvent = Simulator::Schedule(
            m_backoff.NextDelay(m_reconnectBackoff, m_reconnectBackoffMax, m_reconnectRng),
            &FlEdgeApp::ConnectParent,
            this);
        return;
    }
    if (m_parentChannel)
    {
        channel->Abort();
        return;
    }
    m_parentChannel = channel;
    m_backoff.Reset();
    m_parentChannel->SetFrameCallback(MakeCallback(&FlEdgeApp::HandleParentFrame, this));
    m_parentChannel->SetErrorCallback(MakeCallback(&FlEdgeApp::HandleParentError, this));
    m_parentChannel->Send(m_aggregator->BeginParentConnection());
}

void
FlEdgeApp::HandleParentFrame(Ptr<MessageChannel> channel,
                             const fedran::Frame& frame,
                             const FrameReceipt&)
{
    const uint64_t bytes = fedran::kFrameHeaderSize + frame.payload.size();
    if (auto error = m_aggregator->OnParentFrame(frame))
    {
        HandleParentError(channel, *error);
        return;
    }
    m_modelReceivedTrace(frame.header.round, m_config.id, bytes);
}

void
FlEdgeApp::HandleParentError(Ptr<MessageChannel> channel, const std::string& why)
{
    NS_LOG_WARN("hub " << m_config.hub << ": parent connection: " << why);
    channel->Close();
    if (channel == m_parentChannel)
    {
        m_parentChannel = nullptr;
        HandleParentConnected(nullptr); // schedules the reconnection
    }
}

double
FlEdgeApp::NowSeconds() const
{
    return Simulator::Now().GetSeconds();
}

void
FlEdgeApp::Send(uint32_t client, std::vector<uint8_t> frame)
{
    m_children->Send(client, std::move(frame));
}

void
FlEdgeApp::ArmTimer(fedran::CoordinatorTimer timer, int64_t delayTicks)
{
    m_timers[size_t(timer)] = Simulator::Schedule(TimeStep(delayTicks),
                                                  &fedran::EdgeAggregator::OnTimer,
                                                  m_aggregator.get(),
                                                  timer);
}

void
FlEdgeApp::CancelTimer(fedran::CoordinatorTimer timer)
{
    m_timers[size_t(timer)].Cancel();
}

uint32_t
FlEdgeApp::DrawInteger(uint32_t lo, uint32_t hi)
{
    return m_sampler->GetInteger(lo, hi);
}

void
FlEdgeApp::JoinClosed(uint32_t joined, uint32_t expected)
{
    if (joined < expected)
    {
        NS_LOG_WARN("hub " << m_config.hub << ": " << expected - joined << " of " << expected
                           << " children had not joined by the join timeout");
    }
}

void
FlEdgeApp::RoundStarted(uint32_t, const std::vector<uint32_t>&)
{
}

void
FlEdgeApp::FrameSent(uint32_t round, uint32_t client, uint64_t frameBytes, const std::string&)
{
    m_modelSentTrace(round, client, frameBytes);
}

void
FlEdgeApp::UpdateArrived(const fedran::UpdateArrivalRecord& record)
{
    m_updateArrivalTrace(record);
}

void
FlEdgeApp::RoundEnded(const fedran::RoundRecord&)
{
}

void
FlEdgeApp::Finished()
{
}

void
FlEdgeApp::ReadyForParent()
{
    if (!m_wantParent)
    {
        m_wantParent = true;
        ConnectParent();
    }
}

void
FlEdgeApp::SendToParent(std::vector<uint8_t> frame)
{
    const fedran::Frame parsed = fedran::DecodeFrame(frame);
    fedran::UpdateSentRecord record;
    record.round = parsed.header.round;
    record.client = m_config.id;
    record.rawBytes = m_task->model->Layout().TotalSize() * sizeof(float);
    record.frameBytes = frame.size();
    record.codec = m_config.uplinkCodec.Type();
    if (!m_parentChannel)
    {
        // The connection to the parent broke during the episode: the parent has counted this
        // aggregator as dropped, and the update has nowhere to go.
        NS_LOG_WARN("hub " << m_config.hub << ": update for round " << record.round
                           << " dropped, no parent connection");
        return;
    }
    m_updateSentTrace(record);
    m_parentChannel->Send(std::move(frame));
}

void
FlEdgeApp::EdgeRoundEnded(const fedran::EdgeRoundRecord& record)
{
    m_edgeRoundEndedTrace(record);
}

} // namespace ns3
