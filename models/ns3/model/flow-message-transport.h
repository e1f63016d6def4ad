#ifndef FEDRAN_MODELS_NS3_MODEL_FLOW_MESSAGE_TRANSPORT_H
#define FEDRAN_MODELS_NS3_MODEL_FLOW_MESSAGE_TRANSPORT_H

// network.transport "flow": messages cross the topology as flows of a fluid model
// (models/flow/) instead of ns-3 packets. The applications, frames, codecs and decoding are
// the packet mode's; a channel is a TCP connection's two byte streams, each sending its
// messages one after the other as TCP flows. docs/flow-validation.md compares it with "tcp".

#include "models/ns3/model/flow-network.h"
#include "models/ns3/model/message-transport.h"

#include <list>
#include <map>
#include <memory>

namespace ns3
{

class FlowMessageTransport;

/// One end of a flow-level connection.
class FlowMessageChannel : public MessageChannel
{
  public:
    static TypeId GetTypeId();

    void Send(std::vector<uint8_t> message) override;
    void Close() override;
    void Abort() override;

  private:
    friend class FlowMessageTransport;

    FlowMessageTransport* m_transport = nullptr;
    uint64_t m_connection = 0;
    int m_side = 0; ///< 0: the client's end, 1: the server's
};

/// Connections between clients and the server over a FlowNetwork of the topology.
class FlowMessageTransport : public MessageTransport
{
  public:
    static TypeId GetTypeId();

    void Listen(Ptr<Node> node, uint16_t port, ChannelCallback onAccept) override;
    void Connect(Ptr<Node> node, const Address& server, ChannelCallback onConnected) override;
    void ConnectEndpoint(uint32_t endpoint,
                         const Address& server,
                         ChannelCallback onConnected) override;
    bool CarriesPackets() const override
    {
        return false;
    }
    void SetTopology(const TransportTopology& topology) override;
    const TransportLinkCounters* GetLinkCounters() const override;
    int64_t AssignStreams(int64_t stream) override;

  protected:
    void DoDispose() override;

  private:
    friend class FlowMessageChannel;

    struct Message
    {
        std::vector<uint8_t> bytes;
        Time handedOver;
    };

    /// One direction of a connection: side `from`'s stream to the other side.
    struct Stream
    {
        /// A list, not a deque: an empty deque allocates 576 bytes, and every joined site's
        /// connection holds two streams, mostly idle.
        std::list<Message> queue;
        uint64_t transfer = 0; ///< the flow of the message being sent; 0: idle
        uint64_t cwnd = 0;     ///< segments, kept between messages as TCP keeps its window
        bool finPending = false;
        /// Its first message waits one time step to start (m_delivering): handed over all the
        /// same, so a Close meanwhile keeps it.
        bool startDeferred = false;
        /// Segments (0: none yet), kept as TCP keeps it; only a port micro-simulation sets it.
        uint32_t ssthresh = 0;
        fedran::MicroRttMemory rtt; ///< as TCP keeps it; only a port micro-simulation sets it
        fedran::FrameReassembler reassembler;
    };

    struct Connection
    {
        FlowNetwork::Path path;
        Ptr<FlowMessageChannel> end[2];
        bool open[2] = {true, true};
        Stream stream[2]; ///< [0]: client to server (uplink), [1]: server to client
        Time rtt;
    };

    struct Listener
    {
        uint32_t node;
        ChannelCallback onAccept;
    };

    void TryConnect(uint32_t node, uint32_t server, ChannelCallback onConnected, uint32_t attempt);
    void Established(uint32_t node, uint32_t server, ChannelCallback onConnected);
    void Send(uint64_t connection, int side, std::vector<uint8_t> message);
    void Close(uint64_t connection, int side);
    void Abort(uint64_t connection, int side);
    void StartNext(uint64_t connection, int side);
    void StartDeferred(uint64_t connection, int side);
    void Sent(uint64_t connection,
              int side,
              std::shared_ptr<Message> message,
              Time started,
              Time arrival,
              Time ackDelay);
    void Arrive(uint64_t connection, int side, std::shared_ptr<Message> message, Time firstByte);
    void Acknowledged(uint64_t connection, int side, uint64_t bytes, Time handedOver);
    void PeerEnded(uint64_t connection, int side, bool reset);
    /// The server node listening at `address`; throws if none.
    uint32_t ServerAt(const Address& address) const;

    fedran::TcpFlowSettings m_tcp;
    /// Attribute PortModel: overflowing drop-tail ports run their packet-level
    /// micro-simulation (docs/flow-validation.md); false keeps every port fluid.
    bool m_portModel = false;
    std::unique_ptr<FlowNetwork> m_network;
    std::vector<Listener> m_listeners;
    std::map<uint64_t, Connection> m_connections;
    uint64_t m_nextConnection = 1;
    /// The connection whose message the receiving app is handed now (0: none). ns-3's TCP
    /// sends what an app hands it one time step later (TcpSocketBase::Send), except on the
    /// socket that is processing the segment, which calls SendPendingData when it is done
    /// (ReceivedAck): the download to the client whose join completed a round leaves first.
    uint64_t m_delivering = 0;
};

} // namespace ns3

#endif
