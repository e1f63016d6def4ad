#include "models/ns3/model/flow-message-transport.h"

#include "models/ns3/model/flow-tcp-settings.h"

#include <ns3/abort.h>
#include <ns3/boolean.h>
#include <ns3/double.h>
#include <ns3/inet-socket-address.h>
#include <ns3/ipv4.h>
#include <ns3/log.h>
#include <ns3/node-list.h>
#include <ns3/nstime.h>
#include <ns3/simulator.h>
#include <ns3/uinteger.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowMessageTransport");
NS_OBJECT_ENSURE_REGISTERED(FlowMessageTransport);

namespace
{

/// SYN retransmissions, as ns-3 TCP makes them (TcpSocket ConnCount 6, ConnTimeout 3 s,
/// doubling): a client whose path is down when it connects tries again at 3, 9, 21 ... s.
constexpr uint32_t kSynRetries = 6;
constexpr double kSynTimeoutS = 3.0;

} // namespace

TypeId
FlowMessageTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlowMessageTransport")
                            .SetParent<MessageTransport>()
                            .SetGroupName("Fedran")
                            .AddConstructor<FlowMessageTransport>()
                            .AddAttribute("PortModel",
                                          "Run transfers through a drop-tail port that can "
                                          "overflow in its packet-level micro-simulation "
                                          "(network.flow_ports \"packet\"); false: fluid.",
                                          BooleanValue(false),
                                          MakeBooleanAccessor(&FlowMessageTransport::m_portModel),
                                          MakeBooleanChecker());
    return tid;
}

void
FlowMessageTransport::SetTopology(const TransportTopology& topology)
{
    // The packet mode's TCP settings (ConfigureBackhaulTcp sets them as defaults).
    m_tcp = FlowTcpFromDefaults();
    m_network = std::make_unique<FlowNetwork>(topology, m_tcp);
    if (m_portModel)
    {
        m_network->SetPortModel(MicroTcpFromDefaults(m_tcp));
    }
}

const TransportLinkCounters*
FlowMessageTransport::GetLinkCounters() const
{
    return m_network.get();
}

int64_t
FlowMessageTransport::AssignStreams(int64_t stream)
{
    return m_network ? m_network->AssignStreams(stream) : 0;
}

void
FlowMessageTransport::Listen(Ptr<Node> node, uint16_t, ChannelCallback onAccept)
{
    m_listeners.push_back({node->GetId(), onAccept});
}

uint32_t
FlowMessageTransport::ServerAt(const Address& address) const
{
    const Ipv4Address ip = InetSocketAddress::ConvertFrom(address).GetIpv4();
    for (const Listener& listener : m_listeners)
    {
        Ptr<Ipv4> ipv4 = NodeList::GetNode(listener.node)->GetObject<Ipv4>();
        for (uint32_t i = 0; ipv4 && i < ipv4->GetNInterfaces(); ++i)
        {
            for (uint32_t a = 0; a < ipv4->GetNAddresses(i); ++a)
            {
                if (ipv4->GetAddress(i, a).GetLocal() == ip)
                {
                    return listener.node;
                }
            }
        }
    }
    NS_FATAL_ERROR("flow transport: nothing listens at " << ip);
    return 0;
}

void
FlowMessageTransport::Connect(Ptr<Node> node, const Address& server, ChannelCallback onConnected)
{
    ConnectEndpoint(node->GetId(), server, onConnected);
}

void
FlowMessageTransport::ConnectEndpoint(uint32_t endpoint,
                                      const Address& server,
                                      ChannelCallback onConnected)
{
    NS_ABORT_MSG_UNLESS(m_network, "flow transport: SetTopology was not called");
    TryConnect(endpoint, ServerAt(server), onConnected, 0);
}

