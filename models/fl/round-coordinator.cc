#include "models/fl/round-coordinator.h"

#include "models/learning/collusion-oracle.h"
#include "models/fl/async-coordinator.h"
#include "models/fl/pipeline-plan.h"

#include <algorithm>
#include <cmath>

namespace fedran
{

void
CheckUpdateFrame(const Frame& frame, uint16_t uplinkCodecId)
{
    if (frame.header.codec != uplinkCodecId)
    {
        throw DecodeError("frame codec id " + std::to_string(frame.header.codec) +
                              " does not match the configured codec",
                          6);
    }
    if (frame.header.samples == 0)
    {
        throw DecodeError("update claims zero training samples", 16);
    }
}

std::unique_ptr<ServerCoordinator>
MakeServerCoordinator(CoordinatorConfig config,
                      std::shared_ptr<const FederatedTask> task,
                      CoordinatorHost& host)
{
    if (config.async)
    {
        return std::make_unique<AsyncCoordinator>(std::move(config), std::move(task), host);
    }
    return std::make_unique<RoundCoordinator>(std::move(config), std::move(task), host);
}

RoundCoordinator::RoundCoordinator(CoordinatorConfig config,
                                   std::shared_ptr<const FederatedTask> task,
                                   CoordinatorHost& host)
    : m_config(std::move(config)),
      m_task(std::move(task)),
      m_host(host)
{
    const uint64_t size = m_task->model->Layout().TotalSize();
    m_global.assign(size, 0.0f);
    Rng initRng(m_task->seed, kModelInitStream);
    m_task->model->InitParams(m_global, initRng);
    m_scratch.assign(size, 0.0f);
    m_combined.assign(size, 0.0f);
    m_optimizer = MakeServerOptimizer(m_task->serverOptimizer);
    const auto uplink = MakeCodec(m_task->uplinkCodec, "compression.uplink");
    m_rule = MakeAggregationRule(RuleArgs{*uplink,
                                          m_task->robust,
                                          m_config.clientsPerRound,
                                          UsesMajorityVote(m_task->uplinkCodec)});
    m_exchange = uplink->MakeExchange(m_task->model->Layout(),
                                      Rng(m_task->seed, kServerExchangeStream).NextU64());
    m_uplinkCodecId = uplink->Id();
    m_costCodec = MakeCodec(m_task->uplinkCodec, "compression.uplink");
    m_coreFreeS.assign(std::max<uint32_t>(1, m_task->serverCompute.cores), 0.0);
    for (const auto& [child, spec] : m_config.aggregatorUplinkCodecs)
    {
        m_aggregatorCodecIds[child] = MakeCodec(spec, "aggregator.compression.uplink")->Id();
    }
    if (m_config.episodic)
    {
        m_optimizer = MakeServerOptimizer(ServerOptimizerConfig{}); // the plain mean
    }
    m_modelEncoder = MakeCodec(m_config.downlinkCodec.is_null() ? m_task->downlinkCodec
                                                                : m_config.downlinkCodec,
                               "compression.downlink");
    m_codecRng = Rng(m_task->seed, m_config.codecStream);
}

RoundCoordinator::~RoundCoordinator() = default;

void
RoundCoordinator::Start()
{
    ArmJoinTimeout(m_host, m_config.joinTimeoutTicks);
}

void
RoundCoordinator::Stop()
{
    CancelDeadline();
    CancelJoinTimeout(m_host);
    if (m_closing)
    {
        m_closing = false;
        m_host.CancelTimer(CoordinatorTimer::RoundClose);
    }
    if (m_phaseClosing)
    {
        m_phaseClosing = false;
        m_host.CancelTimer(CoordinatorTimer::PhaseClose);
    }
}

bool
RoundCoordinator::Admits(uint32_t client) const
{
    return client < m_task->partition.size() || m_config.aggregatorUplinkCodecs.count(client);
}

void
RoundCoordinator::OnJoin(uint32_t client)
{
    if (m_joined.count(client))
    {
        // The client reconnected before its old connection's end reached the server (a reset
        // lost on the link): the old session is dead.
        RemoveClient(client, UpdateFate::Dropped, "reconnected");
    }
    m_joined.insert(client);
    // A rejoining client starts from zeros (ClientSession); so does its mirror.
    m_views.erase(client);
    if (!m_started && m_joined.size() >= m_config.expectedClients)
    {
        CancelJoinTimeout(m_host);
        CloseJoin();
    }
}

void
RoundCoordinator::CloseJoin()
{
    if (!m_config.episodic)
    {
        StartRound();
        return;
    }
    m_started = true;
    m_host.JoinClosed(static_cast<uint32_t>(m_joined.size()), m_config.expectedClients);
}

void
RoundCoordinator::BeginEpisode(std::span<const float> model, uint32_t rounds)
{
    if (!m_started)
    {
        CancelJoinTimeout(m_host);
        CloseJoin();
    }
    if (InEpisode())
    {
        // The parent sent a new model before this episode ended (it lost the connection
        // and selected this tier again): its round ends here, unreported.
        CancelDeadline();
        m_busy.insert(m_pending.begin(), m_pending.end());
        m_pending.clear();
        m_firstPhase = false;
    }
    std::copy(model.begin(), model.end(), m_global.begin());
    m_episodeEnd = m_round + rounds;
    StartRound();
}

void
RoundCoordinator::OnClientLost(uint32_t client, UpdateFate fate, const std::string& why)
{
    if (m_joined.count(client))
    {
        RemoveClient(client, fate, why);
    }
}

std::optional<std::string>
RoundCoordinator::OnFrame(const Frame& frame)
{
    if (frame.corrupt)
    {
        if (frame.header.type != FrameType::ClientUpdate &&
            frame.header.type != FrameType::ClientReply)
        {
            return "a damaged frame (CRC mismatch) that is not an update";
        }
        HandleCorrupt(frame);
        return std::nullopt;
    }
    switch (frame.header.type)
    {
    case FrameType::ClientUpdate:
        HandleUpdate(frame);
        return std::nullopt;
    case FrameType::ClientUpdatePart:
        if (!m_task->training.pipelining.layerwise)
        {
            return "a bucket frame, but training.pipelining is not layerwise";
        }
        HandlePart(frame);
        return std::nullopt;
    case FrameType::ClientReply:
        if (!m_exchange)
        {
            return "a reply frame, but the uplink codec has one exchange";
        }
        HandleReply(frame);
        return std::nullopt;
    default:
        return "unexpected frame type from a client";
    }
}

void
RoundCoordinator::OnTimer(CoordinatorTimer timer)
{
    switch (timer)
    {
    case CoordinatorTimer::JoinTimeout:
        JoinTimeoutFired();
        CloseJoin();
        break;
    case CoordinatorTimer::Deadline:
        m_deadlineArmed = false;
        EndRound();
        break;
    case CoordinatorTimer::RoundClose:
        m_closing = false;
        ReportRound();
        break;
    case CoordinatorTimer::PhaseClose:
        m_phaseClosing = false;
        SendPhaseMessages();
        break;
    }
}

void
RoundCoordinator::HandleUpdate(const Frame& frame)
{
    const uint32_t client = frame.header.client;
    UpdateArrivalRecord record = ArrivalOf(frame);
    if (frame.header.round != m_round || !m_pending.count(client))
    {
        DiscardLate(record);
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
            AddUpdate(client, frame, record);
        }
        record.fate = UpdateFate::Accepted;
        // Decoding and folding in take the server's time, in arrival order on its cores.
        const TensorLayout& layout = m_task->model->Layout();
        double referenceS = m_task->serverCompute.profile
                                ? m_costCodec->DecodeSeconds(*m_task->serverCompute.profile,
                                                             layout,
                                                             frame.payload)
                                : 0.0;
        if (!m_exchange && m_task->serverCompute.profile)
        {
            referenceS += m_task->serverCompute.profile->foldPerElementS * double(layout.TotalSize());
        }
        record.decodeS = ServerSeconds(referenceS);
        record.foldedS = QueueServerWork(record.decodeS);
    }
    catch (const DecodeError& e)
    {
        record.fate = UpdateFate::Failed;
        record.reason = e.what();
    }
    if (m_firstPhase && record.fate == UpdateFate::Accepted)
    {
        // Not an update yet: it counts once this client's reply arrives.
        m_contributors.push_back(client);
        m_firstDecodeS[client] = record.decodeS;
        SettleClient(client);
        return;
    }
    m_host.UpdateArrived(record);
    SettleClient(client);
}

