#ifndef FEDRAN_MODELS_NS3_HELPER_FL_EDGE_HELPER_H
#define FEDRAN_MODELS_NS3_HELPER_FL_EDGE_HELPER_H

#include "models/fl/edge-aggregator.h"
#include "models/fl/federated-task.h"
#include "models/ns3/model/fl-edge-app.h"
#include "models/ns3/model/message-transport.h"

#include <ns3/address.h>
#include <ns3/node.h>
#include <ns3/nstime.h>
#include <ns3/ptr.h>

#include <cstdint>
#include <memory>

namespace ns3
{

/**
 * Installs edge aggregators (ns3::FlEdgeApp) of hierarchical FL on hub nodes: each listens
 * for its children on `port`, joins its parent (the server or another aggregator) and
 * aggregates as its EdgeAggregatorConfig says.
 *
 *     FlEdgeHelper edges(task, transport, 7000);
 *     Ptr<FlEdgeApp> hub = edges.Install(hubNode, InetSocketAddress(serverIp, 7000),
 *                                        Seconds(30), aggregatorConfig);
 *     stream += hub->AssignStreams(stream);
 */
class FlEdgeHelper
{
  public:
    FlEdgeHelper(std::shared_ptr<const fedran::FederatedTask> task,
                 Ptr<MessageTransport> transport,
                 uint16_t port);

    /// One aggregator on `node`, its parent at `parent`, giving up waiting for its children
    /// to join after `joinTimeout`; started at time 0.
    Ptr<FlEdgeApp> Install(Ptr<Node> node,
                           const Address& parent,
                           Time joinTimeout,
                           const fedran::EdgeAggregatorConfig& config) const;

  private:
    std::shared_ptr<const fedran::FederatedTask> m_task;
    Ptr<MessageTransport> m_transport;
    uint16_t m_port;
};

} // namespace ns3

#endif
