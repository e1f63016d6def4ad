#include "models/ns3/helper/fl-client-helper.h"

#include "models/ns3/model/fl-client-app.h"

#include <ns3/abort.h>
#include <ns3/double.h>
#include <ns3/names.h>
#include <ns3/pointer.h>
#include <ns3/uinteger.h>

namespace ns3
{

FlClientHelper::FlClientHelper(std::shared_ptr<const fedran::FederatedTask> task,
                               const Address& server,
                               Ptr<MessageTransport> transport)
    : m_task(std::move(task))
{
    NS_ABORT_MSG_IF(!m_task, "FlClientHelper: no task");
    NS_ABORT_MSG_IF(!transport, "FlClientHelper: no transport");
    m_factory.SetTypeId(FlClientApp::GetTypeId());
    m_factory.Set("Server", AddressValue(server));
    m_factory.Set("Transport", PointerValue(transport));
    m_availabilityFactory.SetTypeId(ClientAvailability::GetTypeId());
}

void
FlClientHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    NS_ABORT_MSG_IF(name == "ClientId",
                    "FlClientHelper: ClientId is given by the helper (SetNextClientId)");
    m_factory.Set(name, value);
}

void
FlClientHelper::SetNextClientId(uint32_t clientId)
{
    m_nextClientId = clientId;
}

uint32_t
FlClientHelper::GetNextClientId() const
{
    return m_nextClientId;
}

void
FlClientHelper::SetSamplesPerSecond(std::vector<double> samplesPerSecond)
{
    m_samplesPerSecond = std::move(samplesPerSecond);
}

void
FlClientHelper::SetCrashes(std::vector<double> probability, std::vector<double> restartS)
{
    NS_ABORT_MSG_IF(probability.size() != restartS.size(),
                    "FlClientHelper::SetCrashes: vectors of different lengths");
    m_crashProbability = std::move(probability);
    m_crashRestartS = std::move(restartS);
}

void
FlClientHelper::SetAvailabilityAttribute(const std::string& name, const AttributeValue& value)
{
    m_availabilityFactory.Set(name, value);
    m_availabilityFromFactory = true;
    m_availabilityMaker = nullptr;
}

void
FlClientHelper::SetAvailability(AvailabilityMaker maker)
{
    m_availabilityMaker = std::move(maker);
    m_availabilityFromFactory = false;
}

void
FlClientHelper::ClearAvailability()
{
    m_availabilityMaker = nullptr;
    m_availabilityFromFactory = false;
    m_availabilityFactory = ObjectFactory();
    m_availabilityFactory.SetTypeId(ClientAvailability::GetTypeId());
}

void
FlClientHelper::SetTrainingPool(std::shared_ptr<ThreadPool> pool)
{
    m_pool = std::move(pool);
}

ApplicationContainer
FlClientHelper::Install(Ptr<Node> node)
{
    return ApplicationContainer(InstallPriv(node));
}

ApplicationContainer
FlClientHelper::Install(const std::string& nodeName)
{
    Ptr<Node> node = Names::Find<Node>(nodeName);
    NS_ABORT_MSG_IF(!node, "FlClientHelper: no node named " << nodeName);
    return Install(node);
}

ApplicationContainer
FlClientHelper::Install(NodeContainer c)
{
    ApplicationContainer apps;
    for (auto it = c.Begin(); it != c.End(); ++it)
    {
        apps.Add(InstallPriv(*it));
    }
    return apps;
}

Ptr<Application>
FlClientHelper::InstallPriv(Ptr<Node> node)
{
    const uint32_t clientId = m_nextClientId;
    NS_ABORT_MSG_IF(clientId >= m_task->Clients(),
                    "FlClientHelper: client " << clientId << " has no slice of the task's "
                                              << m_task->Clients() << "-way partition");
    // ClientId, SamplesPerSecond and Deadline are construction attributes, so they are in
    // place when SetTask builds the client's session from them.
    ObjectFactory factory = m_factory;
    factory.Set("ClientId", UintegerValue(clientId));
    if (!m_samplesPerSecond.empty())
    {
        NS_ABORT_MSG_IF(clientId >= m_samplesPerSecond.size(),
                        "FlClientHelper: no SamplesPerSecond for client " << clientId);
        factory.Set("SamplesPerSecond", DoubleValue(m_samplesPerSecond[clientId]));
    }
    if (clientId < m_crashProbability.size())
    {
        factory.Set("CrashProbability", DoubleValue(m_crashProbability[clientId]));
        factory.Set("CrashRestart", TimeValue(Seconds(m_crashRestartS[clientId])));
    }
    Ptr<FlClientApp> client = factory.Create<FlClientApp>();
    Ptr<ClientAvailability> availability;
    if (m_availabilityMaker)
    {
        availability = m_availabilityMaker(clientId);
    }
    else if (m_availabilityFromFactory)
    {
        availability = m_availabilityFactory.Create<ClientAvailability>();
    }
    if (availability)
    {
        client->SetAttribute("Availability", PointerValue(availability));
    }
    client->SetTask(m_task);
    client->SetTrainingPool(m_pool);
    node->AddApplication(client);
    ++m_nextClientId;
    return client;
}

int64_t
FlClientHelper::AssignStreams(NodeContainer c, int64_t stream)
{
    ApplicationContainer apps;
    for (auto node = c.Begin(); node != c.End(); ++node)
    {
        for (uint32_t i = 0; i < (*node)->GetNApplications(); ++i)
        {
            apps.Add((*node)->GetApplication(i));
        }
    }
    return AssignStreams(apps, stream);
}

int64_t
FlClientHelper::AssignStreams(const ApplicationContainer& apps, int64_t stream)
{
    int64_t current = stream;
    for (auto app = apps.Begin(); app != apps.End(); ++app)
    {
        Ptr<FlClientApp> client = DynamicCast<FlClientApp>(*app);
        if (!client)
        {
            continue;
        }
        PointerValue availability;
        client->GetAttribute("Availability", availability);
        if (Ptr<ClientAvailability> process = availability.Get<ClientAvailability>())
        {
            current += process->AssignStreams(current);
        }
    }
    // Then each client's own stream (join instant, reconnection delays).
    for (auto app = apps.Begin(); app != apps.End(); ++app)
    {
        if (Ptr<FlClientApp> client = DynamicCast<FlClientApp>(*app))
        {
            current += client->AssignStreams(current);
        }
    }
    return current - stream;
}

} // namespace ns3