void
RoundCoordinator::AddUpdate(uint32_t client, const Frame& frame, UpdateArrivalRecord& record)
{
    switch (DecoderFor(client).DecodeUpdate(m_task->model->Layout(), frame.payload, m_scratch))
    {
    case Arrival::Update:
        m_rule->Add(m_scratch, frame.header.samples);
        m_added.push_back(client);
        break;
    case Arrival::SkipReuse:
        // A lazy update whose codec says to reuse the client's last update.
        record.skipped = true;
        m_rule->Add(m_scratch, frame.header.samples);
        m_added.push_back(client);
        break;
    case Arrival::SkipOmit:
        // A lazy update that leaves the client out of this round's combination.
        record.skipped = true;
        break;
    }
}

void
RoundCoordinator::HandleReply(const Frame& frame)
{
    const uint32_t client = frame.header.client;
    UpdateArrivalRecord record = ArrivalOf(frame);
    if (frame.header.round != m_round || m_firstPhase || !m_exchange->NeedsReplies() ||
        !m_pending.count(client))
    {
        DiscardLate(record); // the round ended between the two exchanges
        return;
    }
    try
    {
        CheckUplinkFrame(frame);
        m_exchange->AddReply(frame.payload, frame.header.samples);
        record.fate = UpdateFate::Accepted;
        record.decodeS = ServerSeconds(
            m_task->serverCompute.profile
                ? m_costCodec->DecodeSeconds(*m_task->serverCompute.profile,
                                             m_task->model->Layout(),
                                             frame.payload)
                : 0.0);
        record.foldedS = QueueServerWork(record.decodeS);
        const auto first = m_firstDecodeS.find(client);
        if (first != m_firstDecodeS.end())
        {
            record.decodeS += first->second; // decode_s covers both of its payloads
        }
    }
    catch (const DecodeError& e)
    {
        record.fate = UpdateFate::Failed;
        record.reason = e.what();
    }
    m_host.UpdateArrived(record);
    SettleClient(client);
}

