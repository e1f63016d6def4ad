#ifndef FEDRAN_MODELS_NS3_HELPER_FL_SERVER_HELPER_H
#define FEDRAN_MODELS_NS3_HELPER_FL_SERVER_HELPER_H

#include "models/fl/federated-task.h"
#include "models/ns3/model/message-transport.h"

#include <ns3/application-container.h>
#include <ns3/attribute.h>
#include <ns3/node-container.h>
#include <ns3/object-factory.h>
#include <ns3/ptr.h>

#include <memory>
#include <string>

namespace ns3
{

/**
 * Installs the federated-learning server (ns3::FlServerApp) on nodes, in the manner of ns-3's
 * application helpers:
 *
 *     FlServerHelper server(task);                       // a TCP transport by default
 *     server.SetAttribute("Rounds", UintegerValue(5));
 *     server.SetAttribute("ClientsPerRound", UintegerValue(4));
 *     ApplicationContainer apps = server.Install(serverNode);
 *     stream += server.AssignStreams(NodeContainer(serverNode), stream);
 *
 * Every server it installs shares the task (read-only) and the transport; the clients should
 * be given the same transport (GetTransport) and the server's address with its Port.
 */
class FlServerHelper
{
  public:
    /// `task`: the learning problem the server and its clients share; `transport`: how its
    /// messages cross the network (also set as the application's Transport attribute).
    explicit FlServerHelper(std::shared_ptr<const fedran::FederatedTask> task,
                            Ptr<MessageTransport> transport = CreateMessageTransport("tcp"));

    /// Sets an attribute of every FlServerApp installed from now on (Port, Rounds,
    /// ClientsPerRound, OverSelect, Deadline, ExpectedClients, JoinTimeout, StartTime...).
    void SetAttribute(const std::string& name, const AttributeValue& value);

    /// One FlServerApp on `node`, with the task set and the application added to the node.
    ApplicationContainer Install(Ptr<Node> node) const;
    /// The same on the node registered under `nodeName` with ns3::Names.
    ApplicationContainer Install(const std::string& nodeName) const;
    /// One FlServerApp on each node of `c` (a federation usually has one server).
    ApplicationContainer Install(NodeContainer c) const;

    /// Fixes the random streams (client sampling) of every FlServerApp on the nodes of `c`,
    /// from `stream` on; returns how many were used.
    int64_t AssignStreams(NodeContainer c, int64_t stream);

    Ptr<MessageTransport> GetTransport() const;

  private:
    Ptr<Application> InstallPriv(Ptr<Node> node) const;

    ObjectFactory m_factory;
    std::shared_ptr<const fedran::FederatedTask> m_task;
    Ptr<MessageTransport> m_transport;
};

} // namespace ns3

#endif
