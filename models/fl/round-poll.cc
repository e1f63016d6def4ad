// RoundCoordinator: power_of_choice pow-d's poll (loss-poll.h). The round's model goes to the d
// candidates as LossPoll frames, the same payload a GlobalModel frame of the round carries
// (with downlink_reference client_view each candidate's own delta, so its copy and the
// server's mirror of it stay equal whether or not it is kept); each answers with its loss at
// that model; the m highest of those that answered are the round's clients, and since they
// hold the model already they get a TrainStart frame (a header) instead of a second copy.
// Candidates not kept are idle again at once. The round started when the poll went out (its
// record's start, and the ledger's), and its deadline runs from the TrainStart frames.

#include "models/fl/round-coordinator.h"

#include <cmath>

namespace fedran
{

void
RoundCoordinator::StartPoll(std::vector<uint32_t> candidates)
{
    m_poll.Begin(m_round, candidates);
    Codec& modelEncoder = m_state.codecs.ModelEncoder();
    modelEncoder.BeginRound(m_round);
    std::vector<uint8_t> shared;
    if (!m_task->downlinkClientView)
    {
        modelEncoder.Encode(m_task->model->Layout(), m_state.global, m_state.codecRng, shared);
    }
    for (uint32_t client : candidates)
    {
        SendToClient(client,
                     FrameType::LossPoll,
                     modelEncoder.Id(),
                     ModelPayload(client, shared),
                     0,
                     std::string(modelEncoder.Name()));
    }
    if (m_poll.Complete())
    {
        ClosePoll(); // nobody to poll: the round goes on without clients, as any empty one
        return;
    }
    m_pollTimerArmed = true;
    m_host.ArmTimer(
        CoordinatorTimer::PollTimeout,
        static_cast<int64_t>(std::llround(m_selection->PollTimeoutS() * m_config.ticksPerSecond)));
}

void
RoundCoordinator::HandleLossReply(const Frame& frame)
{
    double loss = 0.0;
    try
    {
        loss = DecodeLossReply(frame.payload);
    }
    catch (const DecodeError&)
    {
        // A malformed answer is no answer: the candidate is simply not kept.
        m_poll.Lost(frame.header.client);
        if (m_poll.Active() && m_poll.Complete())
        {
            ClosePoll();
        }
        return;
    }
    // An answer after the poll closed (or to an older one) is late and changes nothing.
    if (m_poll.Answer(frame.header.client, frame.header.round, loss) && m_poll.Complete())
    {
        ClosePoll();
    }
}

void
RoundCoordinator::ClosePoll()
{
    if (!m_poll.Active())
    {
        return;
    }
    if (m_pollTimerArmed)
    {
        m_pollTimerArmed = false;
        m_host.CancelTimer(CoordinatorTimer::PollTimeout);
    }
    std::map<uint32_t, double> losses = m_poll.End();
    for (auto it = losses.begin(); it != losses.end();)
    {
        // A candidate that answered and was lost since cannot train: it is not kept.
        it = m_joined.count(it->first) ? std::next(it) : losses.erase(it);
    }
    m_roundPolled = true;
    LaunchRound(AdoptSelection(
        m_selection->KeepPolled(losses,
                                WantedClients(m_config.overSelect, m_config.clientsPerRound))));
}

} // namespace fedran
