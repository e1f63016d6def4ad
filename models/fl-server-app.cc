#include "models/fl-server-app.h"

#include "compression/ladder-codec.h"

#include <ns3/double.h>
#include <ns3/log.h>
#include <ns3/pointer.h>
#include <ns3/simulator.h>
#include <ns3/uinteger.h>

#include <algorithm>
#include <cmath>

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
            .AddTraceSource("RoundStarted",
                            "A round started; the clients selected for it.",
                            MakeTraceSourceAccessor(&FlServerApp::m_roundStartedTrace),
                            "ns3::FlServerApp::RoundStartedCallback")
            .AddTraceSource("ModelSent",
                            "The global model was queued for a client.",
                            MakeTraceSourceAccessor(&FlServerApp::m_modelSentTrace),
                            "ns3::FlServerApp::ModelSentCallback")
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
    : m_port(7000),
      m_rounds(1),
      m_clientsPerRound(1),
      m_overSelect(1.0),
      m_expectedClients(1),
      m_sampler(CreateObject<UniformRandomVariable>()),
      m_uplinkCodecId(0),
      m_firstPhase(false),
      m_round(0),
      m_started(false)
{
}

FlServerApp::~FlServerApp() = default;

void
FlServerApp::SetTask(std::shared_ptr<const fedran::FederatedTask> task)
{
    m_task = std::move(task);
    const uint64_t size = m_task->model->Layout().TotalSize();
    m_global.assign(size, 0.0f);
    fedran::Rng initRng(m_task->seed, fedran::kModelInitStream);
    m_task->model->InitParams(m_global, initRng);
    m_scratch.assign(size, 0.0f);
    m_combined.assign(size, 0.0f);
    m_optimizer = fedran::MakeServerOptimizer(m_task->serverOptimizer);
    const auto uplink = fedran::MakeCodec(m_task->uplinkCodec, "compression.uplink");
    m_aggregator = uplink->MakeAggregator();
    m_exchange = uplink->MakeExchange(m_task->model->Layout(),
                                      fedran::Rng(m_task->seed, fedran::kServerExchangeStream).NextU64());
    m_uplinkCodecId = uplink->Id();
    m_modelEncoder = fedran::MakeCodec(m_task->downlinkCodec, "compression.downlink");
    m_codecRng = fedran::Rng(m_task->seed, fedran::kServerCodecStream);
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
    m_transport->Listen(GetNode(), m_port, MakeCallback(&FlServerApp::HandleAccept, this));
    m_joinTimeoutEvent = Simulator::Schedule(m_joinTimeout, &FlServerApp::StartRound, this);
}

void
FlServerApp::StopApplication()
{
    m_deadlineEvent.Cancel();
    m_joinTimeoutEvent.Cancel();
    for (auto& [id, channel] : m_clients)
    {
        channel->Close();
    }
}

void
FlServerApp::DoDispose()
{
    m_clients.clear();
    m_transport = nullptr;
    m_decoders.clear();
    m_views.clear();
    m_modelEncoder.reset();
    m_exchange.reset();
    m_task.reset();
    Application::DoDispose();
}

void
FlServerApp::HandleAccept(Ptr<MessageChannel> channel)
{
    channel->SetFrameCallback(MakeCallback(&FlServerApp::HandleFrame, this));
    channel->SetErrorCallback(MakeCallback(&FlServerApp::HandleChannelError, this));
}

void
FlServerApp::HandleFrame(Ptr<MessageChannel> channel, const fedran::Frame& frame)
{
    switch (frame.header.type)
    {
    case fedran::FrameType::Join:
        HandleJoin(channel, frame);
        break;
    case fedran::FrameType::ClientUpdate:
        HandleUpdate(frame);
        break;
    case fedran::FrameType::ClientReply:
        if (!m_exchange)
        {
            HandleChannelError(channel, "a reply frame, but the uplink codec has one exchange");
            break;
        }
        HandleReply(frame);
        break;
    default:
        HandleChannelError(channel, "unexpected frame type from a client");
    }
}

