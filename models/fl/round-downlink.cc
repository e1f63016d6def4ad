// RoundCoordinator: the model frames of a round. A fixed downlink codec encodes the model once
// for everyone (or, downlink_reference client_view, each client's difference to its copy); an
// adaptive one (downlink-rungs.h) first sizes every rung's frame for every selected client,
// chooses each client's rung from its predicted download time, and sends that rung.

#include "compression/adaptive-ladder.h"
#include "models/fl/round-coordinator.h"

namespace fedran
{

namespace
{

/// clients.csv downlink_codec of an adaptive frame: the rung's codec and its index, e.g.
/// "quantization[2]" (a ladder may hold one codec type at several settings).
std::string
DownlinkRungLabel(const AdaptiveLadder& ladder, size_t rung)
{
    return ladder.RungName(rung) + "[" + std::to_string(rung) + "]";
}

} // namespace

void
RoundCoordinator::EncodeModels(std::vector<std::vector<uint8_t>>& payloads,
                               std::vector<size_t>& which,
                               std::vector<std::string>& labels)
{
    const TensorLayout& layout = m_task->model->Layout();
    Codec& modelEncoder = m_state.codecs.ModelEncoder();
    // Round-scheduled codecs (a sparsity warm-up) encode, and mirror-decode, this round's size.
    modelEncoder.BeginRound(m_round);
    const size_t n = m_selected.size();
    payloads.clear();
    which.assign(n, 0);
    labels.assign(n, std::string(modelEncoder.Name()));
    AdaptiveLadder* ladder = m_downlinkRungs ? modelEncoder.Ladder() : nullptr;
    if (ladder == nullptr)
    {
        if (!m_task->downlinkClientView)
        {
            payloads.emplace_back();
            modelEncoder.Encode(layout, m_state.global, m_state.codecRng, payloads.back());
            return;
        }
        for (size_t i = 0; i < n; ++i)
        {
            which[i] = i;
            payloads.push_back(m_views.Encode(m_selected[i],
                                              m_round,
                                              m_state.global,
                                              m_state.codecRng,
                                              m_state.scratch));
        }
        return;
    }

    // Every rung's frame size for every selected client, exact: what it would be sent.
    std::vector<std::vector<uint64_t>> frameBytes(n);
    if (!m_task->downlinkClientView)
    {
        // One model for all: each rung encoded once (rungs keep no state with this reference,
        // which the scenario checks), in rung order from the server's codec stream.
        for (size_t r = 0; r < ladder->RungCount(); ++r)
        {
            payloads.emplace_back();
            ladder->SelectRung(r);
            modelEncoder.Encode(layout, m_state.global, m_state.codecRng, payloads.back());
        }
        std::vector<uint64_t> sizes;
        for (const std::vector<uint8_t>& payload : payloads)
        {
            sizes.push_back(kFrameHeaderSize + payload.size());
        }
        frameBytes.assign(n, sizes);
    }
    else
    {
        for (size_t i = 0; i < n; ++i)
        {
            frameBytes[i] = m_views.RungSizes(m_selected[i],
                                              m_round,
                                              m_state.global,
                                              m_state.codecRng,
                                              m_state.scratch);
            for (uint64_t& bytes : frameBytes[i])
            {
                bytes += kFrameHeaderSize;
            }
        }
    }
    const std::vector<size_t> rungs = m_downlinkRungs->Choose(m_selected, frameBytes);
    for (size_t i = 0; i < n; ++i)
    {
        labels[i] = DownlinkRungLabel(*ladder, rungs[i]);
        if (!m_task->downlinkClientView)
        {
            which[i] = rungs[i];
            continue;
        }
        // Sent from the client's own ladder: the chosen rung's state (an error-feedback
        // residual) moves on, and the mirror follows what the client will decode.
        which[i] = i;
        payloads.push_back(m_views.EncodeRung(m_selected[i],
                                              m_round,
                                              rungs[i],
                                              m_state.global,
                                              m_state.codecRng,
                                              m_state.scratch));
    }
}

std::span<const uint8_t>
RoundCoordinator::TakeDownlinkReport(const Frame& frame)
{
    if (!m_downlinkRungs)
    {
        return frame.payload;
    }
    double seconds = 0.0;
    const std::span<const uint8_t> rest = control::TakeDownloadReport(frame.payload, seconds);
    // A late update's report measures its download as well as a timely one's.
    m_downlinkRungs->DownloadReported(frame.header.client, frame.header.round, seconds);
    return rest;
}

} // namespace fedran