void
FlowMessageTransport::TryConnect(uint32_t node,
                                 uint32_t server,
                                 ChannelCallback onConnected,
                                 uint32_t attempt)
{
    const FlowNetwork::Path path = m_network->PathTo(node, server);
    NS_ABORT_MSG_IF(path.empty(), "flow transport: node " << node << " is not below the server");
    if (!m_network->Up(path))
    {
        // The SYN is lost on a link that is out; TCP tries again after its timeout.
        if (attempt >= kSynRetries)
        {
            NS_LOG_WARN("connection from node " << node << " failed");
            onConnected(nullptr);
            return;
        }
        Simulator::Schedule(Seconds(kSynTimeoutS * (1u << attempt)),
                            &FlowMessageTransport::TryConnect,
                            this,
                            node,
                            server,
                            onConnected,
                            attempt + 1);
        return;
    }
    m_network->CountHandshake(path);
    // SYN, SYN-ACK: the client can send one handshake round trip after it connected.
    const double rtt = fedran::HandshakeRttS(m_network->Hops(path, LinkDirection::Uplink));
    Simulator::Schedule(Seconds(rtt),
                        &FlowMessageTransport::Established,
                        this,
                        node,
                        server,
                        onConnected);
}

void
FlowMessageTransport::Established(uint32_t node, uint32_t server, ChannelCallback onConnected)
{
    const uint64_t id = m_nextConnection++;
    Connection& connection = m_connections[id];
    connection.path = m_network->PathTo(node, server);
    connection.rtt =
        Seconds(fedran::PathRttS(m_network->Hops(connection.path, LinkDirection::Uplink), m_tcp));
    for (int side = 0; side < 2; ++side)
    {
        connection.end[side] = CreateObject<FlowMessageChannel>();
        connection.end[side]->m_transport = this;
        connection.end[side]->m_connection = id;
        connection.end[side]->m_side = side;
        connection.stream[side].cwnd = m_tcp.initialCwnd;
    }
    // The server has the connection by the time the client's first bytes can reach it.
    for (const Listener& listener : m_listeners)
    {
        if (listener.node == server)
        {
            listener.onAccept(connection.end[1]);
        }
    }
    onConnected(connection.end[0]);
}

void
FlowMessageTransport::Send(uint64_t id, int side, std::vector<uint8_t> message)
{
    Connection& connection = m_connections.at(id);
    if (!connection.open[side] || message.empty())
    {
        return;
    }
    Stream& stream = connection.stream[side];
    stream.queue.push_back({std::move(message), Simulator::Now()});
    if (stream.transfer != 0 || stream.startDeferred)
    {
        return;
    }
    if (m_delivering != 0 && m_delivering != id)
    {
        stream.startDeferred = true;
        Simulator::Schedule(TimeStep(1), &FlowMessageTransport::StartDeferred, this, id, side);
        return;
    }
    StartNext(id, side);
}

void
FlowMessageTransport::StartDeferred(uint64_t id, int side)
{
    auto it = m_connections.find(id);
    if (it == m_connections.end())
    {
        return;
    }
    Stream& stream = it->second.stream[side];
    stream.startDeferred = false;
    if (stream.transfer == 0)
    {
        StartNext(id, side);
    }
}

void
FlowMessageTransport::StartNext(uint64_t id, int side)
{
    Connection& connection = m_connections.at(id);
    Stream& stream = connection.stream[side];
    if (stream.queue.empty())
    {
        if (stream.finPending)
        {
            // The FIN follows the last byte.
            stream.finPending = false;
            Simulator::Schedule(connection.rtt / 2,
                                &FlowMessageTransport::PeerEnded,
                                this,
                                id,
                                1 - side,
                                false);
        }
        return;
    }
    auto message = std::make_shared<Message>(std::move(stream.queue.front()));
    stream.queue.pop_front();
    const Time started = Simulator::Now();
    const LinkDirection direction = side == 0 ? LinkDirection::Uplink : LinkDirection::Downlink;
    stream.transfer = m_network->Start(
        connection.path,
        direction,
        message->bytes.size(),
        &stream.cwnd,
        [this, id, side, message, started](Time arrival, Time ack) {
            Sent(id, side, message, started, arrival, ack);
        },
        &stream.ssthresh,
        &stream.rtt,
        id);
}

