#include "models/ns3/model/client-round-work.h"

#include <ns3/simulator.h>

#include <algorithm>

namespace ns3
{

ClientRoundWork::ClientRoundWork(fedran::ClientSession& session,
                                 std::function<void(const fedran::UpdateSentRecord&)> sent,
                                 std::function<void(std::vector<uint8_t>)> send)
    : m_session(session)
    , m_sent(std::move(sent))
    , m_send(std::move(send))
{
}

void
ClientRoundWork::SetPool(std::shared_ptr<ThreadPool> pool)
{
    m_pool = std::move(pool);
}

void
ClientRoundWork::Train(uint32_t round, double computeS)
{
    fedran::ClientSession* session = &m_session;
    auto train = [session, round]() {
        return session->TrainAndEncode(round);
    };
    m_pending = m_pool ? m_pool->Submit(train) : std::async(std::launch::deferred, train);
    // Layerwise pipelining needs the encoded buckets when the first is ready, before the end.
    m_trainStart = Simulator::Now();
    m_sendEvent = Simulator::Schedule(Seconds(m_session.FirstPartReadyS()),
                                      &ClientRoundWork::TrainingDone,
                                      this,
                                      computeS);
}

void
ClientRoundWork::Reply(fedran::EncodedUpdate reply)
{
    // The codec's second client step takes its simulated time before the reply goes.
    m_encoded = std::move(reply);
    const double replyS = m_encoded->record.encodeS;
    if (replyS > 0.0)
    {
        m_sendEvent = Simulator::Schedule(Seconds(replyS), &ClientRoundWork::SendEncoded, this);
        return;
    }
    SendEncoded();
}

void
ClientRoundWork::Cancel()
{
    m_sendEvent.Cancel();
    CancelParts();
    m_encoded.reset();
    WaitForTraining();
    m_pending = {};
}

void
ClientRoundWork::WaitForTraining()
{
    // A job still running uses the session: it must finish before the client goes away.
    if (m_pending.valid())
    {
        m_pending.wait();
    }
}

void
ClientRoundWork::TrainingDone(double computeS)
{
    m_encoded = m_pending.get();
    m_encoded->record.computeS = computeS;
    if (!m_encoded->parts.empty())
    {
        // Each bucket goes as its own frame once its encoding is done.
        for (size_t k = 0; k < m_encoded->parts.size(); ++k)
        {
            const Time at = m_trainStart + Seconds(m_encoded->parts[k].sendAtS);
            m_partEvents.push_back(Simulator::Schedule(std::max(at - Simulator::Now(), Seconds(0)),
                                                       &ClientRoundWork::SendPart,
                                                       this,
                                                       k));
        }
        return;
    }
    // Encoding follows training on the simulated clock (its cost model, not its wall time).
    const double encodeS = m_encoded->record.encodeS;
    if (encodeS > 0.0)
    {
        m_sendEvent = Simulator::Schedule(Seconds(encodeS), &ClientRoundWork::SendEncoded, this);
        return;
    }
    SendEncoded();
}

void
ClientRoundWork::SendPart(size_t k)
{
    if (k == 0)
    {
        m_session.UpdateSent(m_encoded->record); // upload_start_s: the first bucket's send
        m_sent(m_encoded->record);
    }
    else
    {
        m_session.PartSent();
    }
    m_send(std::move(m_encoded->parts[k].frame));
    if (k + 1 == m_encoded->parts.size())
    {
        m_encoded.reset();
        m_partEvents.clear();
    }
}

void
ClientRoundWork::CancelParts()
{
    for (EventId& event : m_partEvents)
    {
        event.Cancel();
    }
    m_partEvents.clear();
}

void
ClientRoundWork::SendEncoded()
{
    fedran::EncodedUpdate encoded = std::move(*m_encoded);
    m_encoded.reset();
    if (!encoded.record.reply)
    {
        m_session.UpdateSent(encoded.record);
    }
    m_sent(encoded.record);
    m_send(std::move(encoded.frame));
}

} // namespace ns3
