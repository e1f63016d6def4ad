#include "models/fl/async-coordinator.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fedran
{

AsyncCoordinator::AsyncCoordinator(CoordinatorConfig config,
                                   std::shared_ptr<const FederatedTask> task,
                                   CoordinatorHost& host)
    : m_config(std::move(config))
    , m_task(std::move(task))
    , m_host(host)
    ,
    // A step combines a buffer of K updates as a synchronous round combines its n.
    m_state(
        MakeServerState(*m_task, m_config.asyncConfig.buffer, CodecSpec(), {}, kServerCodecStream))
    , m_clock(m_task->serverCompute, m_config.ticksPerSecond)
    , m_idleAt(m_task->Clients(), -1)
{
    // The scenario refuses it; a program that builds its own task is told here, not later by
    // every update failing to decode (its download report would not be taken off).
    if (!m_task->downlinkCodec.Empty() && m_task->downlinkCodec.Traits().adaptive)
    {
        throw std::invalid_argument("compression.downlink: an adaptive downlink needs "
                                    "synchronous rounds (server.mode \"sync\")");
    }
}

AsyncCoordinator::~AsyncCoordinator() = default;

void
AsyncCoordinator::Start()
{
    ArmJoinTimeout(m_host, m_config.joinTimeoutTicks);
}

void
AsyncCoordinator::Stop()
{
    CancelJoinTimeout(m_host);
    m_finished = true;
    if (m_stepping)
    {
        m_stepping = false;
        m_host.CancelTimer(CoordinatorTimer::RoundClose);
    }
}

bool
AsyncCoordinator::Admits(uint32_t client) const
{
    return client < m_task->Clients();
}

void
AsyncCoordinator::OnJoin(uint32_t client)
{
    if (m_joined.count(client))
    {
        OnClientLost(client, UpdateFate::Dropped, "reconnected");
    }
    m_joined.insert(client);
    MakeIdle(client);
    if (!m_started && m_joined.size() >= m_config.expectedClients)
    {
        CancelJoinTimeout(m_host);
        Begin();
        return;
    }
    Fill();
}

void
AsyncCoordinator::OnClientLost(uint32_t client, UpdateFate fate, const std::string& why)
{
    if (!m_joined.erase(client))
    {
        return;
    }
    RemoveIdle(client);
    m_state.codecs.ForgetUpdateDecoders(client); // a rejoining client's encoder starts afresh
    const auto training = m_training.find(client);
    if (training != m_training.end())
    {
        UpdateArrivalRecord record;
        record.round = training->second + 1;
        record.client = client;
        record.fate = fate;
        record.reason = why;
        record.step = m_version + 1;
        record.modelVersion = training->second;
        m_training.erase(training);
        m_host.UpdateArrived(record);
        Fill();
    }
}

std::optional<std::string>
AsyncCoordinator::OnFrame(const Frame& frame)
{
    if (frame.header.type != FrameType::ClientUpdate)
    {
        return "unexpected frame type from a client in async mode";
    }
    // A corrupt frame's header passed the structural checks but its round may be damaged;
    // its client is the connection's (the host puts it there). A client trains for one model
    // at a time, so a damaged update from a training client is that model's.
    const uint32_t client = frame.header.client;
    const auto training = m_training.find(client);
    if (training == m_training.end() ||
        (!frame.corrupt && frame.header.round != training->second + 1))
    {
        return "an update for a model this client was not sent";
    }
    const uint32_t from = training->second;
    m_training.erase(training);
    MakeIdle(client);

    UpdateArrivalRecord record;
    record.round = from + 1;
    record.client = client;
    record.frameBytes = kFrameHeaderSize + frame.payload.size();
    record.step = m_version + 1;
    record.modelVersion = from;
    record.staleness = m_version - from;
    if (frame.corrupt)
    {
        // Damaged in flight (CRC mismatch): nothing of it is folded in, the connection stays
        // and the client is idle again, so Fill may pick it for the next model.
        record.fate = UpdateFate::Corrupt;
        record.reason = "CRC mismatch";
    }
    else if (m_finished)
    {
        record.fate = UpdateFate::Late; // after the last step
    }
    else if (m_config.asyncConfig.maxStaleness &&
             uint32_t(record.staleness) > *m_config.asyncConfig.maxStaleness)
    {
        record.fate = UpdateFate::Stale;
    }
    else
    {
        try
        {
            CheckUpdateFrame(frame, m_state.codecs.UplinkId(client));
            Fold(client, frame, record);
            record.fate = UpdateFate::Accepted;
        }
        catch (const DecodeError& e)
        {
            record.fate = UpdateFate::Failed;
            record.reason = e.what();
        }
    }
    m_host.UpdateArrived(record);
    if (record.fate == UpdateFate::Accepted && m_buffered >= m_config.asyncConfig.buffer &&
        !m_stepping)
    {
        Step();
    }
    Fill();
    return std::nullopt;
}

void
AsyncCoordinator::OnTimer(CoordinatorTimer timer)
{
    if (timer == CoordinatorTimer::JoinTimeout)
    {
        JoinTimeoutFired();
        if (!m_started)
        {
            Begin();
        }
    }
    else if (timer == CoordinatorTimer::RoundClose)
    {
        m_stepping = false;
        ReportStep();
    }
}

void
AsyncCoordinator::Begin()
{
    m_host.JoinClosed(static_cast<uint32_t>(m_joined.size()), m_config.expectedClients);
    m_started = true;
    m_stepStartS = m_host.NowSeconds();
    m_host.RoundStarted(1, {});
    Fill();
}

void
AsyncCoordinator::Fill()
{
    // While the server computes a step, the version it will send does not exist yet.
    while (m_started && !m_finished && !m_stepping && !m_idle.empty() &&
           m_training.size() < m_config.asyncConfig.concurrency)
    {
        const uint32_t pick = m_host.DrawInteger(0, static_cast<uint32_t>(m_idle.size() - 1));
        Dispatch(m_idle[pick]);
    }
}

void
AsyncCoordinator::Dispatch(uint32_t client)
{
    RemoveIdle(client);
    m_training[client] = m_version;
    Codec& modelEncoder = m_state.codecs.ModelEncoder();
    if (!m_modelEncoded)
    {
        // Each version is encoded once, however many clients it goes to.
        modelEncoder.BeginRound(m_version + 1);
        m_modelPayload.clear();
        modelEncoder.Encode(m_task->model->Layout(),
                            m_state.global,
                            m_state.codecRng,
                            m_modelPayload);
        m_modelEncoded = true;
    }
    const FrameHeader header =
        MakeFrameHeader(FrameType::GlobalModel, modelEncoder.Id(), m_version + 1, client);
    std::vector<uint8_t> frame = EncodeFrame(header, m_modelPayload);
    m_host.FrameSent(header.round, client, frame.size(), std::string(modelEncoder.Name()));
    m_host.Send(client, std::move(frame));
}

void
AsyncCoordinator::MakeIdle(uint32_t client)
{
    if (m_joined.count(client) && m_idleAt[client] < 0)
    {
        m_idleAt[client] = static_cast<int64_t>(m_idle.size());
        m_idle.push_back(client);
    }
}

void
AsyncCoordinator::RemoveIdle(uint32_t client)
{
    const int64_t at = m_idleAt[client];
    if (at < 0)
    {
        return;
    }
    const uint32_t last = m_idle.back();
    m_idle[at] = last;
    m_idleAt[last] = at;
    m_idle.pop_back();
    m_idleAt[client] = -1;
}

void
AsyncCoordinator::Fold(uint32_t client, const Frame& frame, UpdateArrivalRecord& record)
{
    // Told the round the client's encoder was told.
    Codec& decoder = m_state.codecs.UpdateDecoder(client, frame.header.round);
    const double samples = frame.header.samples;
    const double weight =
        samples * StalenessWeight(m_config.asyncConfig.staleness, uint32_t(record.staleness));
    switch (decoder.DecodeUpdate(m_task->model->Layout(), frame.payload, m_state.scratch))
    {
        case Arrival::SkipReuse:
            record.skipped = true;
            [[fallthrough]];
        case Arrival::Update:
            m_state.rule->Add(m_state.scratch, weight);
            m_sumSamples += samples;
            m_sumWeighted += weight;
            break;
        case Arrival::SkipOmit:
            record.skipped = true;
            break;
    }
    // Decoding and folding in take the server's time, in arrival order on its cores (as in
    // synchronous rounds); the step waits for them.
    record.decodeS = m_clock.DecodeSeconds(decoder, m_task->model->Layout(), frame.payload, true);
    record.foldedS = m_clock.Queue(record.decodeS, m_host.NowSeconds());
    if (m_buffered == 0)
    {
        m_bufferFirstS = m_host.NowSeconds();
    }
    ++m_buffered;
    m_bufferClients.push_back(client);
}

void
AsyncCoordinator::Step()
{
    const size_t combined = m_state.rule->Count();
    if (combined > 0)
    {
        m_state.rule->Result(m_state.combined);
        // The rule normalises by Σ nₖ s(τₖ); staleness should shrink the step, not cancel out.
        const float scale = static_cast<float>(m_sumWeighted / m_sumSamples);
        for (float& v : m_state.combined)
        {
            v *= scale;
        }
        m_state.optimizer->Apply(m_state.combined, m_state.global);
    }
    ++m_version;
    m_modelEncoded = false;
    const Evaluation eval = m_task->model->Evaluate(m_state.global, m_task->data->test);

    RoundRecord& record = m_stepRecord;
    record = RoundRecord{};
    record.round = m_version;
    record.startS = m_stepStartS;
    record.selected = m_bufferClients;
    std::sort(record.selected.begin(), record.selected.end());
    record.participants = static_cast<uint32_t>(combined);
    record.testAccuracy = eval.accuracy;
    record.testLoss = eval.loss;
    record.testRmse = eval.rmse;
    record.testMae = eval.mae;
    record.testNrmse = eval.nrmse;
    record.bufferFillS = m_host.NowSeconds() - m_bufferFirstS;
    record.robustRule = m_task->robust.type;

    m_state.rule->Reset(m_state.global.size());
    m_buffered = 0;
    m_sumSamples = 0.0;
    m_sumWeighted = 0.0;
    m_bufferClients.clear();
    if (m_version >= m_config.rounds)
    {
        m_finished = true;
    }
    // The step is computed now; it closes on the server clock as a round does. Updates
    // arriving meanwhile go into the next buffer; the new version goes out once it is done.
    const RoundCloseTimes close = m_clock.CloseRound(*m_state.rule,
                                                     m_task->robust.type,
                                                     combined,
                                                     m_state.global.size(),
                                                     m_task->model.get(),
                                                     m_task->data->test.Size(),
                                                     m_host.NowSeconds());
    record.aggregateS = close.aggregateS;
    record.evaluateS = close.evaluateS;
    if (close.ticks > 0)
    {
        m_stepping = true;
        m_host.ArmTimer(CoordinatorTimer::RoundClose, close.ticks);
        return;
    }
    ReportStep();
}

void
AsyncCoordinator::ReportStep()
{
    m_stepRecord.endS = m_host.NowSeconds();
    m_host.RoundEnded(m_stepRecord);
    m_stepStartS = m_stepRecord.endS;
    if (m_finished)
    {
        m_host.Finished();
        return;
    }
    if (m_buffered >= m_config.asyncConfig.buffer)
    {
        Step(); // the buffer filled again while the server was busy
        return;
    }
    Fill();
}

} // namespace fedran
