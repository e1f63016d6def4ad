// network.transport "flow": a reply handed over while a message is delivered waits one time
// step to start (FlowMessageTransport::m_delivering), and a Close in that same instant keeps
// it, as a socket keeps what it was handed.

#include "models/ns3/model/message-transport.h"
#include "one-client-network.h"
#include "sim-test-util.h"
#include "simulator/network-topology.h"

#include <gtest/gtest.h>
#include <ns3/inet-socket-address.h>
#include <ns3/simulator.h>

#include <map>

namespace
{

using namespace ns3;

/// Two clients say hello; on the second hello the server replies on the other connection,
/// then on the one that delivered it, and closes the other.
class Replies
{
  public:
    std::map<uint32_t, double> replyAt; ///< client -> when its reply arrived
    uint32_t last = 0;                  ///< the client whose hello came second

    explicit Replies(const std::string& transportName)
    {
        fedran::test::SetFedranTcpDefaults();
        fedran::ScenarioConfig config =
            fedran::test::OneClientConfig("100Mbps", 0.002, "1Gbps", 0.001);
        config.groups.at(0).count = 2;
        Ptr<MessageTransport> transport = CreateMessageTransport(transportName);
        NetworkTopology topology(config, {0, 0}, transport->CarriesPackets());
        transport->SetTopology(topology.GetTransportTopology());
        Simulator::ScheduleNow(&MessageTransport::Listen,
                               transport,
                               topology.GetServer(),
                               9000,
                               MakeCallback(&Replies::Accepted, this));
        for (uint32_t i = 0; i < 2; ++i)
        {
            const InetSocketAddress server(topology.GetServerAddress(), 9000);
            const MessageTransport::ChannelCallback connected =
                MakeCallback(&Replies::Connected, this).Bind(i);
            Simulator::Schedule(MilliSeconds(1 + i), [&topology, transport, server, connected, i] {
                if (topology.IsStated(i))
                {
                    transport->ConnectEndpoint(topology.GetClientEndpoint(i), server, connected);
                    return;
                }
                transport->Connect(topology.GetClient(i), server, connected);
            });
        }
        Simulator::Stop(Seconds(10));
        Simulator::Run();
        Simulator::Destroy();
    }

  private:
    static std::vector<uint8_t> Frame(uint32_t client, size_t bytes)
    {
        fedran::FrameHeader header;
        header.type = fedran::FrameType::ClientUpdate;
        header.client = client;
        return fedran::EncodeFrame(header, std::vector<uint8_t>(bytes, 7));
    }

    void Accepted(Ptr<MessageChannel> channel)
    {
        channel->SetFrameCallback(MakeCallback(&Replies::Hello, this));
    }

    void Hello(Ptr<MessageChannel> channel, const fedran::Frame& frame, const FrameReceipt&)
    {
        m_serverSide[frame.header.client] = channel;
        if (m_serverSide.size() < 2)
        {
            return;
        }
        last = frame.header.client;
        const uint32_t other = 1 - last;
        m_serverSide[other]->Send(Frame(other, 100));
        m_serverSide[last]->Send(Frame(last, 100));
        m_serverSide[other]->Close();
    }

    void Connected(uint32_t i, Ptr<MessageChannel> channel)
    {
        ASSERT_TRUE(channel);
        m_clientSide[i] = channel;
        channel->SetFrameCallback(MakeCallback(&Replies::Reply, this));
        channel->Send(Frame(i, 28));
    }

    void Reply(Ptr<MessageChannel>, const fedran::Frame& frame, const FrameReceipt&)
    {
        replyAt[frame.header.client] = Simulator::Now().GetSeconds();
    }

    std::map<uint32_t, Ptr<MessageChannel>> m_serverSide;
    std::map<uint32_t, Ptr<MessageChannel>> m_clientSide;
};

TEST(FlowTransport, ACloseInTheSameInstantKeepsWhatWasHandedOver)
{
    for (const char* transport : {"tcp", "flow"})
    {
        const Replies r(transport);
        EXPECT_EQ(r.replyAt.size(), 2u) << transport << ": a reply was lost";
    }
}

} // namespace
