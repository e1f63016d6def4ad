// FlServerHelper and FlClientHelper: what they install and with which attributes (nothing is
// simulated here; the example test and the golden traces run them).

#include "../fl/fl-test-util.h"
#include "models/ns3/helper/fl-client-helper.h"
#include "models/ns3/helper/fl-server-helper.h"
#include "models/ns3/model/fl-client-app.h"
#include "models/ns3/model/fl-server-app.h"

#include <gtest/gtest.h>
#include <ns3/double.h>
#include <ns3/inet-socket-address.h>
#include <ns3/pointer.h>
#include <ns3/simulator.h>
#include <ns3/uinteger.h>

namespace ns3
{
namespace
{

uint64_t
UintegerAttribute(Ptr<Object> object, const std::string& name)
{
    UintegerValue value;
    object->GetAttribute(name, value);
    return value.Get();
}

double
DoubleAttribute(Ptr<Object> object, const std::string& name)
{
    DoubleValue value;
    object->GetAttribute(name, value);
    return value.Get();
}

template<typename T>
Ptr<T>
PointerAttribute(Ptr<Object> object, const std::string& name)
{
    PointerValue value;
    object->GetAttribute(name, value);
    return value.Get<T>();
}

class FlHelpers : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy(); // AddApplication scheduled the applications' initialisation
    }

    std::shared_ptr<const fedran::FederatedTask> m_task = fedran::test::MakeTinyTask(5);
    Address m_server = InetSocketAddress(Ipv4Address("10.0.0.1"), 7000);
};

TEST_F(FlHelpers, ServerHelperInstallsOneConfiguredServerPerNode)
{
    FlServerHelper helper(m_task);
    helper.SetAttribute("Rounds", UintegerValue(7));
    helper.SetAttribute("ClientsPerRound", UintegerValue(3));
    NodeContainer node(1);
    ApplicationContainer apps = helper.Install(node);
    ASSERT_EQ(apps.GetN(), 1u);
    Ptr<FlServerApp> server = DynamicCast<FlServerApp>(apps.Get(0));
    ASSERT_TRUE(server);
    EXPECT_EQ(server->GetNode(), node.Get(0));
    EXPECT_EQ(node.Get(0)->GetNApplications(), 1u);
    EXPECT_EQ(UintegerAttribute(server, "Rounds"), 7u);
    EXPECT_EQ(UintegerAttribute(server, "ClientsPerRound"), 3u);
    EXPECT_EQ(UintegerAttribute(server, "Port"), 7000u); // the application's default
    ASSERT_TRUE(helper.GetTransport());
    EXPECT_EQ(PointerAttribute<MessageTransport>(server, "Transport"), helper.GetTransport());
    EXPECT_EQ(helper.AssignStreams(node, 10), 1); // the client sampler
}

TEST_F(FlHelpers, ClientHelperGivesConsecutiveIdsAcrossInstalls)
{
    FlServerHelper serverHelper(m_task);
    FlClientHelper helper(m_task, m_server, serverHelper.GetTransport());
    helper.SetAttribute("Deadline", TimeValue(Seconds(12)));
    NodeContainer nodes(3);
    ApplicationContainer apps = helper.Install(nodes);
    ASSERT_EQ(apps.GetN(), 3u);
    NodeContainer more(1);
    ApplicationContainer later = helper.Install(more.Get(0));
    apps.Add(later);
    EXPECT_EQ(helper.GetNextClientId(), 4u);
    for (uint32_t i = 0; i < apps.GetN(); ++i)
    {
        Ptr<FlClientApp> client = DynamicCast<FlClientApp>(apps.Get(i));
        ASSERT_TRUE(client);
        EXPECT_EQ(UintegerAttribute(client, "ClientId"), i);
        EXPECT_EQ(PointerAttribute<MessageTransport>(client, "Transport"),
                  serverHelper.GetTransport());
        EXPECT_FALSE(PointerAttribute<ClientAvailability>(client, "Availability"));
        TimeValue deadline;
        client->GetAttribute("Deadline", deadline);
        EXPECT_EQ(deadline.Get(), Seconds(12));
        AddressValue server;
        client->GetAttribute("Server", server);
        EXPECT_EQ(server.Get(), m_server);
    }
    EXPECT_EQ(helper.AssignStreams(nodes, 0), 3); // one stream per client (its join), no process
}

TEST_F(FlHelpers, ClientHelperPerClientSpeedsAndAvailability)
{
    FlClientHelper helper(m_task, m_server);
    helper.SetAttribute("SamplesPerSecond", DoubleValue(100.0));
    helper.SetNextClientId(2);
    helper.SetSamplesPerSecond({10.0, 20.0, 30.0, 40.0});
    helper.SetAvailabilityAttribute("DropoutProbability", DoubleValue(0.25));
    NodeContainer nodes(2);
    ApplicationContainer apps = helper.Install(nodes);
    EXPECT_EQ(UintegerAttribute(apps.Get(0), "ClientId"), 2u);
    EXPECT_EQ(DoubleAttribute(apps.Get(0), "SamplesPerSecond"), 30.0);
    EXPECT_EQ(DoubleAttribute(apps.Get(1), "SamplesPerSecond"), 40.0);
    Ptr<ClientAvailability> a = PointerAttribute<ClientAvailability>(apps.Get(0), "Availability");
    Ptr<ClientAvailability> b = PointerAttribute<ClientAvailability>(apps.Get(1), "Availability");
    ASSERT_TRUE(a);
    ASSERT_TRUE(b);
    EXPECT_NE(a, b) << "each client has its own process";
    EXPECT_EQ(DoubleAttribute(a, "DropoutProbability"), 0.25);
    EXPECT_EQ(helper.AssignStreams(nodes, 100), 6); // two per process, one per client

    // A maker decides per client; nullptr means always available.
    std::vector<uint32_t> asked;
    helper.SetNextClientId(0);
    helper.SetSamplesPerSecond({});
    helper.SetAvailability([&asked](uint32_t id) -> Ptr<ClientAvailability> {
        asked.push_back(id);
        return id == 1 ? CreateObject<ClientAvailability>() : nullptr;
    });
    NodeContainer others(2);
    ApplicationContainer second = helper.Install(others);
    EXPECT_EQ(asked, (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(DoubleAttribute(second.Get(0), "SamplesPerSecond"), 100.0);
    EXPECT_FALSE(PointerAttribute<ClientAvailability>(second.Get(0), "Availability"));
    EXPECT_TRUE(PointerAttribute<ClientAvailability>(second.Get(1), "Availability"));

    helper.ClearAvailability();
    NodeContainer last(1);
    ApplicationContainer third = helper.Install(last);
    EXPECT_FALSE(PointerAttribute<ClientAvailability>(third.Get(0), "Availability"));
    EXPECT_EQ(asked.size(), 2u);
}

} // namespace
} // namespace ns3
