#include "models/fl/loss-poll.h"

#include "compression/codec.h"
#include "models/fl/loss-report.h"

#include <cmath>

namespace fedran
{

std::vector<uint8_t>
EncodeLossReply(double loss)
{
    std::vector<uint8_t> payload;
    AppendLossReport(payload, loss); // the same float32 a loss report appends to an update
    return payload;
}

double
DecodeLossReply(std::span<const uint8_t> payload)
{
    if (payload.size() != kLossReplyPayloadBytes)
    {
        throw DecodeError("loss reply: " + std::to_string(payload.size()) + " bytes, not " +
                              std::to_string(kLossReplyPayloadBytes),
                          payload.size());
    }
    double loss = 0.0;
    TakeLossReport(payload, loss);
    if (!std::isfinite(loss))
    {
        throw DecodeError("loss reply: not a finite loss", 0);
    }
    return loss;
}

double
PollSeconds(const FederatedTask& task, uint32_t client, double samplesPerSecond)
{
    return kPollPassFactor * double(LossReportExamples(task, client)) / samplesPerSecond;
}

void
LossPoll::Begin(uint32_t round, const std::vector<uint32_t>& candidates)
{
    m_active = true;
    m_round = round;
    m_candidates = candidates;
    m_waiting = std::set<uint32_t>(candidates.begin(), candidates.end());
    m_losses.clear();
}

bool
LossPoll::Answer(uint32_t client, uint32_t round, double loss)
{
    if (!m_active || round != m_round || m_waiting.erase(client) == 0)
    {
        return false;
    }
    m_losses[client] = loss;
    return true;
}

void
LossPoll::Lost(uint32_t client)
{
    if (m_active)
    {
        m_waiting.erase(client);
    }
}

std::map<uint32_t, double>
LossPoll::End()
{
    m_active = false;
    m_waiting.clear();
    return std::move(m_losses);
}

} // namespace fedran
