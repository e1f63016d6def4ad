#ifndef FEDRAN_MODELS_NS3_MODEL_CLIENT_ROUND_WORK_H
#define FEDRAN_MODELS_NS3_MODEL_CLIENT_ROUND_WORK_H

#include "models/fl/client-session.h"
#include "models/fl/trace-records.h"
#include "models/ns3/model/thread-pool.h"

#include <ns3/event-id.h>
#include <ns3/nstime.h>

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <vector>

namespace ns3
{

/**
 * A client's work on a round on the simulated clock, between the model's arrival and the
 * update's send (FlClientApp runs it). The session trains on the client's own slice of the
 * data for real and encodes the update, on a worker thread while the simulated compute time
 * passes; then the encoding time passes (the codec's cost model, not its wall time) and the
 * frame goes, or, layerwise, each bucket goes once its own encoding is done. A two-exchange
 * codec's reply waits only its encoding time.
 */
class ClientRoundWork
{
  public:
    /// `sent` reports an update or reply handed to the network (the UpdateSent trace);
    /// `send` puts a frame on the client's channel.
    ClientRoundWork(fedran::ClientSession& session,
                    std::function<void(const fedran::UpdateSentRecord&)> sent,
                    std::function<void(std::vector<uint8_t>)> send);

    /// Where training runs; without a pool it runs on the simulation thread.
    void SetPool(std::shared_ptr<ThreadPool> pool);

    /// Trains and encodes `round`'s update, taking `computeS` of simulated time, then sends it.
    void Train(uint32_t round, double computeS);
    /// Sends a two-exchange codec's reply once its encoding time has passed.
    void Reply(fedran::EncodedUpdate reply);
    /// Abandons the round: nothing more is sent, and a training still running is waited for.
    void Cancel();
    /// Waits for a training still running (it uses the session).
    void WaitForTraining();

  private:
    /// The compute time is over: takes the training's result and waits its encoding time.
    void TrainingDone(double computeS);
    /// Hands m_encoded (an update or a reply) to the network.
    void SendEncoded();
    /// Layerwise: hands bucket k of m_encoded to the network.
    void SendPart(size_t k);
    void CancelParts();

    fedran::ClientSession& m_session;
    std::function<void(const fedran::UpdateSentRecord&)> m_sent;
    std::function<void(std::vector<uint8_t>)> m_send;
    std::shared_ptr<ThreadPool> m_pool;
    std::future<fedran::EncodedUpdate> m_pending;   ///< the training of the current round
    std::optional<fedran::EncodedUpdate> m_encoded; ///< encoded, waiting for its encode time
    Time m_trainStart;                              ///< when the current training started
    EventId m_sendEvent;
    std::vector<EventId> m_partEvents; ///< layerwise: the buckets' sends
};

} // namespace ns3

#endif
