// A client that goes away mid-upload: MessageChannel::Abort stops its TCP connection at once
// (nothing but a reset leaves the client after it) and the server's channel reports that the
// peer is gone, which the server records as "dropped".

#include "models/ns3/model/tcp-message-transport.h"
#include "one-client-network.h"
#include "simulator/network-topology.h"

#include <gtest/gtest.h>
#include <ns3/inet-socket-address.h>
#include <ns3/ipv4-header.h>
#include <ns3/ipv4-l3-protocol.h>
#include <ns3/simulator.h>
#include <ns3/tcp-header.h>

namespace
{

using namespace ns3;

/// Starts a 1 MB upload over 2 Mbit/s (4 s of serialisation) and aborts it after `abortS`.
class AbortedUpload
{
  public:
    static constexpr double kAbortS = 1.0;

    uint64_t clientPacketsAfterAbort = 0;
    uint64_t clientResetsAfterAbort = 0;
    uint64_t clientDataBytesBeforeAbort = 0;
    uint64_t clientDataBytesAfterAbort = 0;
    uint64_t serverPayloadBytes = 0;
    double lastClientTxS = -1.0;
    bool serverSawError = false;
    bool serverPeerGone = false;
    bool frameArrived = false;

    AbortedUpload()
    {
        fedran::test::SetFedranTcpDefaults();
        NetworkTopology topology(fedran::test::OneClientConfig("2Mbps", 0.010, "1Gbps", 0.001),
                                 {0});

        fedran::FrameHeader header;
        header.type = fedran::FrameType::ClientUpdate;
        header.round = 1;
        header.samples = 1;
        m_frame = fedran::EncodeFrame(header, std::vector<uint8_t>(1'000'000, 0x5a));

        topology.GetClient(0)->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext(
            "Tx",
            MakeCallback(&AbortedUpload::ClientIpTx, this));
        topology.GetClientDevice(0)->TraceConnectWithoutContext(
            "PhyTxEnd",
            MakeCallback(&AbortedUpload::ClientPhyTx, this));

        Ptr<TcpMessageTransport> transport = CreateObject<TcpMessageTransport>();
        Simulator::ScheduleNow(&TcpMessageTransport::Listen,
                               transport,
                               topology.GetServer(),
                               9000,
                               MakeCallback(&AbortedUpload::Accepted, this));
        Simulator::ScheduleNow(&TcpMessageTransport::Connect,
                               transport,
                               topology.GetClient(0),
                               InetSocketAddress(topology.GetServerAddress(), 9000),
                               MakeCallback(&AbortedUpload::Connected, this));
        Simulator::Schedule(Seconds(kAbortS), &AbortedUpload::Abort, this);
        Simulator::Stop(Seconds(20));
        Simulator::Run();
        Simulator::Destroy();
    }

  private:
    void Accepted(Ptr<MessageChannel> channel)
    {
        m_server = channel;
        channel->SetFrameCallback(MakeCallback(&AbortedUpload::Arrived, this));
        channel->SetErrorCallback(MakeCallback(&AbortedUpload::ServerError, this));
    }

    void Connected(Ptr<MessageChannel> channel)
    {
        m_client = channel;
        channel->Send(m_frame);
    }

    void Abort()
    {
        m_aborted = true;
        m_client->Abort();
    }

    void Arrived(Ptr<MessageChannel>, const fedran::Frame&, const FrameReceipt&)
    {
        frameArrived = true;
    }

    void ServerError(Ptr<MessageChannel> channel, const std::string&)
    {
        serverSawError = true;
        serverPeerGone = channel->PeerGone();
    }

    void ClientIpTx(Ptr<const Packet> packet, Ptr<Ipv4>, uint32_t)
    {
        Ptr<Packet> copy = packet->Copy();
        Ipv4Header ip;
        copy->RemoveHeader(ip);
        TcpHeader tcp;
        copy->RemoveHeader(tcp);
        if (!m_aborted)
        {
            clientDataBytesBeforeAbort += copy->GetSize();
            return;
        }
        ++clientPacketsAfterAbort;
        clientDataBytesAfterAbort += copy->GetSize();
        if (tcp.GetFlags() & TcpHeader::RST)
        {
            ++clientResetsAfterAbort;
        }
    }

    void ClientPhyTx(Ptr<const Packet>)
    {
        lastClientTxS = Simulator::Now().GetSeconds();
    }

    std::vector<uint8_t> m_frame;
    bool m_aborted = false;
    Ptr<MessageChannel> m_server;
    Ptr<MessageChannel> m_client;
};

TEST(TcpAbort, MidTransferDepartureStopsTrafficAndTheServerSeesThePeerGone)
{
    AbortedUpload run;
    // It was mid-transfer: some data had left, far from all of it.
    EXPECT_GT(run.clientDataBytesBeforeAbort, 50'000u);
    EXPECT_LT(run.clientDataBytesBeforeAbort, 500'000u);
    // After the abort the client's IP layer carries resets and nothing else: no new data,
    // no retransmissions, no FIN. (Its own reset, then one per server segment still in
    // flight, as TCP answers segments for a connection that no longer exists.)
    EXPECT_GE(run.clientPacketsAfterAbort, 1u);
    EXPECT_EQ(run.clientResetsAfterAbort, run.clientPacketsAfterAbort);
    EXPECT_EQ(run.clientDataBytesAfterAbort, 0u);
    // What TCP had already queued at the device drains (the queue is the NIC's, not the
    // application's), then the link falls silent long before the 4 s the upload needed.
    EXPECT_GT(run.lastClientTxS, AbortedUpload::kAbortS);
    EXPECT_LT(run.lastClientTxS, 2.5);
    EXPECT_FALSE(run.frameArrived);
    EXPECT_TRUE(run.serverSawError);
    EXPECT_TRUE(run.serverPeerGone);
}

} // namespace