void
FlowMessageTransport::Sent(uint64_t id,
                           int side,
                           std::shared_ptr<Message> message,
                           Time started,
                           Time arrival,
                           Time ackDelay)
{
    Connection& connection = m_connections.at(id);
    connection.stream[side].transfer = 0;
    // The first byte left when the transfer started and took the path's latency.
    const Time firstByte = started + (arrival - Simulator::Now());
    Simulator::Schedule(arrival - Simulator::Now(),
                        &FlowMessageTransport::Arrive,
                        this,
                        id,
                        side,
                        message,
                        firstByte);
    Simulator::Schedule(arrival + ackDelay - Simulator::Now(),
                        &FlowMessageTransport::Acknowledged,
                        this,
                        id,
                        side,
                        static_cast<uint64_t>(message->bytes.size()),
                        message->handedOver);
    // The stream goes on with the next message at once; its window stays open.
    StartNext(id, side);
}

void
FlowMessageTransport::Arrive(uint64_t id,
                             int side,
                             std::shared_ptr<Message> message,
                             Time firstByte)
{
    Connection& connection = m_connections.at(id);
    const int receiver = 1 - side;
    if (!connection.open[receiver])
    {
        return;
    }
    fedran::FrameReassembler& reassembler = connection.stream[side].reassembler;
    reassembler.Append(message->bytes);
    message->bytes.clear();
    Ptr<FlowMessageChannel> channel = connection.end[receiver];
    const uint64_t outer = m_delivering;
    m_delivering = id;
    try
    {
        while (auto frame = reassembler.Next())
        {
            frame->firstByteS = firstByte.GetSeconds();
            channel->NotifyFrame(*frame, FrameReceipt{firstByte, Simulator::Now()});
            if (!m_connections.at(id).open[receiver])
            {
                m_delivering = outer;
                return;
            }
        }
    }
    catch (const fedran::FrameError& e)
    {
        m_delivering = outer;
        Close(id, receiver);
        channel->NotifyError(std::string("bad frame: ") + e.what(), false);
        return;
    }
    m_delivering = outer;
}

void
FlowMessageTransport::Acknowledged(uint64_t id, int side, uint64_t bytes, Time handedOver)
{
    Connection& connection = m_connections.at(id);
    if (!connection.open[side])
    {
        return;
    }
    TransferRecord record;
    record.bytes = bytes;
    record.handedOver = handedOver;
    record.acknowledged = Simulator::Now();
    record.rtt = connection.rtt;
    connection.end[side]->NotifyDelivered(record);
}

void
FlowMessageTransport::Close(uint64_t id, int side)
{
    Connection& connection = m_connections.at(id);
    if (!connection.open[side])
    {
        return;
    }
    connection.open[side] = false;
    Stream& stream = connection.stream[side];
    // What was not handed over yet is dropped, as a socket's Close; messages waiting their
    // time step to start were handed over.
    if (!stream.startDeferred)
    {
        stream.queue.clear();
    }
    stream.finPending = true;
    if (stream.transfer == 0 && !stream.startDeferred)
    {
        StartNext(id, side);
    }
}

void
FlowMessageTransport::Abort(uint64_t id, int side)
{
    Connection& connection = m_connections.at(id);
    if (!connection.open[side])
    {
        return;
    }
    connection.open[side] = false;
    // A reset: nothing more crosses in either direction.
    for (Stream& stream : connection.stream)
    {
        stream.queue.clear();
        stream.finPending = false;
        if (stream.transfer != 0)
        {
            m_network->Cancel(stream.transfer);
            stream.transfer = 0;
        }
    }
    Simulator::Schedule(connection.rtt / 2,
                        &FlowMessageTransport::PeerEnded,
                        this,
                        id,
                        1 - side,
                        true);
}

void
FlowMessageTransport::PeerEnded(uint64_t id, int side, bool reset)
{
    Connection& connection = m_connections.at(id);
    if (!connection.open[side])
    {
        return;
    }
    connection.open[side] = false;
    Stream& stream = connection.stream[side];
    stream.queue.clear();
    if (stream.transfer != 0)
    {
        m_network->Cancel(stream.transfer);
        stream.transfer = 0;
    }
    connection.end[side]->NotifyError(reset ? "connection error" : "peer closed the connection",
                                      true);
}

void
FlowMessageTransport::DoDispose()
{
    for (auto& [id, connection] : m_connections)
    {
        for (Ptr<FlowMessageChannel>& end : connection.end)
        {
            end->m_transport = nullptr;
            end->Dispose();
        }
    }
    m_connections.clear();
    m_network.reset();
    m_listeners.clear();
    MessageTransport::DoDispose();
}

} // namespace ns3
