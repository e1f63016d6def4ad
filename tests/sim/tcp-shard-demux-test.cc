// Splitting the server's TCP endpoint table (TcpMessageTransport's ListenShards) changes the
// cost of a lookup, never what TCP does: every client connects, and every frame arrives at the
// same instant with the same bytes as with ns-3's single table.

#include "models/ns3/model/tcp-message-transport.h"
#include "models/ns3/model/tcp-shard-demux.h"
#include "one-client-network.h"
#include "simulator/network-topology.h"

#include <gtest/gtest.h>
#include <ns3/inet-socket-address.h>
#include <ns3/ipv4-l3-protocol.h>
#include <ns3/simulator.h>
#include <ns3/uinteger.h>

#include <map>

namespace
{

using namespace ns3;

constexpr uint32_t kClients = 96;

/// kClients sites on one router each send one frame at the same instant (all contending for
/// the core link); records when each frame arrived and which client it came from.
struct ManyUploads
{
    std::map<uint32_t, double> arrivedAt; ///< by the frame's client id
    std::map<uint32_t, size_t> payloadBytes;

    explicit ManyUploads(uint32_t shards)
    {
        fedran::test::SetFedranTcpDefaults();
        fedran::ScenarioConfig config =
            fedran::test::OneClientConfig("100Mbps", 0.002, "200Mbps", 0.005);
        config.groups[0].count = kClients;
        NetworkTopology topology(config, std::vector<uint32_t>(kClients, 0));

        Ptr<TcpMessageTransport> transport = CreateObject<TcpMessageTransport>();
        transport->SetAttribute("ListenShards", UintegerValue(shards));
        Simulator::ScheduleNow(&TcpMessageTransport::Listen,
                               transport,
                               topology.GetServer(),
                               9000,
                               MakeCallback(&ManyUploads::Accepted, this));
        for (uint32_t i = 0; i < kClients; ++i)
        {
            Simulator::Schedule(MilliSeconds(1),
                                &TcpMessageTransport::Connect,
                                transport,
                                topology.GetClient(i),
                                InetSocketAddress(topology.GetServerAddress(), 9000),
                                MakeBoundCallback(&ManyUploads::Connected, this, i));
        }
        Simulator::Stop(Seconds(30));
        Simulator::Run();
        Ptr<TcpShardDemux> demux = DynamicCast<TcpShardDemux>(
            topology.GetServer()->GetObject<Ipv4L3Protocol>()->GetProtocol(6));
        shardCount = demux ? demux->GetShardCount() : 1;
        Simulator::Destroy();
    }

    uint32_t shardCount = 0; ///< endpoint tables the server's TCP had

  private:
    void Accepted(Ptr<MessageChannel> channel)
    {
        m_channels.push_back(channel);
        channel->SetFrameCallback(MakeCallback(&ManyUploads::Arrived, this));
    }

    static void Connected(ManyUploads* self, uint32_t client, Ptr<MessageChannel> channel)
    {
        self->m_channels.push_back(channel);
        fedran::FrameHeader header;
        header.type = fedran::FrameType::ClientUpdate;
        header.client = client;
        header.samples = 1;
        // Sizes differ per client, so that a frame delivered to the wrong connection shows.
        channel->Send(fedran::EncodeFrame(header, std::vector<uint8_t>(20000 + 97 * client, 7)));
    }

    void Arrived(Ptr<MessageChannel>, const fedran::Frame& frame, const FrameReceipt&)
    {
        arrivedAt[frame.header.client] = Simulator::Now().GetSeconds();
        payloadBytes[frame.header.client] = frame.payload.size();
    }

    std::vector<Ptr<MessageChannel>> m_channels;
};

TEST(TcpShardDemux, ShardedServerDeliversEveryFrameAtTheSameInstant)
{
    const ManyUploads single(1);
    const ManyUploads sharded(7);
    EXPECT_EQ(single.shardCount, 1u);
    EXPECT_EQ(sharded.shardCount, 7u);
    ASSERT_EQ(single.arrivedAt.size(), kClients) << "not every client's frame arrived";
    ASSERT_EQ(sharded.arrivedAt.size(), kClients) << "not every client's frame arrived (sharded)";
    for (uint32_t i = 0; i < kClients; ++i)
    {
        EXPECT_EQ(sharded.payloadBytes.at(i), 20000u + 97 * i) << "client " << i;
        EXPECT_DOUBLE_EQ(sharded.arrivedAt.at(i), single.arrivedAt.at(i)) << "client " << i;
    }
}

TEST(TcpShardDemux, HashSpreadsConsecutiveAddressesOverEveryShard)
{
    fedran::test::SetFedranTcpDefaults();
    fedran::ScenarioConfig config = fedran::test::OneClientConfig("100Mbps", 0.002, "1Gbps", 0.0);
    NetworkTopology topology(config, {0});
    Ptr<TcpShardDemux> demux = TcpShardDemux::Install(topology.GetServer(), 8);
    ASSERT_EQ(demux->GetShardCount(), 8u);
    std::map<uint32_t, uint32_t> perShard;
    for (uint32_t i = 0; i < 800; ++i)
    {
        ++perShard[demux->ShardOf(Ipv4Address(0x0a000000u + 4 * i), 49153)];
    }
    ASSERT_EQ(perShard.size(), 8u);
    for (const auto& [shard, count] : perShard)
    {
        EXPECT_GT(count, 60u) << "shard " << shard; // 100 each if even
        EXPECT_LT(count, 140u) << "shard " << shard;
    }
    Simulator::Destroy();
}

} // namespace
