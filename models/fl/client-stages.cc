// ClientSession's answers to the server's stages other than the model and the update:
// pow-d's loss poll and train-start, and secure aggregation's key exchange and unmasking
// (models/fl/secagg/). The session's state and its round are in client-session.cc.

#include "models/fl/client-session.h"
#include "models/fl/loss-poll.h"
#include "models/fl/loss-report.h"

namespace fedran
{

double
ClientSession::PollLoss() const
{
    return ClientLoss(*m_task, m_config.clientId, m_model);
}

double
ClientSession::PollSeconds() const
{
    return fedran::PollSeconds(*m_task, m_config.clientId, m_config.samplesPerSecond);
}

std::vector<uint8_t>
ClientSession::LossReplyFrame(uint32_t round, double loss)
{
    m_unacknowledged.push_back(0); // not an update: no measurement of the uplink
    return EncodeFrame(MakeFrameHeader(FrameType::LossReply,
                                       m_codecs.ModelId(),
                                       round,
                                       m_config.clientId,
                                       m_task->Examples(m_config.clientId)),
                       EncodeLossReply(loss));
}

void
ClientSession::AcceptTrainStart(const Frame& frame)
{
    if (m_modelRound != frame.header.round || m_model.empty())
    {
        throw DecodeError("train-start frame for round " + std::to_string(frame.header.round) +
                              ", but the model held is of round " + std::to_string(m_modelRound),
                          0);
    }
    m_assignedLevel = frame.header.samples; // a level policy's level, as in a model frame
}

std::vector<uint8_t>
ClientSession::AcceptSecAgg(const Frame& frame)
{
    const uint32_t round = frame.header.round;
    FrameType answer = FrameType::SecAggAdvertiseKeys;
    std::vector<uint8_t> payload;
    switch (frame.header.type)
    {
        case FrameType::SecAggSetup:
            payload = m_secagg->Setup(round, frame.payload);
            break;
        case FrameType::SecAggKeys:
            answer = FrameType::SecAggShareKeys;
            payload = m_secagg->Keys(round, frame.payload);
            break;
        case FrameType::SecAggShares:
            m_secagg->Shares(round, frame.payload);
            return {};
        case FrameType::SecAggUnmask:
            answer = FrameType::SecAggUnmaskShares;
            payload = m_secagg->Unmask(round, frame.payload);
            break;
        default:
            throw DecodeError("not a secure aggregation frame from the server", 0);
    }
    m_unacknowledged.push_back(0); // not an update: no measurement of the uplink
    return EncodeFrame(
        MakeFrameHeader(answer, 0, round, m_config.clientId, m_task->Examples(m_config.clientId)),
        payload);
}

std::vector<float>
ClientSession::SecAggInput(uint32_t round, std::vector<float> update, UpdateSentRecord& record)
{
    if (!m_secaggDecoder)
    {
        return update; // none, or random_k, which the protocol gathers from the whole update
    }
    // A dense codec composes through what the server would have decoded: encoded and decoded
    // here, then quantized into the field (its bytes never travel).
    const TensorLayout& layout = m_task->model->Layout();
    std::vector<uint8_t> payload;
    m_codecs.UpdateEncoder().Encode(layout, update, m_codecRng, payload);
    if (m_device.profile)
    {
        record.encodeS =
            m_codecs.UpdateEncoder().EncodeSeconds(*m_device.profile, layout, payload) /
            m_device.speed / double(m_device.cores);
    }
    m_secaggDecoder->BeginRound(round);
    std::vector<float> decoded(update.size());
    m_secaggDecoder->DecodeUpdate(layout, payload, decoded);
    return decoded;
}

} // namespace fedran
