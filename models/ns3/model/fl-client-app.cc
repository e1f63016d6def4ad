// FlClientApp: its attributes and trace sources, the connection to the server (with backoff),
// the training pool, availability (turning off and on, dropping out, crashing); the frames it
// receives and the training they start are in fl-client-frames.cc.

#include "models/ns3/model/fl-client-app.h"

#include <ns3/double.h>
#include <ns3/log.h>
#include <ns3/pointer.h>
#include <ns3/simulator.h>
#include <ns3/string.h>
#include <ns3/uinteger.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlClientApp");
NS_OBJECT_ENSURE_REGISTERED(FlClientApp);

TypeId
FlClientApp::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlClientApp")
            .SetParent<Application>()
            .SetGroupName("Fedran")
            .AddConstructor<FlClientApp>()
            .AddAttribute("ClientId",
                          "Index of this client (and of its data partition).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FlClientApp::m_clientId),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Endpoint",
                          "This client's end in the transport's topology when it has no node "
                          "of its own (a stated link, kStatedEndpointBase + its index); the "
                          "default, the largest value, means the node the app runs on.",
                          UintegerValue(kOwnNode),
                          MakeUintegerAccessor(&FlClientApp::m_endpoint),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Server",
                          "Address (with port) of the FL server.",
                          AddressValue(),
                          MakeAddressAccessor(&FlClientApp::m_server),
                          MakeAddressChecker())
            .AddAttribute("SamplesPerSecond",
                          "Training speed: examples processed per simulated second.",
                          DoubleValue(2000.0),
                          MakeDoubleAccessor(&FlClientApp::m_samplesPerSecond),
                          MakeDoubleChecker<double>(1e-9))
            .AddAttribute("Deadline",
                          "The server's round deadline, announced to clients: an adaptive "
                          "uplink budgets its upload against it.",
                          TimeValue(Seconds(60)),
                          MakeTimeAccessor(&FlClientApp::m_deadline),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("DownlinkCodec",
                          "The codec spec (JSON) of the model frames this client's parent "
                          "sends, when the parent is an edge aggregator with its own; empty: "
                          "the task's downlink codec. Set before the task.",
                          StringValue(""),
                          MakeStringAccessor(&FlClientApp::m_downlinkCodec),
                          MakeStringChecker())
            .AddAttribute("JoinWindow",
                          "The client first connects at a uniform instant in [0, JoinWindow) "
                          "after it starts.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&FlClientApp::m_joinWindow),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("ReconnectBackoff",
                          "Delay scale of the first retry after a failed or lost connection; "
                          "it doubles with each consecutive failure.",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&FlClientApp::m_reconnectBackoff),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("ReconnectBackoffMax",
                          "Cap of the reconnection delay scale.",
                          TimeValue(Seconds(30)),
                          MakeTimeAccessor(&FlClientApp::m_reconnectBackoffMax),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("Transport",
                          "How messages cross the network.",
                          PointerValue(),
                          MakePointerAccessor(&FlClientApp::m_transport),
                          MakePointerChecker<MessageTransport>())
            .AddAttribute("Availability",
                          "When the client can take part; without one it always can.",
                          PointerValue(),
                          MakePointerAccessor(&FlClientApp::m_availability),
                          MakePointerChecker<ClientAvailability>())
            .AddAttribute("CorruptUplink",
                          "Probability that an update frame's payload is damaged after its "
                          "CRC was computed (faults.corrupt_uplink); set before the task.",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&FlClientApp::m_corruptUplink),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("CrashProbability",
                          "Probability per round of crashing while training "
                          "(faults.crashes); set before the task.",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&FlClientApp::m_crashProbability),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("CrashRestart",
                          "How long a crashed site stays down before it restarts.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&FlClientApp::m_crashRestart),
                          MakeTimeChecker(Seconds(0)))
            .AddTraceSource("ModelReceived",
                            "A global model arrived and was decoded.",
                            MakeTraceSourceAccessor(&FlClientApp::m_modelReceivedTrace),
                            "ns3::FlClientApp::ModelReceivedCallback")
            .AddTraceSource("UpdateSent",
                            "An encoded update was handed to the network.",
                            MakeTraceSourceAccessor(&FlClientApp::m_updateSentTrace),
                            "ns3::FlClientApp::UpdateSentCallback")
            .AddTraceSource("Left",
                            "The client went away: it aborted its connection and round.",
                            MakeTraceSourceAccessor(&FlClientApp::m_leftTrace),
                            "ns3::FlClientApp::LeftCallback")
            .AddTraceSource("UploadMeasured",
                            "The transport acknowledged every byte of an update.",
                            MakeTraceSourceAccessor(&FlClientApp::m_uploadMeasuredTrace),
                            "ns3::FlClientApp::UploadMeasuredCallback")
            .AddTraceSource("Crashed",
                            "The site crashed while training for a round (faults.crashes).",
                            MakeTraceSourceAccessor(&FlClientApp::m_crashedTrace),
                            "ns3::FlClientApp::CrashedCallback")
            .AddTraceSource("LossReplied",
                            "power_of_choice pow-d: the client's loss at a polled model was "
                            "handed to the network (round, client, frame bytes).",
                            MakeTraceSourceAccessor(&FlClientApp::m_lossRepliedTrace),
                            "ns3::FlClientApp::LossRepliedCallback");
    return tid;
}

FlClientApp::FlClientApp()
    : m_clientId(0)
    , m_samplesPerSecond(2000.0)
    , m_corruptUplink(0.0)
    , m_crashProbability(0.0)
    , m_crashed(false)
    , m_joinRng(CreateObject<UniformRandomVariable>())
    , m_online(true)
{
}

FlClientApp::~FlClientApp() = default;

void
FlClientApp::SetTask(std::shared_ptr<const fedran::FederatedTask> task)
{
    NS_ABORT_MSG_IF(m_clientId >= task->Clients(), "client id beyond the partition");
    fedran::ClientSessionConfig config;
    config.clientId = m_clientId;
    config.samplesPerSecond = m_samplesPerSecond;
    config.deadlineS = m_deadline.GetSeconds();
    config.corruptUplink = m_corruptUplink;
    config.crashProbability = m_crashProbability;
    if (!m_downlinkCodec.empty())
    {
        config.downlinkCodec =
            fedran::CodecSpec::Parse(nlohmann::json::parse(m_downlinkCodec), "DownlinkCodec");
    }
    m_session = std::make_unique<fedran::ClientSession>(config, std::move(task));
    m_work = std::make_unique<ClientRoundWork>(
        *m_session,
        [this](const fedran::UpdateSentRecord& record) { m_updateSentTrace(record); },
        [this](std::vector<uint8_t> frame) { m_channel->Send(std::move(frame)); });
    m_work->SetPool(m_pool);
}

void
FlClientApp::StartApplication()
{
    NS_ABORT_MSG_IF(!m_session, "FlClientApp: SetTask was not called");
    NS_ABORT_MSG_IF(!m_transport, "FlClientApp: no Transport");
    if (m_availability)
    {
        m_availability->Start(MakeCallback(&FlClientApp::TurnOff, this),
                              MakeCallback(&FlClientApp::TurnOn, this));
        m_online = m_availability->InitiallyOn();
    }
    if (m_online)
    {
        // Sites boot and reach the server at different moments; a burst of simultaneous
        // SYNs would overflow the router's queue toward the server.
        const double delayS = m_joinRng->GetValue(0.0, m_joinWindow.GetSeconds());
        m_connectEvent = Simulator::Schedule(Seconds(delayS), &FlClientApp::Connect, this);
    }
}

int64_t
FlClientApp::AssignStreams(int64_t stream)
{
    m_joinRng->SetStream(stream);
    return 1;
}

void
FlClientApp::ScheduleReconnect()
{
    const Time delay = m_backoff.NextDelay(m_reconnectBackoff, m_reconnectBackoffMax, m_joinRng);
    NS_LOG_INFO("client " << m_clientId << ": connecting again in " << delay.GetSeconds() << " s");
    m_connectEvent = Simulator::Schedule(delay, &FlClientApp::Connect, this);
}

void
FlClientApp::Connect()
{
    if (m_crashed)
    {
        return; // Restart connects
    }
    if (m_endpoint != kOwnNode)
    {
        m_transport->ConnectEndpoint(m_endpoint,
                                     m_server,
                                     MakeCallback(&FlClientApp::HandleConnected, this));
        return;
    }
    m_transport->Connect(GetNode(), m_server, MakeCallback(&FlClientApp::HandleConnected, this));
}

void
FlClientApp::StopApplication()
{
    if (m_availability)
    {
        m_availability->Stop();
    }
    m_dropEvent.Cancel();
    m_connectEvent.Cancel();
    m_restartEvent.Cancel();
    m_pollEvent.Cancel();
    if (m_work)
    {
        m_work->Cancel();
    }
    if (m_channel)
    {
        m_channel->Close();
    }
}

void
FlClientApp::SetTrainingPool(std::shared_ptr<ThreadPool> pool)
{
    m_pool = std::move(pool);
    if (m_work)
    {
        m_work->SetPool(m_pool);
    }
}

void
FlClientApp::DoDispose()
{
    if (m_work)
    {
        m_work->WaitForTraining();
    }
    m_work.reset();
    m_pool.reset();
    m_channel = nullptr;
    m_transport = nullptr;
    m_availability = nullptr;
    m_session.reset();
    Application::DoDispose();
}

void
FlClientApp::HandleConnected(Ptr<MessageChannel> channel)
{
    if (!channel)
    {
        // The transport gave up: try again unless the client has gone away meanwhile (it
        // connects afresh when it comes back).
        if (m_online && !m_channel)
        {
            ScheduleReconnect();
        }
        return;
    }
    if (!m_online || m_channel)
    {
        // A connection from before the client went off (or a second one while it was off
        // and on again): it is not wanted any more.
        channel->Abort();
        return;
    }
    m_channel = channel;
    m_backoff.Reset();
    m_channel->SetFrameCallback(MakeCallback(&FlClientApp::HandleFrame, this));
    m_channel->SetErrorCallback(MakeCallback(&FlClientApp::HandleChannelError, this));
    m_channel->SetDeliveredCallback(MakeCallback(&FlClientApp::HandleDelivered, this));
    m_channel->Send(m_session->BeginConnection());
}

void
FlClientApp::HandleChannelError(Ptr<MessageChannel> channel, const std::string& why)
{
    NS_LOG_WARN("client " << m_clientId << ": " << why);
    m_dropEvent.Cancel();
    m_pollEvent.Cancel();
    m_work->Cancel();
    channel->Close();
    m_channel = nullptr;
    if (m_online)
    {
        // A bad frame, a reset or an outage: the site reconnects, as a real one would.
        ScheduleReconnect();
    }
}

void
FlClientApp::Leave()
{
    m_dropEvent.Cancel();
    m_pollEvent.Cancel();
    m_connectEvent.Cancel();
    m_work->Cancel();
    if (m_channel)
    {
        m_channel->Abort();
        m_channel = nullptr;
    }
    m_leftTrace(m_clientId);
}

void
FlClientApp::TurnOff()
{
    m_online = false;
    Leave();
}

void
FlClientApp::TurnOn()
{
    m_online = true;
    Connect();
}

void
FlClientApp::DropOut()
{
    Leave();
    Connect();
}

void
FlClientApp::CrashOut(uint32_t round)
{
    Leave(); // the server sees the reset and records the client dropped
    m_session->Crash();
    m_crashed = true;
    m_crashedTrace(round, m_clientId);
    m_restartEvent = Simulator::Schedule(m_crashRestart, &FlClientApp::Restart, this);
}

void
FlClientApp::Restart()
{
    m_crashed = false;
    m_backoff.Reset();
    if (m_online && !m_channel)
    {
        Connect(); // joins afresh, as after any reconnection
    }
}

} // namespace ns3
