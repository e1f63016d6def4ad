#ifndef FEDRAN_NS3_TCP_SHARD_DEMUX_H
#define FEDRAN_NS3_TCP_SHARD_DEMUX_H

#include <ns3/ip-l4-protocol.h>
#include <ns3/ipv4-address.h>
#include <ns3/node.h>
#include <ns3/tcp-l4-protocol.h>

#include <vector>

namespace ns3
{

/**
 * Splits one node's TCP endpoints over several TcpL4Protocol instances ("shards"), so that a
 * server holding thousands of connections does not scan all of them for every packet.
 *
 * ns-3's Ipv4EndPointDemux keeps a node's endpoints in one list and Lookup walks all of it
 * for each received segment (and Allocate for each accepted connection): with N sites
 * connected, every packet reaching the server costs O(N), which dominated a 10,000-site run.
 * This protocol takes TCP's place in the node's Ipv4L3Protocol and hands each segment to
 * the shard its remote address and port hash to; each shard has its own endpoint list (a
 * listening socket plus the connections it accepted), so a segment costs O(N / shards).
 *
 * A connection's segments always reach the same shard (the hash depends only on the remote
 * end), and within a shard the lookup is ns-3's own, so TCP behaves exactly as without
 * sharding: the traces are identical. Shard 0 is the node's own TcpL4Protocol (its socket
 * factory keeps working); the others take their attributes (socket type, RTT estimator)
 * from the defaults in force when Install runs.
 */
class TcpShardDemux : public IpL4Protocol
{
  public:
    static TypeId GetTypeId();

    /// Puts `shards` shards behind one dispatcher on `node` (which must have an internet
    /// stack). Call before any socket on the node is bound.
    static Ptr<TcpShardDemux> Install(Ptr<Node> node, uint32_t shards);

    uint32_t GetShardCount() const
    {
        return static_cast<uint32_t>(m_shards.size());
    }

    Ptr<TcpL4Protocol> GetShard(uint32_t k) const
    {
        return m_shards[k];
    }

    /// The shard that the segments of a connection with this remote end go to.
    uint32_t ShardOf(Ipv4Address remote, uint16_t remotePort) const;

    int GetProtocolNumber() const override;
    RxStatus Receive(Ptr<Packet> p,
                     const Ipv4Header& header,
                     Ptr<Ipv4Interface> incomingInterface) override;
    RxStatus Receive(Ptr<Packet> p,
                     const Ipv6Header& header,
                     Ptr<Ipv6Interface> incomingInterface) override;
    void ReceiveIcmp(Ipv4Address icmpSource,
                     uint8_t icmpTtl,
                     uint8_t icmpType,
                     uint8_t icmpCode,
                     uint32_t icmpInfo,
                     Ipv4Address payloadSource,
                     Ipv4Address payloadDestination,
                     const uint8_t payload[8]) override;
    void SetDownTarget(DownTargetCallback cb) override;
    void SetDownTarget6(DownTargetCallback6 cb) override;
    DownTargetCallback GetDownTarget() const override;
    DownTargetCallback6 GetDownTarget6() const override;

  protected:
    void DoDispose() override;

  private:
    std::vector<Ptr<TcpL4Protocol>> m_shards;
};

} // namespace ns3

#endif
