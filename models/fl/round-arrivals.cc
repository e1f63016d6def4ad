// RoundCoordinator: what becomes of each frame a client sends, i.e. an update, a bucket of one
// (layerwise pipelining), a two-exchange codec's reply or a damaged frame. Each is checked,
// decoded into the round's rule or discarded as late, and charged to the server's cores;
// round-coordinator.cc runs the rounds themselves, round-close.cc closes them.

#include "models/fl/adaptive-clip.h"
#include "models/fl/loss-report.h"
#include "models/fl/round-coordinator.h"

#include <algorithm>
#include <cmath>

namespace fedran
{

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
        case FrameType::SecAggAdvertiseKeys:
        case FrameType::SecAggShareKeys:
        case FrameType::SecAggUnmaskShares:
            return HandleSecAggFrame(frame);
        case FrameType::LossReply:
            if (!m_task->selection.Traits().polls || m_config.episodic)
            {
                return "a loss reply, but server.selection does not poll";
            }
            HandleLossReply(frame);
            return std::nullopt;
        default:
            return "unexpected frame type from a client";
    }
}

void
RoundCoordinator::HandleUpdate(const Frame& frame)
{
    const uint32_t client = frame.header.client;
    UpdateArrivalRecord record = ArrivalOf(frame);
    if (frame.header.round != m_round || !m_pending.count(client))
    {
        try
        {
            NoteArrival(frame, TakeDownlinkReport(frame), std::nan(""), false);
        }
        catch (const DecodeError&)
        {
            NoteArrival(frame, {}, std::nan(""), false); // too short for its reports
        }
        DiscardLate(record);
        return;
    }
    if (m_secagg)
    {
        HandleMaskedInput(frame, record);
        return;
    }

    // An adaptive downlink's download report ends the payload (downlink-rungs.h); a level
    // policy's, or a selection policy's, loss report comes before it (loss-report.h), after
    // adaptive clipping's clipped-count byte (adaptive-clip.h).
    std::span<const uint8_t> payload = frame.payload;
    // Where a loss report would be if decoding fails (none is read past a download report).
    std::span<const uint8_t> reports =
        m_downlinkRungs ? std::span<const uint8_t>() : std::span<const uint8_t>(frame.payload);
    double loss = std::nan("");
    try
    {
        CheckUplinkFrame(frame);
        payload = TakeDownlinkReport(frame);
        reports = payload;
        if (m_levels || m_selectionLoss)
        {
            payload = TakeLossReport(payload, loss);
        }
        bool unclipped = false;
        if (m_state.clip)
        {
            payload = TakeClipReport(payload, unclipped);
        }
        if (m_exchange)
        {
            m_exchange->AddFirst(payload, frame.header.samples);
        }
        else
        {
            const size_t added = m_added.size();
            AddUpdate(client, frame.header.samples, payload, record);
            if (m_state.clip && m_added.size() > added)
            {
                // The bits of the updates in the sum, as TFF's clipped count.
                m_state.clip->Report(unclipped);
            }
        }
        record.fate = UpdateFate::Accepted;
        // Decoding and folding in take the server's time, in arrival order on its cores.
        record.decodeS = m_clock.DecodeSeconds(m_state.codecs.Uplink(),
                                               m_task->model->Layout(),
                                               payload,
                                               !m_exchange);
        record.foldedS = m_clock.Queue(record.decodeS, m_host.NowSeconds());
        if (m_levels)
        {
            m_levels->LossReported(frame.header.samples, loss);
            m_levels->UpdateArrived(client, record.frameBytes, m_host.NowSeconds());
        }
    }
    catch (const DecodeError& e)
    {
        record.fate = UpdateFate::Failed;
        record.reason = e.what();
    }
    NoteArrival(frame, reports, loss, record.fate == UpdateFate::Accepted);
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
RoundCoordinator::AddUpdate(uint32_t client,
                            uint32_t samples,
                            std::span<const uint8_t> payload,
                            UpdateArrivalRecord& record)
{
    switch (m_state.codecs.UpdateDecoder(client, m_round)
                .DecodeUpdate(m_task->model->Layout(), payload, m_state.scratch))
    {
        case Arrival::Update:
            m_state.rule->Add(m_state.scratch, samples);
            m_added.push_back(client);
            break;
        case Arrival::SkipReuse:
            // A lazy update whose codec says to reuse the client's last update.
            record.skipped = true;
            m_state.rule->Add(m_state.scratch, samples);
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
        record.decodeS = m_clock.DecodeSeconds(m_state.codecs.Uplink(),
                                               m_task->model->Layout(),
                                               frame.payload,
                                               false);
        record.foldedS = m_clock.Queue(record.decodeS, m_host.NowSeconds());
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
    UpdateArrivalRecord record = ArrivalOf(frame);
    if (frame.header.round != m_round || !m_pending.count(client))
    {
        // A bucket of an update whose round has ended: the last bucket is its late arrival.
        if (!m_buckets.BeforeLast(frame.payload))
        {
            DiscardLate(record);
        }
        return;
    }
    try
    {
        CheckUplinkFrame(frame);
        // Each bucket is decoded as it arrives, on the server's cores like a whole update.
        const BucketAssembler::Arrival bucket =
            m_buckets.Add(client, m_round, frame.payload, m_clock);
        m_clock.Queue(bucket.decodeS, m_host.NowSeconds());
        if (!bucket.complete)
        {
            return; // more buckets to come
        }
        // The whole update: folded in once, exactly as without pipelining.
        m_state.rule->Add(m_buckets.Values(client), frame.header.samples);
        m_added.push_back(client);
        const double foldS = m_clock.FoldSeconds(m_state.global.size());
        record.decodeS = m_buckets.DecodeSeconds(client) + foldS;
        record.foldedS = m_clock.Queue(foldS, m_host.NowSeconds());
        record.frameBytes = m_buckets.FrameBytes(client);
        record.fate = UpdateFate::Accepted;
    }
    catch (const DecodeError& e)
    {
        record.fate = UpdateFate::Failed;
        record.reason = e.what();
    }
    m_buckets.Forget(client);
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
    CheckUpdateFrame(frame, m_state.codecs.UplinkId(frame.header.client));
}

void
RoundCoordinator::NoteArrival(const Frame& frame,
                              std::span<const uint8_t> reports,
                              double loss,
                              bool accepted)
{
    if (m_selectionLoss && std::isnan(loss) && reports.size() >= 4)
    {
        // A late update's report: its loss is as recent as the ledger will get.
        TakeLossReport(reports, loss);
    }
    LedgerArrived(m_ledger,
                  frame.header.client,
                  frame.header.round,
                  m_host.NowSeconds(),
                  frame.firstByteS,
                  kFrameHeaderSize + frame.payload.size(),
                  loss,
                  accepted);
}

} // namespace fedran
