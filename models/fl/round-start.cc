// RoundCoordinator: a round's start. The selection policy picks the round's clients from the
// idle ones (or pow-d's candidates to poll, or secure aggregation's first stage), the ledger
// and the DP accountant note them, and each gets what the round needs before it trains: a
// two-exchange codec's state, its level or clipping bound, and the model frame (or, after a
// poll, the word to train). round-coordinator.cc has joins, deadlines and phases.

#include "models/fl/collusion-oracle.h"
#include "models/fl/round-coordinator.h"

#include <algorithm>
#include <cmath>

namespace fedran
{

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

} // namespace fedran
