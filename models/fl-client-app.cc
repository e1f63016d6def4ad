#include "models/fl-client-app.h"

#include <ns3/double.h>
#include <ns3/log.h>
#include <ns3/pointer.h>
#include <ns3/simulator.h>
#include <ns3/uinteger.h>

#include <algorithm>
#include <cmath>

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
                            "ns3::FlClientApp::UploadMeasuredCallback");
    return tid;
}

FlClientApp::FlClientApp()
    : m_clientId(0)
    , m_samplesPerSecond(2000.0)
    , m_online(true)
    , m_sentRound(0)
{
}

FlClientApp::~FlClientApp() = default;

void
FlClientApp::SetTask(std::shared_ptr<const fedran::FederatedTask> task)
{
    m_task = std::move(task);
    NS_ABORT_MSG_IF(m_clientId >= m_task->partition.size(), "client id beyond the partition");
    m_modelDecoder = fedran::MakeCodec(m_task->downlinkCodec, "compression.downlink");
    m_updateEncoder = fedran::MakeCodec(m_task->uplinkCodec, "compression.uplink");
    m_ladder = dynamic_cast<fedran::LadderCodec*>(m_updateEncoder.get());
    if (m_ladder)
    {
        m_controller = std::make_unique<fedran::control::RateController>(
            fedran::control::ParseControllerConfig(m_task->uplinkCodec,
                                                   "compression.uplink",
                                                   m_ladder->RungCount()));
    }
    m_trainRng = fedran::Rng(m_task->seed, fedran::kClientTrainStreamBase + m_clientId);
    m_codecRng = fedran::Rng(m_task->seed, fedran::kClientCodecStreamBase + m_clientId);
    m_model.assign(m_task->model->Layout().TotalSize(), 0.0f);
    m_delta.assign(m_model.size(), 0.0f);
}

void
FlClientApp::StartApplication()
{
    NS_ABORT_MSG_IF(!m_task, "FlClientApp: SetTask was not called");
    NS_ABORT_MSG_IF(!m_transport, "FlClientApp: no Transport");
    if (m_availability)
    {
        m_availability->Start(MakeCallback(&FlClientApp::TurnOff, this),
                              MakeCallback(&FlClientApp::TurnOn, this));
        m_online = m_availability->InitiallyOn();
    }
    if (m_online)
    {
        Connect();
    }
}

void
FlClientApp::Connect()
{
    m_transport->Connect(GetNode(), m_server, MakeCallback(&FlClientApp::HandleConnected, this));
}

void
FlClientApp::StopApplication()
{
    if (m_availability)
    {
        m_availability->Stop();
    }
    m_sendEvent.Cancel();
    m_dropEvent.Cancel();
    WaitForTraining();
    if (m_channel)
    {
        m_channel->Close();
    }
}

void
FlClientApp::SetTrainingPool(std::shared_ptr<ThreadPool> pool)
{
    m_pool = std::move(pool);
}

void
FlClientApp::DoDispose()
{
    WaitForTraining();
    m_pool.reset();
    m_channel = nullptr;
    m_transport = nullptr;
    m_availability = nullptr;
    m_task.reset();
    Application::DoDispose();
}

void
FlClientApp::HandleConnected(Ptr<MessageChannel> channel)
{
    if (!m_online || m_channel)
    {
        // A connection from before the client went off (or a second one while it was off
        // and on again): it is not wanted any more.
        channel->Abort();
        return;
    }
    m_channel = channel;
    // A (re)joining client starts from zeros, as the server's mirror of it does
    // (downlink_reference client_view): what it held before may not match what was sent.
    std::fill(m_model.begin(), m_model.end(), 0.0f);
    m_channel->SetFrameCallback(MakeCallback(&FlClientApp::HandleFrame, this));
    m_channel->SetErrorCallback(MakeCallback(&FlClientApp::HandleChannelError, this));
    m_channel->SetDeliveredCallback(MakeCallback(&FlClientApp::HandleDelivered, this));
    // Messages of an earlier connection will never be acknowledged on this one.
    m_unacknowledged.clear();
    fedran::FrameHeader join;
    join.type = fedran::FrameType::Join;
    join.client = m_clientId;
    m_unacknowledged.push_back(0);
    m_channel->Send(fedran::EncodeFrame(join, {}));
}

void
FlClientApp::HandleFrame(Ptr<MessageChannel> channel, const fedran::Frame& frame)
{
    if (frame.header.client == m_clientId && frame.header.type == fedran::FrameType::GlobalModel &&
        frame.header.codec == m_modelDecoder->Id())
    {
        HandleGlobalModel(channel, frame);
    }
    else if (frame.header.client == m_clientId &&
             frame.header.type == fedran::FrameType::CodecState &&
             frame.header.codec == m_updateEncoder->Id())
    {
        HandleCodecState(channel, frame);
    }
    else
    {
        HandleChannelError(channel, "unexpected frame from the server");
    }
}

