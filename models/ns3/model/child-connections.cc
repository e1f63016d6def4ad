#include "models/ns3/model/child-connections.h"

#include <ns3/log.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChildConnections");

ChildConnections::ChildConnections(std::string name, Handlers handlers)
    : m_name(std::move(name))
    , m_handlers(std::move(handlers))
{
}

void
ChildConnections::Accept(Ptr<MessageChannel> channel)
{
    channel->SetFrameCallback(MakeCallback(&ChildConnections::HandleFrame, this));
    channel->SetErrorCallback(MakeCallback(&ChildConnections::HandleError, this));
}

void
ChildConnections::Send(uint32_t child, std::vector<uint8_t> frame)
{
    m_channels.at(child)->Send(std::move(frame));
}

void
ChildConnections::CloseAll()
{
    for (auto& [child, channel] : m_channels)
    {
        channel->Close();
    }
}

void
ChildConnections::Clear()
{
    m_channels.clear();
    m_childOfChannel.clear();
}

void
ChildConnections::HandleFrame(Ptr<MessageChannel> channel,
                              const fedran::Frame& frame,
                              const FrameReceipt&)
{
    if (frame.corrupt)
    {
        // Damaged in flight: the header's client is not to be trusted, the connection's is.
        auto it = m_childOfChannel.find(PeekPointer(channel));
        if (it == m_childOfChannel.end() || frame.header.type == fedran::FrameType::Join)
        {
            HandleError(channel, "a damaged frame (CRC mismatch) before the join");
            return;
        }
        fedran::Frame damaged = frame;
        damaged.header.client = it->second;
        if (auto error = m_handlers.frame(damaged))
        {
            HandleError(channel, *error);
        }
        return;
    }
    if (frame.header.type == fedran::FrameType::Join)
    {
        HandleJoin(channel, frame.header.client);
        return;
    }
    if (auto error = m_handlers.frame(frame))
    {
        HandleError(channel, *error);
    }
}

void
ChildConnections::HandleJoin(Ptr<MessageChannel> channel, uint32_t child)
{
    if (!m_handlers.admits(child))
    {
        NS_LOG_WARN(m_name << ": rejecting join from unknown child " << child);
        channel->Close();
        return;
    }
    auto previous = m_channels.find(child);
    if (previous != m_channels.end())
    {
        // A reconnection whose old connection's end has not arrived yet: that connection is
        // dead (the owner reports the old session dropped when the child joins again).
        previous->second->Close();
        m_childOfChannel.erase(PeekPointer(previous->second));
    }
    m_channels[child] = channel;
    m_childOfChannel[PeekPointer(channel)] = child;
    m_handlers.joined(child);
}

void
ChildConnections::HandleError(Ptr<MessageChannel> channel, const std::string& why)
{
    channel->Close();
    auto it = m_childOfChannel.find(PeekPointer(channel));
    if (it == m_childOfChannel.end())
    {
        return; // never joined, or replaced by a newer connection
    }
    const uint32_t child = it->second;
    m_childOfChannel.erase(it);
    m_channels.erase(child);
    m_handlers.lost(child,
                    channel->PeerGone() ? fedran::UpdateFate::Dropped : fedran::UpdateFate::Failed,
                    why);
}

} // namespace ns3