void
FlServerApp::HandleJoin(Ptr<MessageChannel> channel, const fedran::Frame& frame)
{
    const uint32_t client = frame.header.client;
    if (client >= m_task->partition.size())
    {
        NS_LOG_WARN("rejecting join from unknown client " << client);
        channel->Close();
        return;
    }
    auto previous = m_clients.find(client);
    if (previous != m_clients.end())
    {
        // The client reconnected before its old connection's end reached the server (a
        // reset lost on the link): the old connection is dead.
        previous->second->Close();
        RemoveClient(client, UpdateFate::Dropped, "reconnected");
    }
    m_clients[client] = channel;
    // A rejoining client starts from zeros (FlClientApp::HandleConnected); so does its mirror.
    m_views.erase(client);
    if (!m_started && m_clients.size() >= m_expectedClients)
    {
        m_joinTimeoutEvent.Cancel();
        StartRound();
    }
}

void
FlServerApp::HandleUpdate(const fedran::Frame& frame)
{
    const uint32_t client = frame.header.client;
    UpdateArrivalRecord record;
    record.round = frame.header.round;
    record.client = client;
    record.frameBytes = fedran::kFrameHeaderSize + frame.payload.size();

    if (frame.header.round != m_round || !m_pending.count(client))
    {
        // An update for a round that already ended: the client is free again.
        record.fate = UpdateFate::Late;
        m_busy.erase(client);
        m_updateArrivalTrace(record);
        return;
    }

    try
    {
        CheckUplinkFrame(frame);
        if (m_exchange)
        {
            m_exchange->AddFirst(frame.payload, frame.header.samples);
        }
        else
        {
            fedran::Codec& decoder = DecoderFor(client);
            auto* ladder = dynamic_cast<fedran::LadderCodec*>(&decoder);
            if (ladder && fedran::LadderCodec::IsSkip(frame.payload))
            {
                // A lazy update: reuse the client's last update ("on_skip": "reuse") or leave
                // the client out of this round's mean ("omit").
                record.skipped = true;
                if (ladder->DecodeSkip(m_scratch))
                {
                    m_aggregator->Add(m_scratch, frame.header.samples);
                }
            }
            else
            {
                decoder.Decode(m_task->model->Layout(), frame.payload, m_scratch);
                m_aggregator->Add(m_scratch, frame.header.samples);
            }
        }
        record.fate = UpdateFate::Accepted;
    }
    catch (const fedran::DecodeError& e)
    {
        record.fate = UpdateFate::Failed;
        record.reason = e.what();
    }
    if (m_firstPhase && record.fate == UpdateFate::Accepted)
    {
        // Not an update yet: it counts once this client's reply arrives.
        m_contributors.push_back(client);
        SettleClient(client);
        return;
    }
    m_updateArrivalTrace(record);
    SettleClient(client);
}

void
FlServerApp::HandleReply(const fedran::Frame& frame)
{
    const uint32_t client = frame.header.client;
    UpdateArrivalRecord record;
    record.round = frame.header.round;
    record.client = client;
    record.frameBytes = fedran::kFrameHeaderSize + frame.payload.size();
    if (frame.header.round != m_round || m_firstPhase || !m_exchange->NeedsReplies() ||
        !m_pending.count(client))
    {
        // The round ended between the two exchanges: the client is free again.
        record.fate = UpdateFate::Late;
        m_busy.erase(client);
        m_updateArrivalTrace(record);
        return;
    }
    try
    {
        CheckUplinkFrame(frame);
        m_exchange->AddReply(frame.payload, frame.header.samples);
        record.fate = UpdateFate::Accepted;
    }
    catch (const fedran::DecodeError& e)
    {
        record.fate = UpdateFate::Failed;
        record.reason = e.what();
    }
    m_updateArrivalTrace(record);
    SettleClient(client);
}

void
FlServerApp::CheckUplinkFrame(const fedran::Frame& frame) const
{
    if (frame.header.codec != m_uplinkCodecId)
    {
        throw fedran::DecodeError("frame codec id " + std::to_string(frame.header.codec) +
                                      " does not match the configured codec",
                                  6);
    }
    if (frame.header.samples == 0)
    {
        throw fedran::DecodeError("update claims zero training samples", 16);
    }
}

