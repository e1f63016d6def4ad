#include "models/ns3/model/tcp-message-transport.h"

#include "models/ns3/model/tcp-shard-demux.h"

#include <ns3/inet-socket-address.h>
#include <ns3/log.h>
#include <ns3/packet.h>
#include <ns3/simulator.h>
#include <ns3/tcp-socket-base.h>
#include <ns3/tcp-socket-factory.h>
#include <ns3/uinteger.h>

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpMessageTransport");
NS_OBJECT_ENSURE_REGISTERED(TcpMessageChannel);
NS_OBJECT_ENSURE_REGISTERED(TcpMessageTransport);

namespace
{

/// ns-3's Socket API has no abort: Close() on a socket with unsent data waits until it is all
/// sent, which is the opposite of a client vanishing mid-upload. TcpSocketBase::SendRST does
/// what an abort does (send RST, cancel the timers, release the endpoint) but is protected;
/// naming it through a derived class is the standard-conforming way to reach it.
struct TcpAbortAccess : public TcpSocketBase
{
    static void Reset(TcpSocketBase& socket)
    {
        (socket.*(&TcpAbortAccess::SendRST))();
    }
};

} // namespace

TypeId
TcpMessageChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TcpMessageChannel")
                            .SetParent<MessageChannel>()
                            .SetGroupName("Fedran")
                            .AddConstructor<TcpMessageChannel>();
    return tid;
}

void
TcpMessageChannel::Attach(Ptr<Socket> socket)
{
    m_socket = socket;
    m_socket->SetRecvCallback(MakeCallback(&TcpMessageChannel::HandleRead, this));
    m_socket->SetSendCallback(MakeCallback(&TcpMessageChannel::HandleSendSpace, this));
    m_socket->SetCloseCallbacks(MakeCallback(&TcpMessageChannel::HandlePeerClose, this),
                                MakeCallback(&TcpMessageChannel::HandlePeerError, this));
    // Nothing is buffered yet: what is available now is the whole send buffer.
    m_txCapacity = m_socket->GetTxAvailable();
    m_socket->TraceConnectWithoutContext("RTT", MakeCallback(&TcpMessageChannel::HandleRtt, this));
}

void
TcpMessageChannel::HandleRtt(Time, Time rtt)
{
    m_rtt = rtt;
}

void
TcpMessageChannel::CheckDelivered()
{
    if (m_closed)
    {
        return;
    }
    // TCP keeps every byte it was given until the peer acknowledges it, so the bytes it no
    // longer holds are the acknowledged ones.
    const uint64_t held = m_txCapacity - std::min(m_txCapacity, m_socket->GetTxAvailable());
    const uint64_t acknowledged = m_handedBytes - std::min<uint64_t>(m_handedBytes, held);
    while (!m_inFlight.empty() && m_inFlight.front().end <= acknowledged)
    {
        TransferRecord record;
        record.bytes = m_inFlight.front().bytes;
        record.handedOver = m_inFlight.front().handedOver;
        record.acknowledged = Simulator::Now();
        record.rtt = m_rtt;
        m_inFlight.pop_front();
        NotifyDelivered(record);
    }
}

void
TcpMessageChannel::Send(std::vector<uint8_t> message)
{
    if (m_closed || message.empty())
    {
        return;
    }
    m_queuedBytes += message.size();
    m_inFlight.push_back(InFlight{m_queuedBytes, message.size(), Simulator::Now()});
    m_queue.push_back(std::move(message));
    TrySend();
}

void
TcpMessageChannel::TrySend()
{
    while (!m_closed && !m_queue.empty())
    {
        uint32_t available = m_socket->GetTxAvailable();
        if (available == 0)
        {
            return; // HandleSendSpace resumes when TCP frees buffer space
        }
        const std::vector<uint8_t>& front = m_queue.front();
        uint32_t chunk =
            static_cast<uint32_t>(std::min<size_t>(available, front.size() - m_frontSent));
        Ptr<Packet> packet = Create<Packet>(front.data() + m_frontSent, chunk);
        int sent = m_socket->Send(packet);
        if (sent <= 0)
        {
            return;
        }
        m_frontSent += static_cast<size_t>(sent);
        m_handedBytes += static_cast<uint64_t>(sent);
        if (m_frontSent == front.size())
        {
            m_queue.pop_front();
            m_frontSent = 0;
        }
    }
}

void
TcpMessageChannel::HandleSendSpace(Ptr<Socket>, uint32_t)
{
    // TCP calls this when an acknowledgement frees buffer space.
    TrySend();
    CheckDelivered();
}

void
TcpMessageChannel::HandleRead(Ptr<Socket> socket)
{
    Ptr<Packet> packet;
    while (!m_closed && (packet = socket->Recv()))
    {
        uint32_t size = packet->GetSize();
        if (size == 0)
        {
            continue;
        }
        m_readBuffer.resize(size);
        packet->CopyData(m_readBuffer.data(), size);
        if (m_reassembler.Buffered() == 0)
        {
            m_frameFirstByte = Simulator::Now();
        }
        m_reassembler.Append(m_readBuffer);
        try
        {
            while (auto frame = m_reassembler.Next())
            {
                const FrameReceipt receipt{m_frameFirstByte, Simulator::Now()};
                frame->firstByteS = m_frameFirstByte.GetSeconds();
                m_frameFirstByte = Simulator::Now(); // a next frame began in this read, if any
                NotifyFrame(*frame, receipt);
                if (m_closed)
                {
                    return;
                }
            }
        }
        catch (const fedran::FrameError& e)
        {
            Fail(std::string("bad frame: ") + e.what(), false);
            return;
        }
    }
}