void
RoundCoordinator::HandleCorrupt(const Frame& frame)
{
    // The payload is damaged; the header names the client only because the host has put the
    // connection's own client there. A client answers at most once per round, so a damaged
    // frame from a pending client is its answer; from a busy one, its late update.
    const uint32_t client = frame.header.client;
    UpdateArrivalRecord record = ArrivalOf(frame);
    if (!m_pending.count(client))
    {
        DiscardLate(record);
        return;
    }
    record.round = m_round;
    record.fate = UpdateFate::Corrupt;
    record.reason = "CRC mismatch";
    m_host.UpdateArrived(record);
    // Settled, not busy: it is selectable again from the next round on.
    SettleClient(client);
}

void
RoundCoordinator::HandlePart(const Frame& frame)
{
    const uint32_t client = frame.header.client;
    const TensorLayout& layout = m_task->model->Layout();
    UpdateArrivalRecord record = ArrivalOf(frame);
    if (frame.header.round != m_round || !m_pending.count(client))
    {
        // A bucket of an update whose round has ended: the last bucket is its late arrival.
        try
        {
            const PartPrefix prefix = ReadPartPrefix(frame.payload, layout);
            if (prefix.index + 1 < prefix.count)
            {
                return;
            }
        }
        catch (const DecodeError&)
        {
        }
        DiscardLate(record);
        return;
    }
    PartialUpdate& partial = m_partials[client];
    const auto& profile = m_task->serverCompute.profile;
    try
    {
        CheckUplinkFrame(frame);
        const PartPrefix prefix = ReadPartPrefix(frame.payload, layout);
        if (partial.seen.empty())
        {
            partial.values.assign(layout.TotalSize(), 0.0f);
            partial.seen.assign(prefix.count, false);
        }
        if (prefix.count != partial.seen.size() || partial.seen[prefix.index])
        {
            throw DecodeError("bucket " + std::to_string(prefix.index) + " of " +
                                  std::to_string(prefix.count) + " does not fit the update's " +
                                  std::to_string(partial.seen.size()) + " buckets",
                              0);
        }
        const TensorLayout partLayout = PartLayout(layout, prefix.part);
        const auto body = std::span<const uint8_t>(frame.payload).subspan(kPartPrefixSize);
        auto& decoders = m_partDecoders[client];
        decoders.resize(prefix.count);
        if (!decoders[prefix.index])
        {
            decoders[prefix.index] = MakeCodec(m_task->uplinkCodec, "compression.uplink");
        }
        Codec& decoder = *decoders[prefix.index];
        decoder.BeginRound(m_round);
        decoder.Decode(partLayout,
                       body,
                       std::span<float>(partial.values)
                           .subspan(layout.Offset(prefix.part.firstTensor), partLayout.TotalSize()));
        // Each bucket is decoded as it arrives, on the server's cores like a whole update.
        const double decodeS =
            ServerSeconds(profile ? decoder.DecodeSeconds(*profile, partLayout, body) : 0.0);
        partial.decodeS += decodeS;
        QueueServerWork(decodeS);
        partial.seen[prefix.index] = true;
        partial.frameBytes += kFrameHeaderSize + frame.payload.size();
        if (std::count(partial.seen.begin(), partial.seen.end(), true) <
            std::ptrdiff_t(partial.seen.size()))
        {
            return; // more buckets to come
        }
        // The whole update: folded in once, exactly as without pipelining.
        m_rule->Add(partial.values, frame.header.samples);
        m_added.push_back(client);
        const double foldS =
            ServerSeconds(profile ? profile->foldPerElementS * double(layout.TotalSize()) : 0.0);
        record.decodeS = partial.decodeS + foldS;
        record.foldedS = QueueServerWork(foldS);
        record.frameBytes = partial.frameBytes;
        record.fate = UpdateFate::Accepted;
    }
    catch (const DecodeError& e)
    {
        record.fate = UpdateFate::Failed;
        record.reason = e.what();
    }
    m_partials.erase(client);
    m_host.UpdateArrived(record);
    SettleClient(client);
}

