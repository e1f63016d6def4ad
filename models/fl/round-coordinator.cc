// RoundCoordinator: joins, selection, the round's deadline and phases; round-arrivals.cc
// handles the frames clients send, round-close.cc what becomes of a round that has ended.

#include "models/fl/round-coordinator.h"

#include "models/fl/collusion-oracle.h"

#include <algorithm>
#include <cmath>

namespace fedran
{

RoundCoordinator::RoundCoordinator(CoordinatorConfig config,
                                   std::shared_ptr<const FederatedTask> task,
                                   CoordinatorHost& host)
    : m_config(std::move(config))
    , m_task(std::move(task))
    , m_host(host)
    , m_state(MakeServerState(*m_task,
                              m_config.clientsPerRound,
                              m_config.downlinkCodec,
                              m_config.aggregatorUplinkCodecs,
                              m_config.codecStream))
    , m_clock(m_task->serverCompute, m_config.ticksPerSecond)
    , m_views(m_state.codecs, m_task->model->Layout())
    , m_buckets(m_state.codecs, m_task->model->Layout())
{
    m_exchange =
        m_state.codecs.Uplink().MakeExchange(m_task->model->Layout(),
                                             Rng(m_task->seed, kServerExchangeStream).NextU64());
    if (m_config.episodic)
    {
        m_state.optimizer = MakeServerOptimizer(ServerOptimizerConfig{}); // the plain mean
    }
    const SelectionSpec selection = m_config.episodic ? SelectionSpec{} : m_task->selection;
    m_selection = MakeSelectionPolicy(
        selection,
        SelectionContext{m_task->seed,
                         m_config.rounds,
                         double(m_config.deadlineTicks) / m_config.ticksPerSecond,
                         WantedClients(m_config.overSelect, m_config.clientsPerRound)});
    m_selectionLoss = selection.Traits().needsLoss;
    const CodecSpec& downlink =
        m_config.downlinkCodec.Empty() ? m_task->downlinkCodec : m_config.downlinkCodec;
    if (!m_config.episodic && !downlink.Empty() && downlink.Traits().adaptive)
    {
        m_downlinkRungs = std::make_unique<control::DownlinkRungs>(
            control::ParseDownlinkConfig(downlink.Json(), downlink.Path()));
    }
    if (!m_config.episodic && m_task->secagg.Enabled())
    {
        m_secagg = std::make_unique<secagg::SecAggRound>(m_task->secagg,
                                                         m_task->uplinkCodec,
                                                         m_task->dp,
                                                         m_task->model->Layout().TotalSize(),
                                                         m_task->seed,
                                                         m_config.clientsPerRound);
    }
    const CodecSpec& uplink = m_task->uplinkCodec;
    if (!m_config.episodic && !uplink.Empty() && control::IsLevelPolicy(uplink.Json()))
    {
        m_levels = std::make_unique<control::ServerLevelPolicy>(
            control::ParseLevelPolicy(uplink.Json(), uplink.Path(), m_config.rounds));
    }
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
    if (m_pollTimerArmed)
    {
        m_pollTimerArmed = false;
        m_host.CancelTimer(CoordinatorTimer::PollTimeout);
    }
    CancelSecAggTimer();
}

bool
RoundCoordinator::Admits(uint32_t client) const
{
    return client < m_task->Clients() || m_config.aggregatorUplinkCodecs.count(client);
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
    if (client < m_task->Clients())
    {
        m_ledger[client].samples = m_task->Examples(client);
    }
    // A rejoining client starts from zeros (ClientSession); so does its mirror.
    m_views.Forget(client);
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
    std::copy(model.begin(), model.end(), m_state.global.begin());
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
        case CoordinatorTimer::PollTimeout:
            m_pollTimerArmed = false;
            ClosePoll();
            break;
        case CoordinatorTimer::SecAggStage:
            m_secaggTimerArmed = false;
            CloseSecAggStage();
            break;
    }
}

