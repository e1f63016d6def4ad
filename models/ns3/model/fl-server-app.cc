#include "models/ns3/model/fl-server-app.h"

#include <ns3/double.h>
#include <ns3/log.h>
#include <ns3/pointer.h>
#include <ns3/simulator.h>
#include <ns3/uinteger.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlServerApp");
NS_OBJECT_ENSURE_REGISTERED(FlServerApp);

TypeId
FlServerApp::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlServerApp")
            .SetParent<Application>()
            .SetGroupName("Fedran")
            .AddConstructor<FlServerApp>()
            .AddAttribute("Port",
                          "Port the server listens on.",
                          UintegerValue(7000),
                          MakeUintegerAccessor(&FlServerApp::m_port),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("Rounds",
                          "Number of training rounds.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&FlServerApp::m_rounds),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("ClientsPerRound",
                          "Clients sampled per round (fewer if fewer are idle).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&FlServerApp::m_clientsPerRound),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("OverSelect",
                          "Select ceil(OverSelect x ClientsPerRound) clients; aggregate the "
                          "first ClientsPerRound updates.",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&FlServerApp::m_overSelect),
                          MakeDoubleChecker<double>(1.0))
            .AddAttribute("ExpectedClients",
                          "Clients that will join; the first round starts when all have.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&FlServerApp::m_expectedClients),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Deadline",
                          "Time from a round's start after which missing updates are late.",
                          TimeValue(Seconds(60)),
                          MakeTimeAccessor(&FlServerApp::m_deadline),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("JoinTimeout",
                          "Start the first round with whoever joined by then.",
                          TimeValue(Seconds(30)),
                          MakeTimeAccessor(&FlServerApp::m_joinTimeout),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("Transport",
                          "How messages cross the network.",
                          PointerValue(),
                          MakePointerAccessor(&FlServerApp::m_transport),
                          MakePointerChecker<MessageTransport>())
            .AddTraceSource("JoinClosed",
                            "The first round is about to start: how many clients had joined "
                            "of those expected.",
                            MakeTraceSourceAccessor(&FlServerApp::m_joinClosedTrace),
                            "ns3::FlServerApp::JoinClosedCallback")
            .AddTraceSource("RoundStarted",
                            "A round started; the clients selected for it.",
                            MakeTraceSourceAccessor(&FlServerApp::m_roundStartedTrace),
                            "ns3::FlServerApp::RoundStartedCallback")
            .AddTraceSource("ModelSent",
                            "A frame (the global model or a codec's state) was queued for a "
                            "client.",
                            MakeTraceSourceAccessor(&FlServerApp::m_modelSentTrace),
                            "ns3::FlServerApp::ModelSentCallback")
            .AddTraceSource("ModelCodec",
                            "A model frame was queued for a client: the codec it was encoded "
                            "with (an adaptive downlink's rung, e.g. quantization[2]).",
                            MakeTraceSourceAccessor(&FlServerApp::m_modelCodecTrace),
                            "ns3::FlServerApp::ModelCodecCallback")
            .AddTraceSource("UpdateArrival",
                            "An update arrived (accepted, late or failed) or a selected "
                            "client dropped.",
                            MakeTraceSourceAccessor(&FlServerApp::m_updateArrivalTrace),
                            "ns3::FlServerApp::UpdateArrivalCallback")
            .AddTraceSource("RoundEnded",
                            "A round was aggregated and the global model evaluated.",
                            MakeTraceSourceAccessor(&FlServerApp::m_roundEndedTrace),
                            "ns3::FlServerApp::RoundEndedCallback")
            .AddTraceSource("Finished",
                            "The last round ended.",
                            MakeTraceSourceAccessor(&FlServerApp::m_finishedTrace),
                            "ns3::FlServerApp::FinishedCallback");
    return tid;
}

FlServerApp::FlServerApp()
    : m_port(7000)
    , m_rounds(1)
    , m_clientsPerRound(1)
    , m_overSelect(1.0)
    , m_expectedClients(1)
    , m_sampler(CreateObject<UniformRandomVariable>())
{
}

FlServerApp::~FlServerApp() = default;

void
FlServerApp::SetTask(std::shared_ptr<const fedran::FederatedTask> task)
{
    m_task = std::move(task);
}

void
FlServerApp::SetAsync(const fedran::AsyncConfig& config)
{
    m_async = config;
}

void
FlServerApp::SetAggregatorChildren(std::map<uint32_t, fedran::CodecSpec> uplinkCodecs)
{
    m_aggregatorChildren = std::move(uplinkCodecs);
}

void
FlServerApp::SetPathRates(PathRates rates)
{
    m_pathRates = std::move(rates);
}

bool
FlServerApp::KnowsPathRates() const
{
    return static_cast<bool>(m_pathRates);
}

std::optional<fedran::PathRate>
FlServerApp::PathRateOf(uint32_t client) const
{
    return m_pathRates ? m_pathRates(client) : std::nullopt;
}

int64_t
FlServerApp::AssignStreams(int64_t stream)
{
    m_sampler->SetStream(stream);
    return 1;
}

void
FlServerApp::StartApplication()
{
    NS_ABORT_MSG_IF(!m_task, "FlServerApp: SetTask was not called");
    NS_ABORT_MSG_IF(!m_transport, "FlServerApp: no Transport");
    // Built at start, once every attribute has its final value.
    fedran::CoordinatorConfig config;
    config.rounds = m_rounds;
    config.clientsPerRound = m_clientsPerRound;
    config.overSelect = m_overSelect;
    config.expectedClients = m_expectedClients;
    config.deadlineTicks = m_deadline.GetTimeStep();
    config.joinTimeoutTicks = m_joinTimeout.GetTimeStep();
    config.aggregatorUplinkCodecs = m_aggregatorChildren;
    config.ticksPerSecond = double(Seconds(1).GetTimeStep());
    fedran::CoordinatorHost& host = *this;
    if (m_async)
    {
        config.async = true;
        config.asyncConfig = *m_async;
    }
    m_coordinator = fedran::MakeServerCoordinator(config, m_task, host);
    fedran::ServerCoordinator* coordinator = m_coordinator.get();
    ChildConnections::Handlers handlers;
    handlers.admits = [coordinator](uint32_t client) {
        return coordinator->Admits(client);
    };
    handlers.joined = [coordinator](uint32_t client) {
        coordinator->OnJoin(client);
    };
    handlers.frame = [coordinator](const fedran::Frame& frame) {
        return coordinator->OnFrame(frame);
    };
    handlers.lost =
        [coordinator](uint32_t client, fedran::UpdateFate fate, const std::string& why) {
            coordinator->OnClientLost(client, fate, why);
        };
    m_clients = std::make_unique<ChildConnections>("server", std::move(handlers));
    m_transport->Listen(GetNode(),
                        m_port,
                        MakeCallback(&ChildConnections::Accept, m_clients.get()));
    m_coordinator->Start();
}

void
FlServerApp::StopApplication()
{
    if (m_coordinator)
    {
        m_coordinator->Stop();
    }
    if (m_clients)
    {
        m_clients->CloseAll();
    }
}

void
FlServerApp::DoDispose()
{
    if (m_clients)
    {
        m_clients->Clear(); // kept: a late callback of a channel may still reach it
    }
    m_transport = nullptr;
    m_coordinator.reset();
    m_task.reset();
    Application::DoDispose();
}

double
FlServerApp::NowSeconds() const
{
    return Simulator::Now().GetSeconds();
}

void
FlServerApp::Send(uint32_t client, std::vector<uint8_t> frame)
{
    m_clients->Send(client, std::move(frame));
}

void
FlServerApp::ArmTimer(fedran::CoordinatorTimer timer, int64_t delayTicks)
{
    m_timers[size_t(timer)] = Simulator::Schedule(TimeStep(delayTicks),
                                                  &fedran::ServerCoordinator::OnTimer,
                                                  m_coordinator.get(),
                                                  timer);
}

void
FlServerApp::CancelTimer(fedran::CoordinatorTimer timer)
{
    m_timers[size_t(timer)].Cancel();
}

uint32_t
FlServerApp::DrawInteger(uint32_t lo, uint32_t hi)
{
    return m_sampler->GetInteger(lo, hi);
}

void
FlServerApp::JoinClosed(uint32_t joined, uint32_t expected)
{
    m_joinClosedTrace(joined, expected);
}

void
FlServerApp::RoundStarted(uint32_t round, const std::vector<uint32_t>& selected)
{
    if (selected.empty())
    {
        NS_LOG_WARN("round " << round << " has no idle client");
    }
    m_roundStartedTrace(round, selected);
}

void
FlServerApp::FrameSent(uint32_t round,
                       uint32_t client,
                       uint64_t frameBytes,
                       const std::string& downlinkCodec)
{
    m_modelSentTrace(round, client, frameBytes);
    if (!downlinkCodec.empty())
    {
        m_modelCodecTrace(round, client, downlinkCodec);
    }
}

void
FlServerApp::UpdateArrived(const fedran::UpdateArrivalRecord& record)
{
    m_updateArrivalTrace(record);
}

void
FlServerApp::RoundEnded(const fedran::RoundRecord& record)
{
    m_roundEndedTrace(record);
}

void
FlServerApp::Finished()
{
    m_finishedTrace();
}

} // namespace ns3
