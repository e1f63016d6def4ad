// The TCP transport over the simulator's topology carries real bytes: what the receiver reassembles
// is exactly what was sent, and the time it takes follows the link's rate and delay.

#include "models/ns3/model/tcp-message-transport.h"
#include "one-client-network.h"
#include "simulator/network-topology.h"

#include <gtest/gtest.h>
#include <ns3/inet-socket-address.h>
#include <ns3/simulator.h>

#include <cstdio>
#include <random>

namespace
{

using namespace ns3;

/// Sends one frame of random payload bytes over a single point-to-point link.
class LinkTransfer
{
  public:
    double sentAt = -1.0;
    double arrivedAt = -1.0;
    fedran::Frame received;
    FrameReceipt receipt;
    std::vector<uint8_t> sentFrame;

    LinkTransfer(uint32_t payloadBytes, const std::string& rate, double delayS)
    {
        fedran::test::SetFedranTcpDefaults();
        // The simulator's own topology: client -- backhaul -- router -- core -- server,
        // with a core fast and short enough not to matter.
        NetworkTopology topology(fedran::test::OneClientConfig(rate, delayS, "10Gbps", 0.0), {0});

        std::mt19937 gen(1);
        std::vector<uint8_t> payload(payloadBytes);
        for (auto& b : payload)
        {
            b = static_cast<uint8_t>(gen());
        }
        fedran::FrameHeader header;
        header.type = fedran::FrameType::ClientUpdate;
        header.round = 3;
        header.client = 1;
        header.samples = 10;
        sentFrame = fedran::EncodeFrame(header, payload);

        // Sockets may only be used once the simulation (and so the nodes) has started.
        Ptr<TcpMessageTransport> transport = CreateObject<TcpMessageTransport>();
        Simulator::ScheduleNow(&TcpMessageTransport::Listen,
                               transport,
                               topology.GetServer(),
                               9000,
                               MakeCallback(&LinkTransfer::Accepted, this));
        Simulator::Schedule(MilliSeconds(1),
                            &TcpMessageTransport::Connect,
                            transport,
                            topology.GetClient(0),
                            InetSocketAddress(topology.GetServerAddress(), 9000),
                            MakeCallback(&LinkTransfer::Connected, this));
        Simulator::Stop(Seconds(30));
        Simulator::Run();
        Simulator::Destroy();
    }

  private:
    void Accepted(Ptr<MessageChannel> channel)
    {
        m_server = channel;
        channel->SetFrameCallback(MakeCallback(&LinkTransfer::Arrived, this));
    }

    void Connected(Ptr<MessageChannel> channel)
    {
        m_client = channel;
        sentAt = Simulator::Now().GetSeconds();
        channel->Send(sentFrame);
    }

    void Arrived(Ptr<MessageChannel>, const fedran::Frame& frame, const FrameReceipt& r)
    {
        arrivedAt = Simulator::Now().GetSeconds();
        received = frame;
        receipt = r;
    }

    Ptr<MessageChannel> m_server;
    Ptr<MessageChannel> m_client;
};

TEST(TcpTransport, DeliversTheExactBytes)
{
    LinkTransfer t(200000, "100Mbps", 0.002);
    ASSERT_GE(t.arrivedAt, 0.0) << "frame never arrived";
    EXPECT_EQ(t.received.header.round, 3u);
    EXPECT_EQ(t.received.header.client, 1u);
    EXPECT_EQ(t.received.header.samples, 10u);
    std::vector<uint8_t> again = fedran::EncodeFrame(t.received.header, t.received.payload);
    EXPECT_EQ(again, t.sentFrame);
}

TEST(TcpTransport, OneMegabyteOverTenMegabitsTakesAboutEightHundredMilliseconds)
{
    // 1 MB = 8 Mbit: 0.8 s of serialisation at 10 Mbit/s, plus slow start and 20 ms hops.
    LinkTransfer t(1000000, "10Mbps", 0.020);
    ASSERT_GE(t.arrivedAt, 0.0) << "frame never arrived";
    const double elapsed = t.arrivedAt - t.sentAt;
    std::printf("1 MB over 10 Mbit/s, 20 ms: %.4f s\n", elapsed);
    EXPECT_GE(elapsed, 0.8);
    EXPECT_LE(elapsed, 1.5);
    EXPECT_EQ(t.received.payload.size(), 1000000u);
    // The receipt spans the frame's own arrival: from its first byte to its last, which is
    // when it was handed over; in between, most of the 0.8 s of serialisation.
    EXPECT_DOUBLE_EQ(t.receipt.lastByte.GetSeconds(), t.arrivedAt);
    const double span = (t.receipt.lastByte - t.receipt.firstByte).GetSeconds();
    EXPECT_GE(span, 0.75);
    EXPECT_LT(span, 1.5);
}

TEST(TransportRegistry, NamesPickTheirTransport)
{
    EXPECT_EQ(MessageTransportNames(), (std::vector<std::string>{"tcp", "flow"}));
    Ptr<MessageTransport> tcp = CreateMessageTransport("tcp");
    ASSERT_NE(tcp, nullptr);
    EXPECT_EQ(tcp->GetInstanceTypeId().GetName(), "ns3::TcpMessageTransport");
    EXPECT_THROW(CreateMessageTransport("quic"), std::invalid_argument);
}

} // namespace