void
FlServerApp::HandleChannelError(Ptr<MessageChannel> channel, const std::string& why)
{
    channel->Close();
    for (auto it = m_clients.begin(); it != m_clients.end(); ++it)
    {
        if (it->second == channel)
        {
            RemoveClient(it->first,
                         channel->PeerGone() ? UpdateFate::Dropped : UpdateFate::Failed,
                         why);
            return;
        }
    }
}

void
FlServerApp::RemoveClient(uint32_t client, UpdateFate fate, const std::string& why)
{
    m_clients.erase(client);
    m_busy.erase(client);
    if (m_pending.count(client))
    {
        UpdateArrivalRecord record;
        record.round = m_round;
        record.client = client;
        record.fate = fate;
        record.reason = why;
        m_updateArrivalTrace(record);
        SettleClient(client);
    }
}

fedran::Codec&
FlServerApp::DecoderFor(uint32_t client)
{
    auto& decoder = m_decoders[client];
    if (!decoder)
    {
        decoder = fedran::MakeCodec(m_task->uplinkCodec, "compression.uplink");
    }
    // Updates are decoded in their own round only: the decoder follows the encoder's round
    // schedule (a sparsity warm-up).
    decoder->BeginRound(m_round);
    return *decoder;
}

std::vector<uint32_t>
FlServerApp::SampleClients()
{
    std::vector<uint32_t> idle;
    for (const auto& [id, channel] : m_clients)
    {
        if (!m_busy.count(id))
        {
            idle.push_back(id);
        }
    }
    // Partial Fisher-Yates on the id-ordered list: the draw depends only on the RNG stream.
    // The epsilon keeps 1.1 x 10 at 11 despite binary floating point.
    const auto wanted = static_cast<size_t>(std::ceil(m_overSelect * m_clientsPerRound - 1e-9));
    const size_t k = std::min<size_t>(wanted, idle.size());
    for (size_t i = 0; i < k; ++i)
    {
        const uint32_t j = m_sampler->GetInteger(i, idle.size() - 1);
        std::swap(idle[i], idle[j]);
    }
    idle.resize(k);
    std::sort(idle.begin(), idle.end());
    return idle;
}

void
FlServerApp::StartRound()
{
    m_started = true;
    ++m_round;
    m_roundStart = Simulator::Now();
    m_selected = SampleClients();
    m_pending = std::set<uint32_t>(m_selected.begin(), m_selected.end());
    m_aggregator->Reset(m_global.size());
    m_roundStartedTrace(m_round, m_selected);

    std::vector<uint8_t> state;
    if (m_exchange)
    {
        m_contributors.clear();
        m_exchange->BeginRound(m_round, state);
        m_firstPhase = m_exchange->NeedsReplies();
    }
    std::vector<uint8_t> shared;
    // Round-scheduled codecs (a sparsity warm-up) encode, and mirror-decode, this round's size.
    m_modelEncoder->BeginRound(m_round);
    if (!m_task->downlinkClientView)
    {
        m_modelEncoder->Encode(m_task->model->Layout(), m_global, m_codecRng, shared);
    }
    for (uint32_t client : m_selected)
    {
        if (!state.empty())
        {
            // Before the model, so that the client's encoder has it when training ends.
            SendToClient(client, fedran::FrameType::CodecState, m_uplinkCodecId, state);
        }
        SendToClient(client,
                     fedran::FrameType::GlobalModel,
                     m_modelEncoder->Id(),
                     m_task->downlinkClientView ? EncodeForClientView(client) : shared);
    }
    m_deadlineEvent = Simulator::Schedule(m_deadline, &FlServerApp::EndRound, this);
    if (m_pending.empty())
    {
        // Nobody to wait for: the round still takes its deadline, as a real server's would.
        NS_LOG_WARN("round " << m_round << " has no idle client");
    }
}

