// ClientSession: its state, the frames it classifies and accepts, the round's preparation and
// what it measures of its uploads; client-update.cc trains and encodes the round's update,
// client-stages.cc answers pow-d's poll and secure aggregation's stages.

#include "models/fl/client-session.h"

#include "models/fl/adaptive-clip.h"
#include "models/fl/downlink-rungs.h"
#include "models/fl/level-policy.h"
#include "models/fl/local-dp.h"
#include "models/fl/loss-poll.h"
#include "models/fl/loss-report.h"
#include "models/learning/gradient-spread.h"

#include <stdexcept>

namespace fedran
{

ClientSession::ClientSession(ClientSessionConfig config, std::shared_ptr<const FederatedTask> task)
    : m_config(config)
    , m_task(std::move(task))
    , m_codecs(m_task->uplinkCodec,
               m_config.downlinkCodec.Empty() ? m_task->downlinkCodec : m_config.downlinkCodec)
    , m_layerwise(*m_task, m_config.clientId, m_config.samplesPerSecond)
    , m_attack(*m_task, m_config.clientId)
    , m_faults(m_task->seed, config.clientId, config.corruptUplink, config.crashProbability)
{
    if (m_config.clientId >= m_task->Clients())
    {
        throw std::invalid_argument("client id beyond the partition");
    }
    ResetCodecs();
    const CodecSpec& downlink =
        m_config.downlinkCodec.Empty() ? m_task->downlinkCodec : m_config.downlinkCodec;
    m_reportDownload = !downlink.Empty() && downlink.Traits().adaptive;
    if (m_config.clientId < m_task->clientCompute.size())
    {
        m_device = m_task->clientCompute[m_config.clientId];
    }
    m_trainRng = Rng(m_task->seed, kClientTrainStreamBase + m_config.clientId);
    m_codecRng = Rng(m_task->seed, kClientCodecStreamBase + m_config.clientId);
    m_spreadRng = Rng(m_task->seed, kClientSpreadStreamBase + m_config.clientId);
    m_dpRng = Rng(m_task->seed, LocalDpStream(m_config.clientId));
    if (m_task->secagg.Enabled())
    {
        m_secagg = std::make_unique<secagg::SecAggSite>(m_config.clientId,
                                                        m_task->seed,
                                                        m_task->uplinkCodec,
                                                        m_task->dp);
        if (!m_task->uplinkCodec.Empty() && m_task->uplinkCodec.Type() != "none" &&
            m_task->uplinkCodec.Type() != "random_k")
        {
            m_secaggDecoder = MakeCodec(m_task->uplinkCodec);
        }
    }
    // No model copy yet: a site holds one only while it trains (or, with downlink_reference
    // client_view, from its connection on, since the server's frames are relative to it).
}

ClientSession::~ClientSession() = default;

void
ClientSession::ResetCodecs()
{
    // A layerwise update's bucket encoders are kept: a crash has never reset them.
    m_codecs.ResetReceiver();
    m_ladder = m_codecs.UpdateEncoder().Ladder();
    m_controller.reset();
    if (m_ladder)
    {
        control::ControllerConfig config =
            control::ParseControllerConfig(m_task->uplinkCodec.Json(),
                                           m_task->uplinkCodec.Path(),
                                           m_ladder->RungCount());
        config.averagedUpdates = m_task->clientsPerRound;
        m_controller = std::make_unique<control::RateController>(std::move(config));
        if (m_controller->ServerLed())
        {
            m_rungLevels = control::ParseLevelPolicy(m_task->uplinkCodec.Json(),
                                                     m_task->uplinkCodec.Path(),
                                                     m_task->training.totalRounds)
                               .rungLevels;
        }
    }
}

std::optional<double>
ClientSession::DrawCrash()
{
    return m_faults.DrawCrash();
}

void
ClientSession::Crash()
{
    // What a restarted site no longer has: its codec state (an error-feedback residual, an
    // adaptive controller's history), its model copy and its connection's messages.
    ResetCodecs();
    std::vector<float>().swap(m_model);
    m_modelRound = 0;
    m_unacknowledged.clear();
    m_sentRound = 0;
    m_rttS = 0.0;
    m_lastMeasuredBps = -1.0;
    m_inputsMeasuredBps = -1.0;
}

std::vector<uint8_t>
ClientSession::BeginConnection()
{
    // What the client held before may not match what the server will send
    // (downlink_reference client_view): both ends start from zeros.
    if (m_task->downlinkClientView)
    {
        m_model.assign(m_task->model->Layout().TotalSize(), 0.0f);
    }
    else
    {
        std::vector<float>().swap(m_model);
    }
    m_modelRound = 0;
    m_unacknowledged.clear();
    m_unacknowledged.push_back(0);
    return EncodeJoinFrame(m_config.clientId);
}

ServerFrameKind
ClientSession::Classify(const Frame& frame) const
{
    if (frame.header.client != m_config.clientId)
    {
        return ServerFrameKind::Unexpected;
    }
    if (frame.header.type == FrameType::GlobalModel && frame.header.codec == m_codecs.ModelId())
    {
        return ServerFrameKind::Model;
    }
    if (frame.header.type == FrameType::CodecState && frame.header.codec == m_codecs.UpdateId())
    {
        return ServerFrameKind::CodecState;
    }
    if (m_secagg && (frame.header.type == FrameType::SecAggSetup ||
                     frame.header.type == FrameType::SecAggKeys ||
                     frame.header.type == FrameType::SecAggShares ||
                     frame.header.type == FrameType::SecAggUnmask))
    {
        return ServerFrameKind::SecAgg;
    }
    if (m_task->selection.Traits().polls && frame.header.codec == m_codecs.ModelId())
    {
        if (frame.header.type == FrameType::LossPoll)
        {
            return ServerFrameKind::LossPoll;
        }
        if (frame.header.type == FrameType::TrainStart && frame.payload.empty())
        {
            return ServerFrameKind::TrainStart;
        }
    }
    return ServerFrameKind::Unexpected;
}

void
ClientSession::AcceptModel(const Frame& frame)
{
    m_codecs.ModelDecoder().BeginRound(frame.header.round); // as the server's encoder was told
    // A level policy's level for this round: the header field that carries an update's weight.
    m_assignedLevel = frame.header.samples;
    if (m_task->dp.AdaptiveClipping())
    {
        m_clipNorm = ClipNormFromField(frame.header.samples); // or, adaptive clipping's C
    }
    m_attack.ModelArrived(*m_task, frame.header.round);
    m_modelRound = 0; // until the frame has decoded
    const uint64_t size = m_task->model->Layout().TotalSize();
    if (m_task->downlinkClientView)
    {
        // The frame carries global − (this client's copy).
        std::vector<float> delta(size);
        m_codecs.ModelDecoder().Decode(m_task->model->Layout(), frame.payload, delta);
        m_model.resize(size, 0.0f);
        for (size_t i = 0; i < m_model.size(); ++i)
        {
            m_model[i] += delta[i];
        }
    }
    else
    {
        m_model.resize(size);
        m_codecs.ModelDecoder().Decode(m_task->model->Layout(), frame.payload, m_model);
    }
    m_modelRound = frame.header.round;
}

double
ClientSession::ComputeSeconds() const
{
    const size_t examples = m_task->Examples(m_config.clientId);
    uint64_t work = LocalExamples(m_task->training, examples);
    if (m_controller && m_controller->NeedsError())
    {
        // The variance rule's gradients at the round's start model, at training's speed.
        work +=
            GradientSpreadExamples(m_task->training.batchSize, kGradientSpreadBatches, examples);
    }
    if (m_controller && m_controller->ServerLed())
    {
        work += LossReportExamples(*m_task, m_config.clientId); // the loss of the round's model
    }
    return double(work) / m_config.samplesPerSecond;
}

void
ClientSession::PrepareRound(uint32_t round,
                            uint64_t modelFrameBytes,
                            double downloadS,
                            double computeS,
                            double modelFirstByteS)
{
    m_downloadS = downloadS; // an adaptive downlink's report, sent with the update
    if (!m_controller)
    {
        return;
    }
    // What the round has already used: the model's download plus half an RTT for its first
    // byte's trip from the server.
    control::RoundInputs& in = m_inputs;
    in = control::RoundInputs{};
    in.round = round;
    in.deadlineS = m_config.deadlineS;
    in.computeS = computeS;
    in.elapsedS = downloadS + m_rttS / 2.0;
    if (downloadS > 0.0)
    {
        in.downlinkBps = 8.0 * double(modelFrameBytes) / downloadS;
    }
    in.predictedBps = m_controller->PredictBps();
    m_controller->RoundStarted(round, modelFirstByteS - m_rttS / 2.0);
    in.roundEnd = m_controller->RoundEnd();
    m_inputsMeasuredBps = m_lastMeasuredBps;
    in.learningRate = LearningRate(m_task->training, round);
}

void
ClientSession::UpdateSent(const UpdateSentRecord& record)
{
    m_sentRound = record.round;
    // A skip's empty frame is no measurement of the link: only updates feed the estimator.
    m_unacknowledged.push_back(record.skipped ? 0 : record.round);
}

std::optional<EncodedUpdate>
ClientSession::AcceptCodecState(const Frame& frame)
{
    const TensorLayout& layout = m_task->model->Layout();
    if (frame.header.round != m_sentRound)
    {
        // No training runs now (the server selects a client only once its last update has
        // arrived), so the encoder can take the state.
        m_codecs.UpdateEncoder().BeginRound(frame.header.round);
        m_codecs.UpdateEncoder().AcceptRoundState(layout, frame.payload);
        return std::nullopt;
    }
    std::vector<uint8_t> payload;
    m_codecs.UpdateEncoder().EncodeReply(layout, frame.payload, payload);
    const FrameHeader header =
        MakeFrameHeader(FrameType::ClientReply,
                        m_codecs.UpdateEncoder().Id(),
                        frame.header.round,
                        m_config.clientId,
                        static_cast<uint32_t>(m_task->Examples(m_config.clientId)));
    EncodedUpdate reply;
    reply.record.round = header.round;
    reply.record.client = m_config.clientId;
    reply.record.reply = true;
    reply.record.codec = std::string(m_codecs.UpdateEncoder().Name());
    reply.frame = EncodeFrame(header, payload);
    reply.record.frameBytes = reply.frame.size();
    if (m_device.profile)
    {
        reply.record.encodeS =
            m_codecs.UpdateEncoder().ReplySeconds(*m_device.profile, layout, payload) /
            m_device.speed;
    }
    m_unacknowledged.push_back(0);
    return reply;
}

std::optional<UploadMeasuredRecord>
ClientSession::Delivered(const Delivery& delivery)
{
    m_rttS = delivery.rttS;
    if (m_unacknowledged.empty())
    {
        return std::nullopt;
    }
    const uint32_t round = m_unacknowledged.front();
    m_unacknowledged.erase(m_unacknowledged.begin());
    if (round == 0)
    {
        return std::nullopt;
    }
    UploadMeasuredRecord measured;
    measured.round = round;
    measured.client = m_config.clientId;
    measured.bytes = delivery.bytes;
    measured.durationS = delivery.durationS;
    measured.rttS = delivery.rttS;
    m_lastMeasuredBps = measured.Bps();
    if (m_controller)
    {
        m_controller->AddTransfer({double(measured.bytes), measured.durationS, measured.rttS});
        m_controller->UpdateArrived(round, delivery.acknowledgedS - delivery.rttS / 2.0);
    }
    return measured;
}

} // namespace fedran
