#include "models/ns3/model/tcp-shard-demux.h"

#include <ns3/ipv4-interface.h>
#include <ns3/ipv4-l3-protocol.h>
#include <ns3/ipv4.h>
#include <ns3/ipv6-interface.h>
#include <ns3/packet.h>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TcpShardDemux);

TypeId
TcpShardDemux::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpShardDemux").SetParent<IpL4Protocol>().SetGroupName("Fedran");
    return tid;
}

Ptr<TcpShardDemux>
TcpShardDemux::Install(Ptr<Node> node, uint32_t shards)
{
    Ptr<Ipv4L3Protocol> ipv4 = node->GetObject<Ipv4L3Protocol>();
    Ptr<TcpL4Protocol> own = node->GetObject<TcpL4Protocol>();
    NS_ABORT_MSG_IF(!ipv4 || !own, "TcpShardDemux needs a node with an IPv4 TCP stack");
    Ptr<TcpShardDemux> demux = CreateObject<TcpShardDemux>();
    demux->m_shards.push_back(own);
    for (uint32_t k = 1; k < shards; ++k)
    {
        // What TcpL4Protocol::NotifyNewAggregate does, minus the aggregation: a node holds
        // one object of a type, and the socket factory stays with shard 0.
        Ptr<TcpL4Protocol> shard = CreateObject<TcpL4Protocol>();
        shard->SetNode(node);
        shard->SetDownTarget(MakeCallback(&Ipv4::Send, Ptr<Ipv4>(ipv4)));
        demux->m_shards.push_back(shard);
    }
    ipv4->Remove(own);
    ipv4->Insert(demux);
    return demux;
}

uint32_t
TcpShardDemux::ShardOf(Ipv4Address remote, uint16_t remotePort) const
{
    // splitmix64's finaliser: sites' addresses are consecutive, so spread them.
    uint64_t x = (uint64_t{remote.Get()} << 16) | remotePort;
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return static_cast<uint32_t>(x % m_shards.size());
}

int
TcpShardDemux::GetProtocolNumber() const
{
    return TcpL4Protocol::PROT_NUMBER;
}

IpL4Protocol::RxStatus
TcpShardDemux::Receive(Ptr<Packet> p,
                       const Ipv4Header& header,
                       Ptr<Ipv4Interface> incomingInterface)
{
    uint8_t port[2];
    if (p->CopyData(port, 2) < 2)
    {
        return m_shards[0]->Receive(p, header, incomingInterface); // it drops the runt
    }
    const uint16_t sourcePort = static_cast<uint16_t>(port[0] << 8 | port[1]);
    return m_shards[ShardOf(header.GetSource(), sourcePort)]->Receive(p, header, incomingInterface);
}

IpL4Protocol::RxStatus
TcpShardDemux::Receive(Ptr<Packet> p,
                       const Ipv6Header& header,
                       Ptr<Ipv6Interface> incomingInterface)
{
    return m_shards[0]->Receive(p, header, incomingInterface); // fedran's networks are IPv4
}

void
TcpShardDemux::ReceiveIcmp(Ipv4Address icmpSource,
                           uint8_t icmpTtl,
                           uint8_t icmpType,
                           uint8_t icmpCode,
                           uint32_t icmpInfo,
                           Ipv4Address payloadSource,
                           Ipv4Address payloadDestination,
                           const uint8_t payload[8])
{
    // The payload is the start of a segment this node sent: bytes 2-3 are the remote port.
    const uint16_t remotePort = static_cast<uint16_t>(payload[2] << 8 | payload[3]);
    m_shards[ShardOf(payloadDestination, remotePort)]->ReceiveIcmp(icmpSource,
                                                                   icmpTtl,
                                                                   icmpType,
                                                                   icmpCode,
                                                                   icmpInfo,
                                                                   payloadSource,
                                                                   payloadDestination,
                                                                   payload);
}

void
TcpShardDemux::SetDownTarget(DownTargetCallback cb)
{
    for (const Ptr<TcpL4Protocol>& shard : m_shards)
    {
        shard->SetDownTarget(cb);
    }
}

void
TcpShardDemux::SetDownTarget6(DownTargetCallback6 cb)
{
    for (const Ptr<TcpL4Protocol>& shard : m_shards)
    {
        shard->SetDownTarget6(cb);
    }
}

IpL4Protocol::DownTargetCallback
TcpShardDemux::GetDownTarget() const
{
    return m_shards[0]->GetDownTarget();
}

IpL4Protocol::DownTargetCallback6
TcpShardDemux::GetDownTarget6() const
{
    return m_shards[0]->GetDownTarget6();
}

void
TcpShardDemux::DoDispose()
{
    for (uint32_t k = 1; k < m_shards.size(); ++k)
    {
        m_shards[k]->Dispose(); // shard 0 is disposed with its node
    }
    m_shards.clear();
    IpL4Protocol::DoDispose();
}

} // namespace ns3
