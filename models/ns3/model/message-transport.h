#ifndef FEDRAN_MODELS_NS3_MODEL_MESSAGE_TRANSPORT_H
#define FEDRAN_MODELS_NS3_MODEL_MESSAGE_TRANSPORT_H

// The one narrow interface through which FL messages cross the network. The applications only
// see "connect / accept a channel, send a frame's bytes, get whole frames back"; how the bytes
// travel (ns-3 TCP sockets today, a flow-level model later) lives behind it.
//
// Adding a transport is one file plus one line: a MessageTransport subclass with a TypeId, and
// its scenario name in kTransports in message-transport.cc ("network.transport").

#include "models/fl/update-frame.h"
#include "models/ns3/model/transport-topology.h"

#include <ns3/address.h>
#include <ns3/callback.h>
#include <ns3/node.h>
#include <ns3/nstime.h>
#include <ns3/object.h>
#include <ns3/ptr.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * What the sending endpoint itself can observe about one of its messages: when it handed the
 * message over and when the transport saw its last byte acknowledged by the peer (a real
 * client sees the same through its TCP stack, e.g. the send queue draining, TCP_INFO).
 */
struct TransferRecord
{
    uint64_t bytes = 0;
    Time handedOver;
    Time acknowledged;
    Time rtt; ///< the transport's smoothed RTT estimate then (zero if it has none)
};

/// When a received frame crossed the network: its first byte's arrival and its last's.
struct FrameReceipt
{
    Time firstByte;
    Time lastByte;
};

/// A bidirectional, reliable, ordered channel carrying fedran frames between two endpoints.
class MessageChannel : public Object
{
  public:
    static TypeId GetTypeId();

    /// Called, in sending order, when every byte of a message sent with Send was acknowledged.
    typedef Callback<void, Ptr<MessageChannel>, const TransferRecord&> DeliveredCallback;

    /// Called for every complete frame received on the channel, with when it arrived.
    typedef Callback<void, Ptr<MessageChannel>, const fedran::Frame&, const FrameReceipt&>
        FrameCallback;
    /// Called once when the channel fails (bad frame, connection error) or the peer closes.
    typedef Callback<void, Ptr<MessageChannel>, const std::string&> ErrorCallback;

    /// Queues a whole message (an encoded frame) for sending; returns at once.
    virtual void Send(std::vector<uint8_t> message) = 0;

    /// Stops sending and receiving. Queued bytes not yet handed to the network are dropped.
    virtual void Close() = 0;

    /// Tears the channel down at once, as when the endpoint goes away: nothing more is sent
    /// (not even bytes already handed to the network), and the peer learns of it.
    virtual void Abort() = 0;

    /// Whether the channel ended because the peer closed or reset it (rather than because of
    /// a bad frame); meaningful once the error callback has run.
    bool PeerGone() const
    {
        return m_peerGone;
    }

    void SetFrameCallback(FrameCallback cb);
    void SetErrorCallback(ErrorCallback cb);
    void SetDeliveredCallback(DeliveredCallback cb);

  protected:
    void DoDispose() override;
    void NotifyFrame(const fedran::Frame& frame, const FrameReceipt& receipt);
    void NotifyError(const std::string& why, bool peerGone = false);
    void NotifyDelivered(const TransferRecord& record);

  private:
    bool m_peerGone = false;
    FrameCallback m_frameCallback;
    ErrorCallback m_errorCallback;
    DeliveredCallback m_deliveredCallback;
};

/// Makes channels between nodes: the server listens, each client connects.
class MessageTransport : public Object
{
  public:
    static TypeId GetTypeId();

    typedef Callback<void, Ptr<MessageChannel>> ChannelCallback;

    /// Accepts channels on `node`; `onAccept` runs for each new one.
    virtual void Listen(Ptr<Node> node, uint16_t port, ChannelCallback onAccept) = 0;

    /// Opens a channel from `node` to `server`; `onConnected` runs when it can carry data, or
    /// with a null channel when the connection could not be made (the caller may try again).
    virtual void Connect(Ptr<Node> node, const Address& server, ChannelCallback onConnected) = 0;

    /// As Connect, from an endpoint of the topology that has no node of its own (a client
    /// on a stated link, kStatedEndpointBase + its index); only a transport that carries no
    /// packets can (the default aborts).
    virtual void ConnectEndpoint(uint32_t endpoint,
                                 const Address& server,
                                 ChannelCallback onConnected);

    /// Whether the bytes cross the network as ns-3 packets through the link devices (so that
    /// device traces, pcap files, FlowMonitor and packet background traffic see them).
    virtual bool CarriesPackets() const
    {
        return true;
    }

    /// The network the transport's channels cross, before any Listen or Connect; a transport
    /// that carries packets ignores it (ns-3 routing finds the way).
    virtual void SetTopology(const TransportTopology& /* topology */)
    {
    }

    /// Byte counts of the links, for a transport that does not carry packets; nullptr when
    /// the devices' traces count the bytes.
    virtual const TransportLinkCounters* GetLinkCounters() const
    {
        return nullptr;
    }

    /// Fixes the transport's own random streams (background processes); returns streams used.
    virtual int64_t AssignStreams(int64_t /* stream */)
    {
        return 0;
    }
};

/// The transport a scenario names ("network.transport"); throws std::invalid_argument for an
/// unknown name.
Ptr<MessageTransport> CreateMessageTransport(const std::string& name);

/// Every name CreateMessageTransport accepts.
std::vector<std::string> MessageTransportNames();

} // namespace ns3

#endif