void
FlClientApp::HandleCodecState(Ptr<MessageChannel> channel, const fedran::Frame& frame)
{
    const fedran::TensorLayout& layout = m_task->model->Layout();
    try
    {
        if (frame.header.round != m_sentRound)
        {
            // No training runs now (the server selects a client only once its last update
            // has arrived), so the encoder can take the state on this thread.
            m_updateEncoder->BeginRound(frame.header.round);
            m_updateEncoder->AcceptRoundState(layout, frame.payload);
            return;
        }
        std::vector<uint8_t> payload;
        m_updateEncoder->EncodeReply(layout, frame.payload, payload);
        fedran::FrameHeader header;
        header.type = fedran::FrameType::ClientReply;
        header.codec = m_updateEncoder->Id();
        header.round = frame.header.round;
        header.client = m_clientId;
        header.samples = static_cast<uint32_t>(m_task->partition[m_clientId].size());
        UpdateSentRecord record;
        record.round = header.round;
        record.client = m_clientId;
        record.reply = true;
        record.codec = std::string(m_updateEncoder->Name());
        std::vector<uint8_t> reply = fedran::EncodeFrame(header, payload);
        record.frameBytes = reply.size();
        m_updateSentTrace(record);
        m_unacknowledged.push_back(0);
        m_channel->Send(std::move(reply));
    }
    catch (const fedran::DecodeError& e)
    {
        HandleChannelError(channel, std::string("cannot use the codec's message: ") + e.what());
    }
}

void
FlClientApp::HandleGlobalModel(Ptr<MessageChannel> channel, const fedran::Frame& frame)
{
    try
    {
        m_modelDecoder->BeginRound(frame.header.round); // as the server's encoder was told
        if (m_task->downlinkClientView)
        {
            // The frame carries global − (this client's copy).
            m_modelDecoder->Decode(m_task->model->Layout(), frame.payload, m_delta);
            for (size_t i = 0; i < m_model.size(); ++i)
            {
                m_model[i] += m_delta[i];
            }
        }
        else
        {
            m_modelDecoder->Decode(m_task->model->Layout(), frame.payload, m_model);
        }
    }
    catch (const fedran::DecodeError& e)
    {
        HandleChannelError(channel, std::string("cannot decode the global model: ") + e.what());
        return;
    }
    m_modelReceivedTrace(frame.header.round,
                         m_clientId,
                         fedran::kFrameHeaderSize + frame.payload.size());
    TrainAndSchedule(frame);
}

void
FlClientApp::TrainAndSchedule(const fedran::Frame& frame)
{
    const uint32_t round = frame.header.round;
    const std::vector<uint32_t>& rows = m_task->partition[m_clientId];
    // Simulated compute: the examples local training will process (epochs x examples, or
    // local steps x batch). It does not depend on the training's outcome, so the training
    // itself can run on another thread until the simulated compute time is over.
    const double computeS =
        double(fedran::LocalExamples(m_task->training, rows.size())) / m_samplesPerSecond;
    const double dropAt = m_availability ? m_availability->DrawDropout() : -1.0;
    if (dropAt >= 0.0)
    {
        // Its training would be thrown away: it is not run at all.
        m_dropEvent = Simulator::Schedule(Seconds(dropAt * computeS), &FlClientApp::DropOut, this);
        return;
    }
    auto train = [this, round]() {
        return TrainAndEncode(round);
    };
    if (m_controller)
    {
        GatherRoundInputs(round, fedran::kFrameHeaderSize + frame.payload.size(), computeS);
    }
    m_pending = m_pool ? m_pool->Submit(train) : std::async(std::launch::deferred, train);
    m_sendEvent = Simulator::Schedule(Seconds(computeS), &FlClientApp::SendUpdate, this, computeS);
}

FlClientApp::EncodedUpdate
FlClientApp::TrainAndEncode(uint32_t round)
{
    // Runs on a worker thread: it touches only this client's own state and read-only data.
    const std::vector<uint32_t>& rows = m_task->partition[m_clientId];
    fedran::TrainingResult result = fedran::TrainLocal(*m_task->model,
                                                       m_model,
                                                       m_task->data->train,
                                                       rows,
                                                       m_task->training,
                                                       round,
                                                       m_trainRng);
    EncodedUpdate encoded;
    std::vector<uint8_t> payload;
    m_updateEncoder->BeginRound(round);
    if (m_controller)
    {
        EncodeAdaptive(round, result, payload, encoded.record);
    }
    else
    {
        m_updateEncoder->Encode(m_task->model->Layout(), result.update, m_codecRng, payload);
    }
    fedran::FrameHeader header;
    header.type = fedran::FrameType::ClientUpdate;
    header.codec = m_updateEncoder->Id();
    header.round = round;
    header.client = m_clientId;
    header.samples = static_cast<uint32_t>(rows.size());

    encoded.frame = fedran::EncodeFrame(header, payload);
    encoded.record.round = round;
    encoded.record.client = m_clientId;
    encoded.record.rawBytes = result.update.size() * sizeof(float);
    encoded.record.frameBytes = encoded.frame.size();
    encoded.record.trainLoss = result.meanLoss;
    encoded.record.updateNorm = result.updateNorm;
    encoded.record.gradVariance = result.gradVariance;
    encoded.record.codec = std::string(m_updateEncoder->Name());
    return encoded;
}

