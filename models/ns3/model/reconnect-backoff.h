#ifndef FEDRAN_MODELS_NS3_MODEL_RECONNECT_BACKOFF_H
#define FEDRAN_MODELS_NS3_MODEL_RECONNECT_BACKOFF_H

#include <ns3/nstime.h>
#include <ns3/ptr.h>
#include <ns3/random-variable-stream.h>

#include <cstdint>

namespace ns3
{

/**
 * How long an endpoint waits before it connects again after a failed or lost connection:
 * the k-th consecutive try waits a uniform draw between half and all of
 * min(cap, base x 2^k), so that sites that failed together (an outage of a shared link) do
 * not retry together. A client (FlClientApp) toward its server and an edge aggregator
 * (FlEdgeApp) toward its parent use it alike.
 */
class ReconnectBackoff
{
  public:
    /// The delay before the next try, drawn from `rng`; counts one more consecutive failure.
    Time NextDelay(Time base, Time cap, Ptr<UniformRandomVariable> rng);

    /// A connection was made (or the endpoint restarted): the next failure is the first.
    void Reset()
    {
        m_failures = 0;
    }

  private:
    uint32_t m_failures = 0; ///< consecutive failed or lost connections
};

} // namespace ns3

#endif