void
RoundCoordinator::RemoveClient(uint32_t client, UpdateFate fate, const std::string& why)
{
    m_joined.erase(client);
    m_busy.erase(client);
    m_buckets.Forget(client);
    if (m_poll.Active())
    {
        // A candidate that is gone will not answer; the poll may be complete without it.
        m_poll.Lost(client);
        if (m_poll.Complete())
        {
            ClosePoll();
        }
    }
    if (m_secagg && m_secagg->Active())
    {
        // The stage stops waiting for it; in a key or unmask stage it may be complete now.
        m_secagg->Server().Lost(client);
    }
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
    if (m_secagg && m_secagg->KeyOrUnmaskStage() && m_secagg->Server().Complete())
    {
        CloseSecAggStage();
    }
}

Selection
RoundCoordinator::SampleClients()
{
    SelectionRequest request;
    request.round = m_round;
    for (uint32_t id : m_joined)
    {
        if (!m_busy.count(id))
        {
            request.idle.push_back(id);
        }
    }
    request.wanted = WantedClients(m_config.overSelect, m_config.clientsPerRound);
    request.clientsPerRound = m_config.clientsPerRound;
    request.deadlineS = double(m_config.deadlineTicks) / m_config.ticksPerSecond;
    request.ledger = &m_ledger;
    request.drawInteger = [this](uint32_t lo, uint32_t hi) {
        return m_host.DrawInteger(lo, hi);
    };
    if (m_host.KnowsPathRates())
    {
        request.pathRate = [this](uint32_t client) {
            return m_host.PathRateOf(client);
        };
    }
    return m_selection->Select(request);
}

std::vector<uint32_t>
RoundCoordinator::AdoptSelection(Selection selection)
{
    std::vector<uint32_t> chosen = std::move(selection.clients);
    std::sort(chosen.begin(), chosen.end());
    m_scores.clear();
    for (uint32_t client : chosen)
    {
        const auto it = selection.scores.find(client);
        if (it != selection.scores.end())
        {
            m_scores.emplace_back(client, it->second);
        }
        // The path's capacity now, to tell the coming download from the compute after it.
        const std::optional<PathRate> rate =
            m_host.KnowsPathRates() ? m_host.PathRateOf(client) : std::nullopt;
        LedgerSelected(m_ledger,
                       client,
                       m_round,
                       m_roundStartS,
                       rate ? rate->downBps : std::nan(""));
        if (m_task->dp.Local())
        {
            // A selected site trains and releases a noised update: one step of its own
            // accountant, whether or not its update arrives in time.
            m_dpSelections.Selected(client);
        }
    }
    return chosen;
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
    m_roundPolled = false;
    Selection selection = SampleClients();
    if (selection.poll)
    {
        std::vector<uint32_t> candidates = std::move(selection.clients);
        std::sort(candidates.begin(), candidates.end());
        StartPoll(std::move(candidates));
        return;
    }
    if (m_secagg)
    {
        StartSecAgg(AdoptSelection(std::move(selection)));
        return;
    }
    LaunchRound(AdoptSelection(std::move(selection)));
}

std::vector<uint8_t>
RoundCoordinator::ModelPayload(uint32_t client, const std::vector<uint8_t>& shared)
{
    return m_task->downlinkClientView
               ? m_views.Encode(client, m_round, m_state.global, m_state.codecRng, m_state.scratch)
               : shared;
}

