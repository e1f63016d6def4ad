#include "models/fl/client-session.h"

#include "compression/codec-spec.h"
#include "models/fl/byzantine-attack.h"
#include "models/fl/pipeline-plan.h"
#include "models/learning/gradient-spread.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fedran
{

namespace
{

/// Hands the trainer's steps to the uplink codec's per-step state (dgc's mode "step"): the
/// trainer knows only StepHook, the codec only LocalStepState.
class CodecStepHook final : public StepHook
{
  public:
    CodecStepHook(LocalStepState& state, const TensorLayout& layout)
        : m_state(state)
        , m_layout(layout)
    {
    }

    void BeginSteps(double lr) override
    {
        m_state.BeginLocalTraining(m_layout, lr);
    }

    void Step(std::span<float> gradient) override
    {
        m_state.LocalStep(gradient);
    }

    void EndSteps(const TrainingResult& result) override
    {
        m_state.EndLocalTraining(result.examplesProcessed, result.samples);
    }

  private:
    LocalStepState& m_state;
    const TensorLayout& m_layout;
};

} // namespace

ClientSession::ClientSession(ClientSessionConfig config, std::shared_ptr<const FederatedTask> task)
    : m_config(config)
    , m_task(std::move(task))
{
    if (m_config.clientId >= m_task->partition.size())
    {
        throw std::invalid_argument("client id beyond the partition");
    }
    ResetCodecs();
    if (m_config.clientId < m_task->clientCompute.size())
    {
        m_device = m_task->clientCompute[m_config.clientId];
    }
    m_trainRng = Rng(m_task->seed, kClientTrainStreamBase + m_config.clientId);
    m_codecRng = Rng(m_task->seed, kClientCodecStreamBase + m_config.clientId);
    if (m_config.clientId < m_task->attacks.size())
    {
        m_attack = m_task->attacks[m_config.clientId];
    }
    m_attackRng = Rng(m_task->seed, kClientAttackStreamBase + m_config.clientId);
    // Streams of their own, drawn from only when the fault is configured: runs without
    // faults draw exactly what they drew before faults existed.
    m_corruptRng = Rng(m_task->seed, kClientCorruptStreamBase + m_config.clientId);
    m_crashRng = Rng(m_task->seed, kClientCrashStreamBase + m_config.clientId);
    m_spreadRng = Rng(m_task->seed, kClientSpreadStreamBase + m_config.clientId);
    // No model copy yet: a site holds one only while it trains (or, with downlink_reference
    // client_view, from its connection on, since the server's frames are relative to it).
}

ClientSession::~ClientSession() = default;

void
ClientSession::ResetCodecs()
{
    m_modelDecoder =
        MakeCodec(m_config.downlinkCodec.Empty() ? m_task->downlinkCodec : m_config.downlinkCodec);
    m_updateEncoder = MakeCodec(m_task->uplinkCodec);
    m_ladder = m_updateEncoder->Ladder();
    m_controller.reset();
    if (m_ladder)
    {
        m_controller = std::make_unique<control::RateController>(
            control::ParseControllerConfig(m_task->uplinkCodec.Json(),
                                           m_task->uplinkCodec.Path(),
                                           m_ladder->RungCount()));
    }
}

bool
ClientSession::MaybeDamage(std::vector<uint8_t>& frame)
{
    if (m_config.corruptUplink <= 0.0 || m_corruptRng.Uniform() >= m_config.corruptUplink)
    {
        return false;
    }
    const size_t payload = frame.size() - kFrameHeaderSize;
    if (payload == 0)
    {
        return false; // a skip: no payload to damage (damaging the header would cut the stream)
    }
    // One byte changed: a burst of at most 8 bits, which CRC-32 always detects.
    const size_t at = kFrameHeaderSize + m_corruptRng.UniformInt(payload);
    frame[at] ^= static_cast<uint8_t>(1 + m_corruptRng.UniformInt(255));
    return true;
}

std::optional<double>
ClientSession::DrawCrash()
{
    if (m_config.crashProbability <= 0.0 || m_crashRng.Uniform() >= m_config.crashProbability)
    {
        return std::nullopt;
    }
    return m_crashRng.Uniform();
}

void
ClientSession::Crash()
{
    // What a restarted site no longer has: its codec state (an error-feedback residual, an
    // adaptive controller's history), its model copy and its connection's messages.
    ResetCodecs();
    std::vector<float>().swap(m_model);
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
    if (frame.header.type == FrameType::GlobalModel && frame.header.codec == m_modelDecoder->Id())
    {
        return ServerFrameKind::Model;
    }
    if (frame.header.type == FrameType::CodecState && frame.header.codec == m_updateEncoder->Id())
    {
        return ServerFrameKind::CodecState;
    }
    return ServerFrameKind::Unexpected;
}

void
ClientSession::AcceptModel(const Frame& frame)
{
    m_modelDecoder->BeginRound(frame.header.round); // as the server's encoder was told
    if (m_attack.Active(frame.header.round) && m_attack.Colluding() && m_task->collusion)
    {
        // Taken here, on the simulation's thread, while the round is surely known.
        m_collusion = m_task->collusion->Round(frame.header.round);
    }
    const uint64_t size = m_task->model->Layout().TotalSize();
    if (m_task->downlinkClientView)
    {
        // The frame carries global − (this client's copy).
        std::vector<float> delta(size);
        m_modelDecoder->Decode(m_task->model->Layout(), frame.payload, delta);
        m_model.resize(size, 0.0f);
        for (size_t i = 0; i < m_model.size(); ++i)
        {
            m_model[i] += delta[i];
        }
    }
    else
    {
        m_model.resize(size);
        m_modelDecoder->Decode(m_task->model->Layout(), frame.payload, m_model);
    }
}

double
ClientSession::ComputeSeconds() const
{
    const size_t examples = m_task->partition[m_config.clientId].size();
    uint64_t work = LocalExamples(m_task->training, examples);
    if (m_controller && m_controller->NeedsError())
    {
        // The variance rule's gradients at the round's start model, at training's speed.
        work +=
            GradientSpreadExamples(m_task->training.batchSize, kGradientSpreadBatches, examples);
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

EncodedUpdate
ClientSession::TrainAndEncode(uint32_t round)
{
    const std::vector<uint32_t>& rows = m_task->partition[m_config.clientId];
    if (m_controller && m_controller->NeedsError())
    {
        // Before training moves the parameters: the spread of a few minibatch gradients at
        // the start model, without the trajectory's drift (gradient-spread.h).
        m_inputs.gradVariance = GradientSpread(*m_task->model,
                                               m_model,
                                               m_task->data->train,
                                               rows,
                                               m_task->training.batchSize,
                                               kGradientSpreadBatches,
                                               m_spreadRng);
    }
    TrainingResult result = Train(round);
    if (m_attack.Active(round) && m_attack.type != "label_flip")
    {
        // Before the codec: the frame is valid and of an honest client's size.
        const HonestStatistics* honest = m_collusion ? &m_collusion->Statistics(*m_task) : nullptr;
        CorruptUpdate(m_attack, result.update, honest, m_attackRng);
        double sum = 0.0;
        for (float v : result.update)
        {
            sum += double(v) * double(v);
        }
        result.updateNorm = std::sqrt(sum); // of what it sends
    }
    m_collusion.reset();
    EncodedUpdate encoded;
    std::vector<uint8_t> payload;
    m_updateEncoder->BeginRound(round);
    if (m_task->training.pipelining.layerwise)
    {
        EncodeLayerwise(round, result, encoded);
    }
    else if (m_controller)
    {
        EncodeAdaptive(round, result, payload, encoded.record);
    }
    else
    {
        m_updateEncoder->Encode(m_task->model->Layout(), result.update, m_codecRng, payload);
        if (m_device.profile)
        {
            // Tensor partitioning spreads the encoding over the client's cores.
            encoded.record.encodeS = m_updateEncoder->EncodeSeconds(*m_device.profile,
                                                                    m_task->model->Layout(),
                                                                    payload) /
                                     m_device.speed / double(m_device.cores);
        }
    }
    const FrameHeader header = MakeFrameHeader(FrameType::ClientUpdate,
                                               m_updateEncoder->Id(),
                                               round,
                                               m_config.clientId,
                                               static_cast<uint32_t>(rows.size()));

    if (!m_task->training.pipelining.layerwise)
    {
        encoded.frame = EncodeFrame(header, payload);
        encoded.record.frameBytes = encoded.frame.size();
    }
    if (!m_task->downlinkClientView)
    {
        // The next model replaces this one whole: nothing to keep between rounds.
        std::vector<float>().swap(m_model);
    }
    encoded.record.round = round;
    encoded.record.client = m_config.clientId;
    encoded.record.rawBytes = result.update.size() * sizeof(float);
    encoded.record.trainLoss = result.meanLoss;
    encoded.record.updateNorm = result.updateNorm;
    // The variance rule's own input where it has one (the start model's spread).
    encoded.record.gradVariance =
        m_controller && m_controller->NeedsError() ? m_inputs.gradVariance : result.gradVariance;
    encoded.record.codec = std::string(m_updateEncoder->Name());
    // Layerwise: the last bucket, the frame that completes the update.
    encoded.record.corrupted =
        MaybeDamage(encoded.parts.empty() ? encoded.frame : encoded.parts.back().frame);
    return encoded;
}

const std::vector<PipelinePart>&
ClientSession::Parts()
{
    if (m_parts.empty())
    {
        // Fixed for the client: its data, batch and speed set the last step's share.
        const TrainingConfig& training = m_task->training;
        const uint32_t examples =
            static_cast<uint32_t>(m_task->partition[m_config.clientId].size());
        const double lastStepS =
            double(LastStepExamples(training, examples)) / m_config.samplesPerSecond;
        const std::vector<double> flops = m_task->model->ForwardFlopsPerTensor();
        m_parts = PlanLayerwise(m_task->model->Layout(),
                                flops,
                                ComputeSeconds(),
                                lastStepS,
                                training.pipelining.bucketBytes);
    }
    return m_parts;
}

double
ClientSession::FirstPartReadyS()
{
    return m_task->training.pipelining.layerwise ? Parts().front().readyS : ComputeSeconds();
}

void
ClientSession::EncodeLayerwise(uint32_t round, const TrainingResult& result, EncodedUpdate& out)
{
    const TensorLayout& layout = m_task->model->Layout();
    const std::vector<PipelinePart>& parts = Parts();
    if (m_partEncoders.empty())
    {
        // One encoder per bucket: a codec's state (error feedback's residual) is per tensor,
        // and each bucket holds the same tensors every round.
        for (const PipelinePart& part : parts)
        {
            m_partLayouts.push_back(PartLayout(layout, part));
            m_partEncoders.push_back(MakeCodec(m_task->uplinkCodec));
        }
    }
    std::vector<std::vector<uint8_t>> payloads(parts.size());
    std::vector<double> encodeS(parts.size(), 0.0);
    // Encoded in layout order, as the whole update is without pipelining, so that a codec
    // drawing random numbers tensor by tensor draws the same ones.
    for (size_t k = parts.size(); k-- > 0;)
    {
        const TensorLayout& partLayout = m_partLayouts[k];
        Codec& encoder = *m_partEncoders[k];
        encoder.BeginRound(round);
        AppendPartPrefix(payloads[k], uint32_t(k), uint32_t(parts.size()), parts[k]);
        std::vector<uint8_t> body;
        encoder.Encode(partLayout,
                       std::span<const float>(result.update)
                           .subspan(layout.Offset(parts[k].firstTensor), partLayout.TotalSize()),
                       m_codecRng,
                       body);
        if (m_device.profile)
        {
            encodeS[k] = encoder.EncodeSeconds(*m_device.profile, partLayout, body) /
                         m_device.speed / double(m_device.cores);
        }
        payloads[k].insert(payloads[k].end(), body.begin(), body.end());
    }
    const std::vector<double> sendAt = PartSendTimes(parts, encodeS);
    const FrameHeader header =
        MakeFrameHeader(FrameType::ClientUpdatePart,
                        m_updateEncoder->Id(),
                        round,
                        m_config.clientId,
                        static_cast<uint32_t>(m_task->partition[m_config.clientId].size()));
    for (size_t k = 0; k < parts.size(); ++k)
    {
        EncodedPart part;
        part.frame = EncodeFrame(header, payloads[k]);
        part.sendAtS = sendAt[k];
        out.record.frameBytes += part.frame.size();
        out.record.encodeS += encodeS[k];
        out.parts.push_back(std::move(part));
    }
}

void
ClientSession::PartSent()
{
    m_unacknowledged.push_back(0); // a bucket before the last: no measurement of its own
}

TrainingResult
ClientSession::Train(uint32_t round)
{
    const std::vector<uint32_t>& rows = m_task->partition[m_config.clientId];
    const Dataset& train = m_task->data->train;
    // A codec that acts at every local step (dgc's mode "step") rides on the trainer's steps.
    std::optional<CodecStepHook> hook;
    if (LocalStepState* state = m_updateEncoder->StepState())
    {
        hook.emplace(*state, m_task->model->Layout());
    }
    StepHook* stepHook = hook ? &*hook : nullptr;
    if (!(m_attack.Active(round) && m_attack.type == "label_flip"))
    {
        return TrainLocal(*m_task->model,
                          m_model,
                          train,
                          rows,
                          m_task->training,
                          round,
                          m_trainRng,
                          stepHook);
    }
    // Data poisoning: the same examples, labels y -> C - 1 - y, in a copy that lives only
    // while the client trains (rows 0..k-1 of it stand for the client's k examples, in order,
    // so the minibatch draws are those of honest training).
    Dataset flipped;
    flipped.features = train.features;
    flipped.classes = train.classes;
    flipped.x.reserve(rows.size() * size_t(train.features));
    std::vector<uint32_t> local(rows.size());
    for (size_t i = 0; i < rows.size(); ++i)
    {
        const float* row = train.Row(rows[i]);
        flipped.x.insert(flipped.x.end(), row, row + train.features);
        flipped.y.push_back(static_cast<uint8_t>(train.classes - 1 - train.y[rows[i]]));
        local[i] = static_cast<uint32_t>(i);
    }
    return TrainLocal(*m_task->model,
                      m_model,
                      flipped,
                      local,
                      m_task->training,
                      round,
                      m_trainRng,
                      stepHook);
}

void
ClientSession::EncodeAdaptive(uint32_t /* round */,
                              const TrainingResult& result,
                              std::vector<uint8_t>& payload,
                              UpdateSentRecord& record)
{
    // The controller's Decide touches only this client's lazy state, and m_inputs was
    // written before training started.
    const TensorLayout& layout = m_task->model->Layout();
    control::RoundInputs in = m_inputs;
    in.updateNorm = result.updateNorm;
    if (!m_controller->NeedsError())
    {
        in.gradVariance = result.gradVariance;
    }
    in.steps = result.steps;
    // Each rung the policy compares is encoded for real, on a copy of its state, once.
    const bool needError = m_controller->NeedsError();
    const CostProfile* profile = m_device.profile.get();
    std::vector<std::optional<RungProfile>> measured(m_ladder->RungCount());
    double trialSeconds = 0.0;
    auto measure = [&](size_t r) {
        if (!measured[r])
        {
            measured[r] = m_ladder->Trial(layout, r, result.update, m_codecRng, needError, profile);
            trialSeconds += measured[r]->seconds;
        }
        return *measured[r];
    };
    const control::Decision decision = m_controller->Decide(in, measured.size(), measure);
    record.skipped = decision.skip;
    record.predictedBps = decision.predictedBps.value_or(-1.0);
    record.timeBudgetS = decision.timeBudgetS.value_or(-1.0);
    record.measuredBps = m_inputsMeasuredBps;
    if (decision.skip)
    {
        m_ladder->DiscardTrials();
        return; // the empty payload says so
    }
    record.rung = static_cast<int>(decision.rung);
    // fixed compares nothing: its one encoding is the chosen rung's trial.
    record.predictedPayloadBytes = int64_t(kFrameHeaderSize + measure(decision.rung).payloadBytes);
    m_ladder->Commit(decision.rung, payload, m_codecRng);
    if (m_device.profile)
    {
        // Every trial is work done before the upload: the chosen one is the encoding itself.
        record.encodeS = trialSeconds / m_device.speed / double(m_device.cores);
    }
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
        m_updateEncoder->BeginRound(frame.header.round);
        m_updateEncoder->AcceptRoundState(layout, frame.payload);
        return std::nullopt;
    }
    std::vector<uint8_t> payload;
    m_updateEncoder->EncodeReply(layout, frame.payload, payload);
    const FrameHeader header =
        MakeFrameHeader(FrameType::ClientReply,
                        m_updateEncoder->Id(),
                        frame.header.round,
                        m_config.clientId,
                        static_cast<uint32_t>(m_task->partition[m_config.clientId].size()));
    EncodedUpdate reply;
    reply.record.round = header.round;
    reply.record.client = m_config.clientId;
    reply.record.reply = true;
    reply.record.codec = std::string(m_updateEncoder->Name());
    reply.frame = EncodeFrame(header, payload);
    reply.record.frameBytes = reply.frame.size();
    if (m_device.profile)
    {
        reply.record.encodeS =
            m_updateEncoder->ReplySeconds(*m_device.profile, layout, payload) / m_device.speed;
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
    m_unacknowledged.pop_front();
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