void
FlClientApp::SendUpdate(double computeS)
{
    EncodedUpdate encoded = m_pending.get();
    encoded.record.computeS = computeS;
    m_sentRound = encoded.record.round;
    m_updateSentTrace(encoded.record);
    // A skip's empty frame is no measurement of the link: only updates feed the estimator.
    m_unacknowledged.push_back(encoded.record.skipped ? 0 : encoded.record.round);
    m_channel->Send(std::move(encoded.frame));
}

void
FlClientApp::GatherRoundInputs(uint32_t round, uint64_t frameBytes, double computeS)
{
    // What the round has already used: the model's download as seen here (its first byte to
    // its last) plus half an RTT for the first byte's trip from the server.
    const double downloadS = (Simulator::Now() - m_channel->LastFrameFirstByte()).GetSeconds();
    fedran::control::RoundInputs& in = m_inputs;
    in = fedran::control::RoundInputs{};
    in.round = round;
    in.deadlineS = m_deadline.GetSeconds();
    in.computeS = computeS;
    in.elapsedS = downloadS + m_rtt.GetSeconds() / 2.0;
    if (downloadS > 0.0)
    {
        in.downlinkBps = 8.0 * double(frameBytes) / downloadS;
    }
    in.predictedBps = m_controller->PredictBps();
    m_inputsMeasuredBps = m_lastMeasuredBps;
    in.learningRate = fedran::LearningRate(m_task->training, round);
}

void
FlClientApp::EncodeAdaptive(uint32_t round,
                            const fedran::TrainingResult& result,
                            std::vector<uint8_t>& payload,
                            UpdateSentRecord& record)
{
    // Runs on the training thread; the controller's Decide touches only this client's lazy
    // state, and m_inputs was written before the job was submitted.
    const fedran::TensorLayout& layout = m_task->model->Layout();
    fedran::control::RoundInputs in = m_inputs;
    in.updateNorm = result.updateNorm;
    in.gradVariance = result.gradVariance;
    in.steps = result.steps;
    std::vector<fedran::RungProfile> profiles(m_ladder->RungCount());
    for (size_t r = 0; r < profiles.size(); ++r)
    {
        profiles[r] = m_ladder->Profile(layout, r, round);
    }
    const fedran::control::Decision decision = m_controller->Decide(in, profiles);
    record.skipped = decision.skip;
    record.predictedBps = decision.predictedBps.value_or(-1.0);
    record.timeBudgetS = decision.timeBudgetS.value_or(-1.0);
    record.measuredBps = m_inputsMeasuredBps;
    if (decision.skip)
    {
        return; // the empty payload says so
    }
    record.rung = static_cast<int>(decision.rung);
    m_ladder->SelectRung(decision.rung);
    m_ladder->Encode(layout, result.update, m_codecRng, payload);
}

void
FlClientApp::HandleDelivered(Ptr<MessageChannel>, const TransferRecord& transfer)
{
    m_rtt = transfer.rtt;
    if (m_unacknowledged.empty())
    {
        return;
    }
    const uint32_t round = m_unacknowledged.front();
    m_unacknowledged.pop_front();
    if (round == 0)
    {
        return;
    }
    UploadMeasuredRecord measured;
    measured.round = round;
    measured.client = m_clientId;
    measured.bytes = transfer.bytes;
    measured.durationS = (transfer.acknowledged - transfer.handedOver).GetSeconds();
    measured.rttS = transfer.rtt.GetSeconds();
    m_lastMeasuredBps = measured.Bps();
    if (m_controller)
    {
        m_controller->AddTransfer(
            {double(measured.bytes), measured.durationS, measured.rttS});
    }
    m_uploadMeasuredTrace(measured);
}

void
FlClientApp::WaitForTraining()
{
    // A job still running uses this object: it must finish before the client goes away.
    if (m_pending.valid())
    {
        m_pending.wait();
    }
}

void
FlClientApp::HandleChannelError(Ptr<MessageChannel> channel, const std::string& why)
{
    NS_LOG_WARN("client " << m_clientId << ": " << why);
    m_sendEvent.Cancel();
    m_dropEvent.Cancel();
    WaitForTraining();
    channel->Close();
    m_channel = nullptr;
}

void
FlClientApp::Leave()
{
    m_sendEvent.Cancel();
    m_dropEvent.Cancel();
    WaitForTraining();
    m_pending = {};
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

} // namespace ns3