std::vector<uint8_t>
FlServerApp::EncodeForClientView(uint32_t client)
{
    const fedran::TensorLayout& layout = m_task->model->Layout();
    ClientView& view = m_views[client];
    if (!view.encoder)
    {
        // Clients start from zeros (FlClientApp::SetTask); so does the server's mirror.
        view.encoder = fedran::MakeCodec(m_task->downlinkCodec, "compression.downlink");
        view.model.assign(m_global.size(), 0.0f);
    }
    for (size_t i = 0; i < m_global.size(); ++i)
    {
        m_scratch[i] = m_global[i] - view.model[i];
    }
    std::vector<uint8_t> payload;
    view.encoder->BeginRound(m_round);
    view.encoder->Encode(layout, m_scratch, m_codecRng, payload);
    // Mirror the client: it will add exactly what this payload decodes to.
    m_modelEncoder->Decode(layout, payload, m_scratch);
    for (size_t i = 0; i < m_global.size(); ++i)
    {
        view.model[i] += m_scratch[i];
    }
    return payload;
}

void
FlServerApp::SendToClient(uint32_t client,
                          fedran::FrameType type,
                          uint16_t codec,
                          std::span<const uint8_t> payload)
{
    fedran::FrameHeader header;
    header.type = type;
    header.codec = codec;
    header.round = m_round;
    header.client = client;
    std::vector<uint8_t> frame = fedran::EncodeFrame(header, payload);
    m_modelSentTrace(m_round, client, frame.size());
    m_clients.at(client)->Send(std::move(frame));
}

void
FlServerApp::SettleClient(uint32_t client)
{
    m_pending.erase(client);
    if (!m_deadlineEvent.IsRunning())
    {
        return;
    }
    if (m_firstPhase)
    {
        // With over-selection the first ClientsPerRound first payloads make the round.
        if (m_pending.empty() || m_contributors.size() >= m_clientsPerRound)
        {
            CloseFirstPhase();
        }
        return;
    }
    const size_t combined = m_exchange ? m_exchange->Count() : m_aggregator->Count();
    if (m_pending.empty() || combined >= m_clientsPerRound)
    {
        m_deadlineEvent.Cancel();
        EndRound();
    }
}

void
FlServerApp::CloseFirstPhase()
{
    m_firstPhase = false;
    // Clients still computing their first payload are late for this round.
    m_busy.insert(m_pending.begin(), m_pending.end());
    m_pending.clear();
    std::vector<uint8_t> message;
    m_exchange->CloseFirstPhase(message);
    for (uint32_t client : m_contributors)
    {
        // A contributor whose connection broke since is gone from m_clients: nothing to ask.
        if (m_clients.count(client))
        {
            m_pending.insert(client);
            SendToClient(client, fedran::FrameType::CodecState, m_uplinkCodecId, message);
        }
    }
    if (m_pending.empty())
    {
        m_deadlineEvent.Cancel();
        EndRound();
    }
}

void
FlServerApp::EndRound()
{
    // Whoever has not answered is late (past the deadline, or beyond the first
    // ClientsPerRound); their update is discarded when it arrives.
    m_busy.insert(m_pending.begin(), m_pending.end());
    m_pending.clear();
    m_firstPhase = false;

    // The server optimiser moves the model by the combined update (nothing moves without one).
    // A two-exchange round that ends in its first phase has no update.
    const size_t combined = m_exchange ? m_exchange->Count() : m_aggregator->Count();
    if (combined > 0)
    {
        if (m_exchange)
        {
            m_exchange->Result(m_combined);
        }
        else
        {
            m_aggregator->Result(m_combined);
        }
        m_optimizer->Apply(m_combined, m_global);
    }
    const fedran::Evaluation eval = m_task->model->Evaluate(m_global, m_task->data->test);

    RoundRecord record;
    record.round = m_round;
    record.startS = m_roundStart.GetSeconds();
    record.endS = Simulator::Now().GetSeconds();
    record.selected = m_selected;
    record.participants = static_cast<uint32_t>(combined);
    record.testAccuracy = eval.accuracy;
    record.testLoss = eval.loss;
    m_roundEndedTrace(record);

    if (m_round >= m_rounds)
    {
        m_finishedTrace();
        return;
    }
    StartRound();
}

} // namespace ns3
