// RoundCoordinator: joins, leaves, timers, the round's deadline and a two-exchange codec's
// phases; round-start.cc selects a round's clients and sends their frames, round-arrivals.cc
// handles the frames clients send, round-close.cc what becomes of a round that has ended.

#include "models/fl/round-coordinator.h"

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
