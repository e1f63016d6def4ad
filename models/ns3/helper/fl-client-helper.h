#ifndef FEDRAN_MODELS_NS3_HELPER_FL_CLIENT_HELPER_H
#define FEDRAN_MODELS_NS3_HELPER_FL_CLIENT_HELPER_H

#include "models/fl/federated-task.h"
#include "models/ns3/model/client-availability.h"
#include "models/ns3/model/message-transport.h"
#include "models/ns3/model/thread-pool.h"

#include <ns3/address.h>
#include <ns3/application-container.h>
#include <ns3/attribute.h>
#include <ns3/node-container.h>
#include <ns3/object-factory.h>
#include <ns3/ptr.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * Installs federated-learning clients (ns3::FlClientApp), one per node, in the manner of
 * ns-3's application helpers:
 *
 *     FlClientHelper clients(task, InetSocketAddress(serverIp, 7000), server.GetTransport());
 *     clients.SetAttribute("SamplesPerSecond", DoubleValue(5000.0));
 *     ApplicationContainer apps = clients.Install(clientNodes);   // ClientId 0, 1, 2...
 *     stream += clients.AssignStreams(clientNodes, stream);
 *
 * The clients take consecutive ClientId values, counting on across Install calls; a client's
 * id is also its slice of the task's partition, so the task must have a slice for each.
 * Unlike ns-3's helpers, Install therefore changes the helper (its next id).
 *
 * Per client, the helper can also give a training speed (SetSamplesPerSecond), an on/off and
 * dropout process (SetAvailability...) and a shared pool of training threads
 * (SetTrainingPool).
 */
class FlClientHelper
{
  public:
    /// Makes a client's availability process (or returns nullptr for none), given its id.
    using AvailabilityMaker = std::function<Ptr<ClientAvailability>(uint32_t clientId)>;

    /// `task`: the learning problem shared with the server; `server`: the server's address
    /// with its port (e.g. an InetSocketAddress); `transport`: the server's transport.
    FlClientHelper(std::shared_ptr<const fedran::FederatedTask> task,
                   const Address& server,
                   Ptr<MessageTransport> transport = CreateMessageTransport("tcp"));

    /// Sets an attribute of every FlClientApp installed from now on (SamplesPerSecond,
    /// Deadline, StartTime...). ClientId is the helper's to give (see SetNextClientId).
    void SetAttribute(const std::string& name, const AttributeValue& value);

    /// The ClientId the next installed client gets (0 at first).
    void SetNextClientId(uint32_t clientId);
    uint32_t GetNextClientId() const;

    /// Per-client training speeds, indexed by ClientId; they take precedence over the
    /// SamplesPerSecond attribute. An empty vector gives every client the attribute again.
    void SetSamplesPerSecond(std::vector<double> samplesPerSecond);

    /// Per client (indexed by ClientId): CrashProbability and CrashRestart in seconds
    /// (faults.crashes); clients beyond the vectors keep the factory's values.
    void SetCrashes(std::vector<double> probability, std::vector<double> restartS);

    /// Gives every client installed from now on its own ns3::ClientAvailability with these
    /// attributes (DropoutProbability, MeanOnTime, MeanOffTime).
    void SetAvailabilityAttribute(const std::string& name, const AttributeValue& value);
    /// Calls `maker` for each client installed from now on, right after the client is
    /// created, for its availability process; replaces SetAvailabilityAttribute's processes.
    void SetAvailability(AvailabilityMaker maker);
    /// Clients installed from now on are always available (the default).
    void ClearAvailability();

    /// Where the clients' local training runs; without a pool, on the simulation thread.
    void SetTrainingPool(std::shared_ptr<ThreadPool> pool);

    /// One FlClientApp on `node`, with the next ClientId, its task set and the application
    /// added to the node.
    ApplicationContainer Install(Ptr<Node> node);
    /// The same on the node registered under `nodeName` with ns3::Names.
    ApplicationContainer Install(const std::string& nodeName);
    /// One FlClientApp on each node of `c`, in order, with consecutive ClientId values.
    ApplicationContainer Install(NodeContainer c);

    /// Fixes the random streams of every FlClientApp on the nodes of `c` from `stream` on:
    /// the availability processes in node order, then each client's join and reconnection
    /// draws; returns how many were used.
    int64_t AssignStreams(NodeContainer c, int64_t stream);
    /// The same for the FlClientApps in `apps`, in its order (clients that share a node).
    static int64_t AssignStreams(const ApplicationContainer& apps, int64_t stream);

  private:
    Ptr<Application> InstallPriv(Ptr<Node> node);

    ObjectFactory m_factory;
    std::shared_ptr<const fedran::FederatedTask> m_task;
    uint32_t m_nextClientId = 0;
    std::vector<double> m_samplesPerSecond;
    std::vector<double> m_crashProbability;
    std::vector<double> m_crashRestartS;
    bool m_availabilityFromFactory = false;
    ObjectFactory m_availabilityFactory;
    AvailabilityMaker m_availabilityMaker;
    std::shared_ptr<ThreadPool> m_pool;
};

} // namespace ns3

#endif
