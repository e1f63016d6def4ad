// RoundCoordinator: privacy.secure_aggregation's stages (models/fl/secagg/secagg-round.h).
// The round's cohort gets a Setup frame; their public keys, the neighbours' keys, their
// encrypted shares and the relay go back and forth, each stage closing once every client
// still in has answered or timeout_s has passed; the model then goes to those that shared
// keys and the round's deadline starts; their update frames carry masked vectors; once those
// are in (or the deadline passed) the server asks the survivors for the shares that unmask
// the sum, and the round ends with the unmasked mean, or without an update if a stage ended
// below the threshold.

#include "models/fl/round-coordinator.h"

#include <cmath>

namespace fedran
{

void
RoundCoordinator::StartSecAgg(std::vector<uint32_t> cohort)
{
    m_secaggCohort = cohort;
    m_selected = cohort;
    m_pending = std::set<uint32_t>(cohort.begin(), cohort.end());
    m_added.clear();
    m_host.RoundStarted(m_round, cohort);
    const std::vector<uint8_t> setup = m_secagg->Begin(m_round, cohort, m_host.NowSeconds());
    for (uint32_t client : cohort)
    {
        SendToClient(client, FrameType::SecAggSetup, 0, setup);
    }
    // Even with nobody to wait for, the stage takes its timeout (and then fails below the
    // threshold), as an empty round without secure aggregation takes its deadline.
    ArmSecAggTimer();
}

std::optional<std::string>
RoundCoordinator::HandleSecAggFrame(const Frame& frame)
{
    if (!m_secagg)
    {
        return "a secure aggregation frame, but privacy.secure_aggregation is off";
    }
    if (frame.header.round != m_round)
    {
        return std::nullopt; // an answer to a stage of an earlier round: late
    }
    const secagg::Stage stage = m_secagg->Current();
    const bool expected =
        (stage == secagg::Stage::Advertise &&
         frame.header.type == FrameType::SecAggAdvertiseKeys) ||
        (stage == secagg::Stage::Share && frame.header.type == FrameType::SecAggShareKeys) ||
        (stage == secagg::Stage::Unmask && frame.header.type == FrameType::SecAggUnmaskShares);
    m_secagg->CountBytes(kFrameHeaderSize + frame.payload.size());
    if (!expected)
    {
        return std::nullopt; // after its stage closed: late
    }
    try
    {
        m_secagg->Server().Accept(frame.header.client, frame.payload);
    }
    catch (const DecodeError& e)
    {
        // A malformed protocol message: the client is dropped (the host closes its channel).
        return std::string("a malformed secure aggregation frame: ") + e.what();
    }
    if (m_secagg->Server().Complete())
    {
        CloseSecAggStage();
    }
    return std::nullopt;
}

void
RoundCoordinator::HandleMaskedInput(const Frame& frame, UpdateArrivalRecord& record)
{
    const uint32_t client = frame.header.client;
    try
    {
        CheckUplinkFrame(frame);
        if (m_secagg->Current() != secagg::Stage::Masked ||
            !m_secagg->Server().Accept(client, frame.payload))
        {
            throw DecodeError("a masked input the aggregation does not wait for", 0);
        }
        record.fate = UpdateFate::Accepted;
        // Unpacking is all the server does with it now; the unmasking is charged to no core.
        record.decodeS = 0.0;
        record.foldedS = m_host.NowSeconds();
        m_added.push_back(client);
    }
    catch (const DecodeError& e)
    {
        record.fate = UpdateFate::Failed;
        record.reason = e.what();
    }
    NoteArrival(frame, frame.payload, std::nan(""), record.fate == UpdateFate::Accepted);
    m_host.UpdateArrived(record);
    SettleClient(client);
}

void
RoundCoordinator::CloseSecAggStage()
{
    CancelSecAggTimer();
    const secagg::Stage stage = m_secagg->Current();
    std::map<uint32_t, std::vector<uint8_t>> messages = m_secagg->Close(m_host.NowSeconds());
    if (m_secagg->Server().Failed())
    {
        if (stage == secagg::Stage::Advertise || stage == secagg::Stage::Share)
        {
            // No model went out: nobody is late, the cohort is idle again.
            m_pending.clear();
        }
        EndRound();
        return;
    }
    switch (stage)
    {
        case secagg::Stage::Advertise:
            for (auto& [client, payload] : messages)
            {
                SendToClient(client, FrameType::SecAggKeys, 0, payload);
            }
            ArmSecAggTimer();
            return;
        case secagg::Stage::Share: {
            // The relay, then the model, to each client that shared its keys; the others
            // missed the stage and are out of the round.
            std::vector<uint32_t> shared;
            for (auto& [client, payload] : messages)
            {
                SendToClient(client, FrameType::SecAggShares, 0, payload);
                shared.push_back(client);
            }
            LaunchRound(std::move(shared));
            return;
        }
        case secagg::Stage::Masked:
            for (auto& [client, payload] : messages)
            {
                SendToClient(client, FrameType::SecAggUnmask, 0, payload);
            }
            ArmSecAggTimer();
            return;
        case secagg::Stage::Unmask:
            EndRound(); // Done: the round combines the unmasked mean
            return;
        default:
            return;
    }
}

void
RoundCoordinator::ArmSecAggTimer()
{
    m_secaggTimerArmed = true;
    m_host.ArmTimer(
        CoordinatorTimer::SecAggStage,
        static_cast<int64_t>(std::llround(m_secagg->TimeoutS() * m_config.ticksPerSecond)));
}

void
RoundCoordinator::CancelSecAggTimer()
{
    if (m_secaggTimerArmed)
    {
        m_secaggTimerArmed = false;
        m_host.CancelTimer(CoordinatorTimer::SecAggStage);
    }
}

} // namespace fedran