UpdateArrivalRecord
RoundCoordinator::ArrivalOf(const Frame& frame)
{
    UpdateArrivalRecord record;
    record.round = frame.header.round;
    record.client = frame.header.client;
    record.frameBytes = kFrameHeaderSize + frame.payload.size();
    return record;
}

void
RoundCoordinator::DiscardLate(UpdateArrivalRecord record)
{
    // An update or reply for a round that has ended: recorded, discarded, and the client is
    // free to be selected again.
    record.fate = UpdateFate::Late;
    m_busy.erase(record.client);
    m_host.UpdateArrived(record);
}

void
RoundCoordinator::CheckUplinkFrame(const Frame& frame) const
{
    const auto aggregator = m_aggregatorCodecIds.find(frame.header.client);
    CheckUpdateFrame(frame,
                     aggregator == m_aggregatorCodecIds.end() ? m_uplinkCodecId
                                                              : aggregator->second);
}

const nlohmann::json&
RoundCoordinator::UplinkSpecOf(uint32_t client) const
{
    const auto aggregator = m_config.aggregatorUplinkCodecs.find(client);
    return aggregator == m_config.aggregatorUplinkCodecs.end() ? m_task->uplinkCodec
                                                               : aggregator->second;
}

void
RoundCoordinator::RemoveClient(uint32_t client, UpdateFate fate, const std::string& why)
{
    m_joined.erase(client);
    m_busy.erase(client);
    m_partials.erase(client);
    if (m_pending.count(client))
    {
        UpdateArrivalRecord record;
        record.round = m_round;
        record.client = client;
        record.fate = fate;
        record.reason = why;
        m_host.UpdateArrived(record);
        SettleClient(client);
    }
}

Codec&
RoundCoordinator::DecoderFor(uint32_t client)
{
    auto& decoder = m_decoders[client];
    if (!decoder)
    {
        decoder = MakeCodec(UplinkSpecOf(client), "compression.uplink");
    }
    // Updates are decoded in their own round only: the decoder follows the encoder's round
    // schedule (a sparsity warm-up).
    decoder->BeginRound(m_round);
    return *decoder;
}

std::vector<uint32_t>
RoundCoordinator::SampleClients()
{
    std::vector<uint32_t> idle;
    for (uint32_t id : m_joined)
    {
        if (!m_busy.count(id))
        {
            idle.push_back(id);
        }
    }
    // Partial Fisher-Yates on the id-ordered list: the draw depends only on the RNG stream.
    // The epsilon keeps 1.1 x 10 at 11 despite binary floating point.
    const auto wanted = static_cast<size_t>(
        std::ceil(m_config.overSelect * m_config.clientsPerRound - 1e-9));
    const size_t k = std::min<size_t>(wanted, idle.size());
    for (size_t i = 0; i < k; ++i)
    {
        const uint32_t j = m_host.DrawInteger(i, idle.size() - 1);
        std::swap(idle[i], idle[j]);
    }
    idle.resize(k);
    std::sort(idle.begin(), idle.end());
    return idle;
}