void
RoundCoordinator::LaunchRound(std::vector<uint32_t> selected)
{
    m_selected = std::move(selected);
    m_pending = std::set<uint32_t>(m_selected.begin(), m_selected.end());
    m_state.rule->Reset(m_state.global.size());
    m_added.clear();
    m_buckets.Clear(); // buckets of updates that never completed
    if (!m_secagg)
    {
        // With secure aggregation the round started with its Setup frames (StartSecAgg).
        m_host.RoundStarted(m_round, m_selected);
    }
    if (m_task->collusion && !m_config.episodic)
    {
        // Before any model frame: colluding attackers may ask as soon as theirs arrives.
        m_task->collusion->BeginRound(m_round, m_state.global, m_selected, m_task->attacks);
    }

    std::vector<uint8_t> state;
    if (m_exchange)
    {
        m_contributors.clear();
        m_firstDecodeS.clear();
        m_exchange->BeginRound(m_round, state);
        m_firstPhase = m_exchange->NeedsReplies();
    }
    std::vector<std::vector<uint8_t>> payloads;
    std::vector<size_t> which;
    std::vector<std::string> labels;
    if (!m_roundPolled)
    {
        // A polled round's model went out with the poll (StartPoll).
        EncodeModels(payloads, which, labels);
    }
    // A level policy's levels for the sampled clients, by their FedAvg weights.
    std::vector<uint32_t> levels(m_selected.size(), 0);
    if (m_levels)
    {
        std::vector<uint32_t> samples;
        for (uint32_t client : m_selected)
        {
            samples.push_back(m_task->Examples(client));
        }
        levels = m_levels->Assign(samples, m_selected, m_roundStartS);
    }
    else if (m_state.clip)
    {
        // Adaptive clipping: the round's C, which each site compares its update's norm with
        // (the scenario refuses it with a level policy, which uses the same field).
        levels.assign(m_selected.size(), ClipNormField(m_state.clip->Current()));
    }
    const uint16_t modelCodec = m_state.codecs.ModelEncoder().Id();
    for (size_t i = 0; i < m_selected.size(); ++i)
    {
        const uint32_t client = m_selected[i];
        if (!state.empty())
        {
            // Before the model, so that the client's encoder has it when training ends.
            SendToClient(client, FrameType::CodecState, m_state.codecs.Uplink().Id(), state);
        }
        if (m_roundPolled)
        {
            // It holds this round's model from the poll: only the word to train from it.
            SendToClient(client, FrameType::TrainStart, modelCodec, {}, levels[i]);
            continue;
        }
        SendToClient(client,
                     FrameType::GlobalModel,
                     modelCodec,
                     payloads[which[i]],
                     levels[i],
                     labels[i]);
    }
    // Nobody to wait for still takes the deadline, as a real server's round would.
    ArmDeadline();
}

void
RoundCoordinator::SendToClient(uint32_t client,
                               FrameType type,
                               uint16_t codec,
                               std::span<const uint8_t> payload,
                               uint32_t level,
                               const std::string& label)
{
    std::vector<uint8_t> frame =
        EncodeFrame(MakeFrameHeader(type, codec, m_round, client, level), payload);
    if (m_downlinkRungs && type == FrameType::GlobalModel)
    {
        m_downlinkRungs->FrameSent(client, m_round, frame.size()); // what its report measures
    }
    if (type == FrameType::GlobalModel || type == FrameType::LossPoll)
    {
        m_ledger[client].modelBytes = frame.size();
    }
    if (IsSecAggFrame(type))
    {
        // Secure aggregation's own traffic: rounds.csv secagg_bytes, not the model columns.
        m_secagg->CountBytes(frame.size());
    }
    else
    {
        m_host.FrameSent(m_round, client, frame.size(), label);
    }
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
    const size_t combined = m_exchange ? m_exchange->Count() : m_state.rule->Count();
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
    const double doneS =
        m_clock.QueueBarrier(m_clock.CloseSeconds(m_state.codecs.Uplink(), m_task->model->Layout()),
                             m_host.NowSeconds());
    const int64_t ticks = m_clock.TicksUntil(doneS, m_host.NowSeconds());
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
            SendToClient(client,
                         FrameType::CodecState,
                         m_state.codecs.Uplink().Id(),
                         m_phaseMessage);
        }
    }
    if (m_pending.empty())
    {
        CancelDeadline();
        EndRound();
    }
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

} // namespace fedran
