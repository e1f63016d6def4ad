#ifndef FEDRAN_MODELS_NS3_MODEL_TCP_MESSAGE_TRANSPORT_H
#define FEDRAN_MODELS_NS3_MODEL_TCP_MESSAGE_TRANSPORT_H

#include "models/fl/update-frame.h"
#include "models/ns3/model/message-transport.h"

#include <ns3/socket.h>

#include <deque>
#include <map>

namespace ns3
{

/**
 * A MessageChannel over one ns-3 TCP socket. The frame bytes themselves are the packet
 * payload: TCP segments, retransmits and reorders them, and the receiver reassembles frames
 * from whatever pieces arrive.
 */
class TcpMessageChannel : public MessageChannel
{
  public:
    static TypeId GetTypeId();

    /// Takes over a connected socket.
    void Attach(Ptr<Socket> socket);

    void Send(std::vector<uint8_t> message) override;
    void Close() override;
    /// Sends a TCP reset and releases the connection: the socket's unsent and unacknowledged
    /// bytes are never transmitted.
    void Abort() override;

  protected:
    void DoDispose() override;

  private:
    void HandleRead(Ptr<Socket> socket);
    void HandleSendSpace(Ptr<Socket> socket, uint32_t available);
    void HandlePeerClose(Ptr<Socket> socket);
    void HandlePeerError(Ptr<Socket> socket);
    /// Hands queued bytes to the socket as far as its send buffer allows.
    void TrySend();
    void Fail(const std::string& why, bool peerGone);
    /// Stops delivering callbacks from the socket; true if the channel was still open.
    bool Detach();
    /// Reports the messages whose last byte TCP no longer holds (acknowledged by the peer).
    void CheckDelivered();
    void HandleRtt(Time oldRtt, Time newRtt);

    Ptr<Socket> m_socket;
    std::deque<std::vector<uint8_t>> m_queue; ///< messages not yet fully handed to TCP
    size_t m_frontSent = 0;                   ///< bytes of m_queue.front() already handed over
    fedran::FrameReassembler m_reassembler;
    std::vector<uint8_t> m_readBuffer;
    bool m_closed = false;

    /// A message sent but not yet reported delivered: its end as a stream offset.
    struct InFlight
    {
        uint64_t end;
        uint64_t bytes;
        Time handedOver;
    };

    std::deque<InFlight> m_inFlight;
    uint64_t m_queuedBytes = 0; ///< stream bytes passed to Send
    uint64_t m_handedBytes = 0; ///< stream bytes passed to the socket
    uint32_t m_txCapacity = 0;  ///< the socket's send buffer, measured empty at Attach
    Time m_rtt;
    Time m_frameFirstByte; ///< arrival of the first byte of the frame being reassembled
};

/**
 * Creates TcpMessageChannels: a listening socket on the server, one connection per client.
 * With the attribute ListenShards S > 1 the listening node's TCP endpoints are split over S
 * endpoint tables (TcpShardDemux) with a listening socket in each, so that a server with
 * many clients connected pays O(clients / S) per packet instead of O(clients).
 */
class TcpMessageTransport : public MessageTransport
{
  public:
    static TypeId GetTypeId();

    void Listen(Ptr<Node> node, uint16_t port, ChannelCallback onAccept) override;
    void Connect(Ptr<Node> node, const Address& server, ChannelCallback onConnected) override;

  protected:
    void DoDispose() override;

  private:
    void HandleAccept(Ptr<Socket> socket, const Address& from);
    void HandleConnected(Ptr<Socket> socket);
    void HandleConnectFailed(Ptr<Socket> socket);

    /// What to call when a listening socket accepts, keyed by the listening socket's node.
    std::map<uint32_t, ChannelCallback> m_onAccept;
    /// Connections in progress and what to call when each is up.
    std::map<Ptr<Socket>, ChannelCallback> m_connecting;
    std::vector<Ptr<Socket>> m_listeners;
    uint32_t m_listenShards = 1;
    /// Every channel made here: the sockets call back into them, so they live as long as
    /// the transport, whether or not an application still holds them.
    std::vector<Ptr<TcpMessageChannel>> m_channels;
};

} // namespace ns3

#endif