void
RoundCoordinator::StartRound()
{
    if (!m_started)
    {
        m_host.JoinClosed(static_cast<uint32_t>(m_joined.size()), m_config.expectedClients);
    }
    m_started = true;
    ++m_round;
    m_roundStartS = m_host.NowSeconds();
    m_selected = SampleClients();
    m_pending = std::set<uint32_t>(m_selected.begin(), m_selected.end());
    m_rule->Reset(m_global.size());
    m_added.clear();
    m_partials.clear(); // buckets of updates that never completed
    m_host.RoundStarted(m_round, m_selected);
    if (m_task->collusion && !m_config.episodic)
    {
        // Before any model frame: colluding attackers may ask as soon as theirs arrives.
        m_task->collusion->BeginRound(m_round, m_global, m_selected, m_task->attacks);
    }

    std::vector<uint8_t> state;
    if (m_exchange)
    {
        m_contributors.clear();
        m_firstDecodeS.clear();
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
            SendToClient(client, FrameType::CodecState, m_uplinkCodecId, state);
        }
        SendToClient(client,
                     FrameType::GlobalModel,
                     m_modelEncoder->Id(),
                     m_task->downlinkClientView ? EncodeForClientView(client) : shared);
    }
    // Nobody to wait for still takes the deadline, as a real server's round would.
    ArmDeadline();
}