void
TcpMessageChannel::HandlePeerClose(Ptr<Socket>)
{
    Fail("peer closed the connection", true);
}

void
TcpMessageChannel::HandlePeerError(Ptr<Socket>)
{
    Fail("connection error", true);
}

void
TcpMessageChannel::Fail(const std::string& why, bool peerGone)
{
    if (m_closed)
    {
        return;
    }
    NS_LOG_INFO("channel failed: " << why);
    Close();
    NotifyError(why, peerGone);
}

bool
TcpMessageChannel::Detach()
{
    if (m_closed)
    {
        return false;
    }
    m_closed = true;
    m_queue.clear();
    if (m_socket)
    {
        m_socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
        m_socket->SetSendCallback(MakeNullCallback<void, Ptr<Socket>, uint32_t>());
        m_socket->SetCloseCallbacks(MakeNullCallback<void, Ptr<Socket>>(),
                                    MakeNullCallback<void, Ptr<Socket>>());
    }
    return true;
}

void
TcpMessageChannel::Close()
{
    if (Detach() && m_socket)
    {
        m_socket->Close();
    }
}

void
TcpMessageChannel::Abort()
{
    if (!Detach() || !m_socket)
    {
        return;
    }
    if (Ptr<TcpSocketBase> tcp = DynamicCast<TcpSocketBase>(m_socket))
    {
        TcpAbortAccess::Reset(*tcp);
    }
    else
    {
        m_socket->Close();
    }
}

void
TcpMessageChannel::DoDispose()
{
    Close();
    m_socket = nullptr;
    MessageChannel::DoDispose();
}

TypeId
TcpMessageTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpMessageTransport")
            .SetParent<MessageTransport>()
            .SetGroupName("Fedran")
            .AddConstructor<TcpMessageTransport>()
            .AddAttribute("ListenShards",
                          "Endpoint tables the listening node's TCP connections "
                          "are split over (TcpShardDemux); 1: ns-3's one table. "
                          "About one per 32 expected connections keeps the "
                          "per-packet lookup short; results do not depend on it.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&TcpMessageTransport::m_listenShards),
                          MakeUintegerChecker<uint32_t>(1));
    return tid;
}

void
TcpMessageTransport::Listen(Ptr<Node> node, uint16_t port, ChannelCallback onAccept)
{
    std::vector<Ptr<Socket>> sockets;
    if (m_listenShards > 1)
    {
        Ptr<TcpShardDemux> demux = TcpShardDemux::Install(node, m_listenShards);
        for (uint32_t k = 0; k < demux->GetShardCount(); ++k)
        {
            sockets.push_back(demux->GetShard(k)->CreateSocket());
        }
    }
    else
    {
        sockets.push_back(Socket::CreateSocket(node, TcpSocketFactory::GetTypeId()));
    }
    m_onAccept[node->GetId()] = onAccept;
    for (const Ptr<Socket>& socket : sockets)
    {
        if (socket->Bind(InetSocketAddress(Ipv4Address::GetAny(), port)) != 0 ||
            socket->Listen() != 0)
        {
            NS_FATAL_ERROR("cannot listen on port " << port);
        }
        socket->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                  MakeCallback(&TcpMessageTransport::HandleAccept, this));
        m_listeners.push_back(socket);
    }
}

void
TcpMessageTransport::HandleAccept(Ptr<Socket> socket, const Address&)
{
    Ptr<TcpMessageChannel> channel = CreateObject<TcpMessageChannel>();
    channel->Attach(socket);
    m_channels.push_back(channel);
    m_onAccept.at(socket->GetNode()->GetId())(channel);
}

void
TcpMessageTransport::Connect(Ptr<Node> node, const Address& server, ChannelCallback onConnected)
{
    Ptr<Socket> socket = Socket::CreateSocket(node, TcpSocketFactory::GetTypeId());
    socket->Bind();
    m_connecting[socket] = onConnected;
    socket->SetConnectCallback(MakeCallback(&TcpMessageTransport::HandleConnected, this),
                               MakeCallback(&TcpMessageTransport::HandleConnectFailed, this));
    socket->Connect(server);
}

void
TcpMessageTransport::HandleConnected(Ptr<Socket> socket)
{
    auto it = m_connecting.find(socket);
    NS_ASSERT(it != m_connecting.end());
    ChannelCallback onConnected = it->second;
    m_connecting.erase(it);
    socket->SetConnectCallback(MakeNullCallback<void, Ptr<Socket>>(),
                               MakeNullCallback<void, Ptr<Socket>>());
    Ptr<TcpMessageChannel> channel = CreateObject<TcpMessageChannel>();
    channel->Attach(socket);
    m_channels.push_back(channel);
    onConnected(channel);
}

void
TcpMessageTransport::HandleConnectFailed(Ptr<Socket> socket)
{
    // TCP gave up on its SYN retransmissions; the caller decides whether to try again.
    NS_LOG_WARN("connection from node " << socket->GetNode()->GetId() << " failed");
    auto it = m_connecting.find(socket);
    NS_ASSERT(it != m_connecting.end());
    ChannelCallback onConnected = it->second;
    m_connecting.erase(it);
    onConnected(nullptr);
}

void
TcpMessageTransport::DoDispose()
{
    for (auto& s : m_listeners)
    {
        s->Close();
    }
    m_listeners.clear();
    for (auto& channel : m_channels)
    {
        channel->Dispose();
    }
    m_channels.clear();
    m_connecting.clear();
    m_onAccept.clear();
    MessageTransport::DoDispose();
}

} // namespace ns3
