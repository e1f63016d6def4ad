#ifndef FEDRAN_MODELS_NS3_MODEL_CHILD_CONNECTIONS_H
#define FEDRAN_MODELS_NS3_MODEL_CHILD_CONNECTIONS_H

#include "models/fl/trace-records.h"
#include "models/fl/update-frame.h"
#include "models/ns3/model/message-transport.h"

#include <ns3/ptr.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * The channels of an endpoint's children, by the id each joined with: what FlServerApp keeps
 * of its clients and FlEdgeApp of the sites and aggregators behind it. It admits joins,
 * replaces the connection of a child that reconnects, hands every other frame on tagged with
 * the child it came from, and reports a child whose connection failed or ended.
 *
 * A frame that failed its CRC check is attributed to the connection it arrived on, never to
 * the client id in its header: any of its bytes may be damaged, the header's included, while
 * the connection's identity was settled by an intact Join. Such a frame is handed on (the
 * round records a failed update and the connection stays up) if the connection has joined; a
 * damaged Join, or a damaged frame before the join, names nobody and ends the connection.
 */
class ChildConnections
{
  public:
    /// What the owner decides: whether an id may join, and what joins, frames and losses mean.
    struct Handlers
    {
        std::function<bool(uint32_t child)> admits;
        std::function<void(uint32_t child)> joined;
        /// A frame from a joined child (its header's client is the child's); an error message
        /// ends that child's connection.
        std::function<std::optional<std::string>(const fedran::Frame& frame)> frame;
        std::function<void(uint32_t child, fedran::UpdateFate fate, const std::string& why)> lost;
    };

    /// `name` prefixes log messages ("server", "hub 3").
    ChildConnections(std::string name, Handlers handlers);

    /// Takes a newly accepted channel (the transport's accept callback).
    void Accept(Ptr<MessageChannel> channel);
    /// Queues `frame` on a joined child's channel.
    void Send(uint32_t child, std::vector<uint8_t> frame);
    /// Closes every child's channel (the application stops).
    void CloseAll();
    /// Forgets every channel (the application is disposed).
    void Clear();

  private:
    void HandleFrame(Ptr<MessageChannel> channel,
                     const fedran::Frame& frame,
                     const FrameReceipt& receipt);
    void HandleJoin(Ptr<MessageChannel> channel, uint32_t child);
    void HandleError(Ptr<MessageChannel> channel, const std::string& why);

    std::string m_name;
    Handlers m_handlers;
    std::map<uint32_t, Ptr<MessageChannel>> m_channels;   ///< joined children's channels
    std::map<MessageChannel*, uint32_t> m_childOfChannel; ///< the reverse of m_channels
};

} // namespace ns3

#endif
