#include "models/ns3/model/message-transport.h"

#include "models/link-config/link-types.h"

#include <ns3/fatal-error.h>
#include <ns3/object-factory.h>

#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MessageChannel);
NS_OBJECT_ENSURE_REGISTERED(MessageTransport);

TypeId
MessageChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MessageChannel").SetParent<Object>().SetGroupName("Fedran");
    return tid;
}

void
MessageChannel::SetFrameCallback(FrameCallback cb)
{
    m_frameCallback = cb;
}

void
MessageChannel::SetErrorCallback(ErrorCallback cb)
{
    m_errorCallback = cb;
}

void
MessageChannel::SetDeliveredCallback(DeliveredCallback cb)
{
    m_deliveredCallback = cb;
}

void
MessageChannel::NotifyDelivered(const TransferRecord& record)
{
    if (!m_deliveredCallback.IsNull())
    {
        m_deliveredCallback(this, record);
    }
}

void
MessageChannel::DoDispose()
{
    m_deliveredCallback = MakeNullCallback<void, Ptr<MessageChannel>, const TransferRecord&>();
    m_frameCallback =
        MakeNullCallback<void, Ptr<MessageChannel>, const fedran::Frame&, const FrameReceipt&>();
    m_errorCallback = MakeNullCallback<void, Ptr<MessageChannel>, const std::string&>();
    Object::DoDispose();
}

void
MessageChannel::NotifyFrame(const fedran::Frame& frame, const FrameReceipt& receipt)
{
    if (!m_frameCallback.IsNull())
    {
        m_frameCallback(this, frame, receipt);
    }
}

void
MessageChannel::NotifyError(const std::string& why, bool peerGone)
{
    m_peerGone = peerGone;
    if (!m_errorCallback.IsNull())
    {
        m_errorCallback(this, why);
    }
}

TypeId
MessageTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MessageTransport").SetParent<Object>().SetGroupName("Fedran");
    return tid;
}

void
MessageTransport::ConnectEndpoint(uint32_t endpoint, const Address&, ChannelCallback)
{
    NS_FATAL_ERROR("transport " << GetInstanceTypeId().GetName() << " needs a node for endpoint "
                                << endpoint << ": it carries packets");
}

Ptr<MessageTransport>
CreateMessageTransport(const std::string& name)
{
    // The registry is the table of transports in models/link-config/link-types.cc.
    if (const fedran::TransportTraits* transport = fedran::FindTransport(name))
    {
        ObjectFactory factory(std::string(transport->typeId));
        return factory.Create<MessageTransport>();
    }
    throw std::invalid_argument("unknown message transport \"" + name + "\"");
}

std::vector<std::string>
MessageTransportNames()
{
    std::vector<std::string> names;
    for (std::string_view name : fedran::TransportNames())
    {
        names.emplace_back(name);
    }
    return names;
}

} // namespace ns3