std::vector<uint8_t>
RoundCoordinator::EncodeForClientView(uint32_t client)
{
    const TensorLayout& layout = m_task->model->Layout();
    ClientView& view = m_views[client];
    if (!view.encoder)
    {
        // Clients start from zeros (ClientSession); so does the server's mirror.
        view.encoder = MakeCodec(m_config.downlinkCodec.is_null() ? m_task->downlinkCodec
                                                                  : m_config.downlinkCodec,
                                 "compression.downlink");
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
RoundCoordinator::SendToClient(uint32_t client,
                               FrameType type,
                               uint16_t codec,
                               std::span<const uint8_t> payload)
{
    FrameHeader header;
    header.type = type;
    header.codec = codec;
    header.round = m_round;
    header.client = client;
    std::vector<uint8_t> frame = EncodeFrame(header, payload);
    m_host.FrameSent(m_round, client, frame.size());
    m_host.Send(client, std::move(frame));
}

void
RoundCoordinator::SettleClient(uint32_t client)
{
    m_pending.erase(client);
    if (!m_deadlineArmed)
    {
        return;
    }
    if (m_firstPhase)
    {
        // With over-selection the first clientsPerRound first payloads make the round.
        if (m_pending.empty() || m_contributors.size() >= m_config.clientsPerRound)
        {
            CloseFirstPhase();
        }
        return;
    }
    const size_t combined = m_exchange ? m_exchange->Count() : m_rule->Count();
    if (m_pending.empty() || combined >= m_config.clientsPerRound)
    {
        CancelDeadline();
        EndRound();
    }
}

void
RoundCoordinator::CloseFirstPhase()
{
    m_firstPhase = false;
    // Clients still computing their first payload are late for this round.
    m_busy.insert(m_pending.begin(), m_pending.end());
    m_pending.clear();
    m_phaseMessage.clear();
    m_exchange->CloseFirstPhase(m_phaseMessage);
    // The server's work between the phases (power_sgd's orthonormalisation) follows the
    // first payloads' folds; the message goes out when it is done.
    const double closeS = ServerSeconds(
        m_task->serverCompute.profile
            ? m_costCodec->CloseSeconds(*m_task->serverCompute.profile, m_task->model->Layout())
            : 0.0);
    m_foldedUntilS = std::max(m_foldedUntilS, m_host.NowSeconds()) + closeS;
    for (double& core : m_coreFreeS)
    {
        core = std::max(core, m_foldedUntilS);
    }
    const int64_t ticks = TicksUntil(m_foldedUntilS);
    if (ticks > 0)
    {
        m_phaseClosing = true;
        m_host.ArmTimer(CoordinatorTimer::PhaseClose, ticks);
        return;
    }
    SendPhaseMessages();
}

void
RoundCoordinator::SendPhaseMessages()
{
    for (uint32_t client : m_contributors)
    {
        // A contributor whose connection broke since has left: nothing to ask.
        if (m_joined.count(client))
        {
            m_pending.insert(client);
            SendToClient(client, FrameType::CodecState, m_uplinkCodecId, m_phaseMessage);
        }
    }
    if (m_pending.empty())
    {
        CancelDeadline();
        EndRound();
    }
}

void
RoundCoordinator::EndRound()
{
    // Whoever has not answered is late (past the deadline, or beyond the first
    // clientsPerRound); their update is discarded when it arrives.
    m_busy.insert(m_pending.begin(), m_pending.end());
    m_pending.clear();
    m_firstPhase = false;
    if (m_phaseClosing)
    {
        // The deadline came while the server was between the phases: no replies.
        m_phaseClosing = false;
        m_host.CancelTimer(CoordinatorTimer::PhaseClose);
    }

    // The server optimiser moves the model by the combined update (nothing moves without one).
    // A two-exchange round that ends in its first phase has no update.
    const size_t combined = m_exchange ? m_exchange->Count() : m_rule->Count();
    RoundRecord record;
    if (combined > 0)
    {
        if (m_exchange)
        {
            m_exchange->Result(m_combined);
        }
        else
        {
            m_rule->Result(m_combined);
            const std::vector<double> weights = m_rule->AggregateWeights();
            for (size_t i = 0; i < m_added.size() && i < weights.size(); ++i)
            {
                record.aggregateWeights.emplace_back(m_added[i], weights[i]);
            }
        }
        m_optimizer->Apply(m_combined, m_global);
    }
    Evaluation eval;
    if (m_config.episodic)
    {
        eval.accuracy = eval.loss = std::nan("");
    }
    else
    {
        eval = m_task->model->Evaluate(m_global, m_task->data->test);
    }

    record.round = m_round;
    record.robustRule = m_task->robust.type;
    record.startS = m_roundStartS;
    record.selected = m_selected;
    record.participants = static_cast<uint32_t>(combined);
    record.testAccuracy = eval.accuracy;
    record.testLoss = eval.loss;
    // The model is computed now; on the simulated clock the server first finishes folding in
    // what it queued, then combines and applies, then evaluates (data-parallel over its
    // cores), and only then does the round end and the next begin.
    if (const auto& profile = m_task->serverCompute.profile)
    {
        const double size = double(m_global.size());
        record.aggregateS = combined > 0 ? ServerSeconds(profile->applyPerElementS * size) : 0.0;
        // An edge aggregator's episodic rounds evaluate nothing.
        record.evaluateS = m_config.episodic
                               ? 0.0
                               : ServerSeconds(profile->flopS * m_task->model->ForwardFlops() *
                                               double(m_task->data->test.Size())) /
                                     double(m_coreFreeS.size());
    }
    const double closeAt = std::max(m_host.NowSeconds(), m_foldedUntilS) + record.aggregateS +
                           record.evaluateS;
    m_closed = record;
    const int64_t ticks = TicksUntil(closeAt);
    if (ticks > 0)
    {
        m_closing = true;
        m_host.ArmTimer(CoordinatorTimer::RoundClose, ticks);
        return;
    }
    ReportRound();
}

void
RoundCoordinator::ReportRound()
{
    m_closed.endS = m_host.NowSeconds();
    m_host.RoundEnded(m_closed);

    if (m_config.episodic)
    {
        if (m_round >= m_episodeEnd)
        {
            m_host.EpisodeEnded();
            return;
        }
        StartRound();
        return;
    }
    if (m_round >= m_config.rounds)
    {
        m_host.Finished();
        return;
    }
    StartRound();
}

void
RoundCoordinator::ArmDeadline()
{
    m_deadlineArmed = true;
    m_host.ArmTimer(CoordinatorTimer::Deadline, m_config.deadlineTicks);
}

void
RoundCoordinator::CancelDeadline()
{
    if (m_deadlineArmed)
    {
        m_deadlineArmed = false;
        m_host.CancelTimer(CoordinatorTimer::Deadline);
    }
}

double
RoundCoordinator::ServerSeconds(double referenceS) const
{
    return m_task->serverCompute.profile ? referenceS / m_task->serverCompute.speed : 0.0;
}

double
RoundCoordinator::QueueServerWork(double seconds)
{
    auto core = std::min_element(m_coreFreeS.begin(), m_coreFreeS.end());
    *core = std::max(*core, m_host.NowSeconds()) + seconds;
    m_foldedUntilS = std::max(m_foldedUntilS, *core);
    return *core;
}

int64_t
RoundCoordinator::TicksUntil(double atS) const
{
    const double ticks = std::round((atS - m_host.NowSeconds()) * m_config.ticksPerSecond);
    return ticks > 0.0 ? static_cast<int64_t>(ticks) : 0;
}

} // namespace fedran
