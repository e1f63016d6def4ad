// FlClientApp: what it does with each frame from the server (the model, a codec's state, a
// loss poll, the word to train, secure aggregation's stages), the training it starts on the
// simulated clock, and what the transport reports of its uploads. fl-client-app.cc has the
// application's attributes, connections and availability.

#include "models/ns3/model/fl-client-app.h"

#include <ns3/simulator.h>

namespace ns3
{

void
FlClientApp::HandleFrame(Ptr<MessageChannel> channel,
                         const fedran::Frame& frame,
                         const FrameReceipt& receipt)
{
    if (frame.corrupt)
    {
        HandleChannelError(channel, "a damaged frame from the server (CRC mismatch)");
        return;
    }
    switch (m_session->Classify(frame))
    {
        case fedran::ServerFrameKind::Model:
            HandleGlobalModel(channel, frame, receipt);
            break;
        case fedran::ServerFrameKind::CodecState:
            HandleCodecState(channel, frame);
            break;
        case fedran::ServerFrameKind::LossPoll:
            HandleLossPoll(channel, frame, receipt);
            break;
        case fedran::ServerFrameKind::TrainStart:
            HandleTrainStart(channel, frame, receipt);
            break;
        case fedran::ServerFrameKind::SecAgg:
            HandleSecAgg(channel, frame);
            break;
        case fedran::ServerFrameKind::Unexpected:
            HandleChannelError(channel, "unexpected frame from the server");
            break;
    }
}

void
FlClientApp::HandleCodecState(Ptr<MessageChannel> channel, const fedran::Frame& frame)
{
    try
    {
        if (auto reply = m_session->AcceptCodecState(frame))
        {
            m_work->Reply(std::move(*reply));
        }
    }
    catch (const fedran::DecodeError& e)
    {
        HandleChannelError(channel, std::string("cannot use the codec's message: ") + e.what());
    }
}

void
FlClientApp::HandleSecAgg(Ptr<MessageChannel> channel, const fedran::Frame& frame)
{
    // Secure aggregation's key and unmask stages: answered at once (the key generation and
    // share computation are not charged to the site's compute clock).
    try
    {
        std::vector<uint8_t> reply = m_session->AcceptSecAgg(frame);
        if (!reply.empty())
        {
            m_channel->Send(std::move(reply));
        }
    }
    catch (const fedran::DecodeError& e)
    {
        HandleChannelError(channel, std::string("secure aggregation: ") + e.what());
    }
}

void
FlClientApp::HandleGlobalModel(Ptr<MessageChannel> channel,
                               const fedran::Frame& frame,
                               const FrameReceipt& receipt)
{
    try
    {
        m_session->AcceptModel(frame);
    }
    catch (const fedran::DecodeError& e)
    {
        HandleChannelError(channel, std::string("cannot decode the global model: ") + e.what());
        return;
    }
    m_modelReceivedTrace(frame.header.round,
                         m_clientId,
                         fedran::kFrameHeaderSize + frame.payload.size());
    TrainAndSchedule(frame.header.round,
                     fedran::kFrameHeaderSize + frame.payload.size(),
                     receipt.lastByte - receipt.firstByte,
                     receipt.firstByte);
}

void
FlClientApp::HandleLossPoll(Ptr<MessageChannel> channel,
                            const fedran::Frame& frame,
                            const FrameReceipt& receipt)
{
    try
    {
        m_session->AcceptModel(frame);
    }
    catch (const fedran::DecodeError& e)
    {
        HandleChannelError(channel, std::string("cannot decode the polled model: ") + e.what());
        return;
    }
    // The model a kept client trains from arrives here: its download is this frame's.
    m_polledBytes = fedran::kFrameHeaderSize + frame.payload.size();
    m_polledDownload = receipt.lastByte - receipt.firstByte;
    m_modelReceivedTrace(frame.header.round, m_clientId, m_polledBytes);
    // The loss does not depend on when it is sent, so it is evaluated now (on the simulation
    // thread: nothing else uses the session between rounds) and sent when its time is over.
    const double loss = m_session->PollLoss();
    m_pollEvent.Cancel();
    m_pollEvent = Simulator::Schedule(Seconds(m_session->PollSeconds()),
                                      &FlClientApp::SendLossReply,
                                      this,
                                      frame.header.round,
                                      loss);
}

void
FlClientApp::SendLossReply(uint32_t round, double loss)
{
    if (!m_channel)
    {
        return;
    }
    std::vector<uint8_t> reply = m_session->LossReplyFrame(round, loss);
    m_lossRepliedTrace(round, m_clientId, reply.size());
    m_channel->Send(std::move(reply));
}

void
FlClientApp::HandleTrainStart(Ptr<MessageChannel> channel,
                              const fedran::Frame& frame,
                              const FrameReceipt& receipt)
{
    try
    {
        m_session->AcceptTrainStart(frame);
    }
    catch (const fedran::DecodeError& e)
    {
        HandleChannelError(channel, e.what());
        return;
    }
    TrainAndSchedule(frame.header.round, m_polledBytes, m_polledDownload, receipt.firstByte);
}

void
FlClientApp::TrainAndSchedule(uint32_t round, uint64_t modelFrameBytes, Time download, Time start)
{
    // The simulated compute time does not depend on the training's outcome, so the training
    // itself can run on another thread until that time is over.
    const double computeS = m_session->ComputeSeconds();
    const double dropAt = m_availability ? m_availability->DrawDropout() : -1.0;
    if (dropAt >= 0.0)
    {
        // Its training would be thrown away: it is not run at all.
        m_dropEvent = Simulator::Schedule(Seconds(dropAt * computeS), &FlClientApp::DropOut, this);
        return;
    }
    if (const std::optional<double> crashAt = m_session->DrawCrash())
    {
        // As with a dropout, the training that the crash loses is not run.
        m_dropEvent =
            Simulator::Schedule(Seconds(*crashAt * computeS), &FlClientApp::CrashOut, this, round);
        return;
    }
    if (m_session->IsAdaptive() || m_session->ReportsDownload())
    {
        // The model's download as seen here: its first byte to its last.
        m_session->PrepareRound(round,
                                modelFrameBytes,
                                download.GetSeconds(),
                                computeS,
                                start.GetSeconds());
    }
    m_work->Train(round, computeS);
}

void
FlClientApp::HandleDelivered(Ptr<MessageChannel>, const TransferRecord& transfer)
{
    fedran::Delivery delivery;
    delivery.bytes = transfer.bytes;
    delivery.durationS = (transfer.acknowledged - transfer.handedOver).GetSeconds();
    delivery.rttS = transfer.rtt.GetSeconds();
    delivery.acknowledgedS = transfer.acknowledged.GetSeconds();
    if (auto measured = m_session->Delivered(delivery))
    {
        m_uploadMeasuredTrace(*measured);
    }
}

} // namespace ns3
