#include "models/ns3/helper/fl-edge-helper.h"

#include <ns3/pointer.h>
#include <ns3/uinteger.h>

namespace ns3
{

FlEdgeHelper::FlEdgeHelper(std::shared_ptr<const fedran::FederatedTask> task,
                           Ptr<MessageTransport> transport,
                           uint16_t port)
    : m_task(std::move(task))
    , m_transport(transport)
    , m_port(port)
{
}

Ptr<FlEdgeApp>
FlEdgeHelper::Install(Ptr<Node> node,
                      const Address& parent,
                      Time joinTimeout,
                      const fedran::EdgeAggregatorConfig& config) const
{
    Ptr<FlEdgeApp> app = CreateObject<FlEdgeApp>();
    app->SetAttribute("Port", UintegerValue(m_port));
    app->SetAttribute("Parent", AddressValue(parent));
    app->SetAttribute("JoinTimeout", TimeValue(joinTimeout));
    app->SetAttribute("Transport", PointerValue(m_transport));
    app->SetAggregator(m_task, config);
    node->AddApplication(app);
    app->SetStartTime(Seconds(0));
    return app;
}

} // namespace ns3
