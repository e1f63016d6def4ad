#include "models/ns3/helper/fl-server-helper.h"

#include "models/ns3/model/fl-server-app.h"

#include <ns3/abort.h>
#include <ns3/names.h>
#include <ns3/pointer.h>

namespace ns3
{

FlServerHelper::FlServerHelper(std::shared_ptr<const fedran::FederatedTask> task,
                               Ptr<MessageTransport> transport)
    : m_task(std::move(task))
    , m_transport(transport)
{
    NS_ABORT_MSG_IF(!m_task, "FlServerHelper: no task");
    NS_ABORT_MSG_IF(!m_transport, "FlServerHelper: no transport");
    m_factory.SetTypeId(FlServerApp::GetTypeId());
    m_factory.Set("Transport", PointerValue(m_transport));
}

void
FlServerHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

ApplicationContainer
FlServerHelper::Install(Ptr<Node> node) const
{
    return ApplicationContainer(InstallPriv(node));
}

ApplicationContainer
FlServerHelper::Install(const std::string& nodeName) const
{
    Ptr<Node> node = Names::Find<Node>(nodeName);
    NS_ABORT_MSG_IF(!node, "FlServerHelper: no node named " << nodeName);
    return Install(node);
}

ApplicationContainer
FlServerHelper::Install(NodeContainer c) const
{
    ApplicationContainer apps;
    for (auto it = c.Begin(); it != c.End(); ++it)
    {
        apps.Add(InstallPriv(*it));
    }
    return apps;
}

Ptr<Application>
FlServerHelper::InstallPriv(Ptr<Node> node) const
{
    Ptr<FlServerApp> server = m_factory.Create<FlServerApp>();
    server->SetTask(m_task);
    node->AddApplication(server);
    return server;
}

int64_t
FlServerHelper::AssignStreams(NodeContainer c, int64_t stream)
{
    int64_t current = stream;
    for (auto node = c.Begin(); node != c.End(); ++node)
    {
        for (uint32_t i = 0; i < (*node)->GetNApplications(); ++i)
        {
            Ptr<FlServerApp> server = DynamicCast<FlServerApp>((*node)->GetApplication(i));
            if (server)
            {
                current += server->AssignStreams(current);
            }
        }
    }
    return current - stream;
}

Ptr<MessageTransport>
FlServerHelper::GetTransport() const
{
    return m_transport;
}

} // namespace ns3
