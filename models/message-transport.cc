#include "models/message-transport.h"

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
    m_frameCallback = MakeNullCallback<void, Ptr<MessageChannel>, const fedran::Frame&>();
    m_errorCallback = MakeNullCallback<void, Ptr<MessageChannel>, const std::string&>();
    Object::DoDispose();
}

void
MessageChannel::NotifyFrame(const fedran::Frame& frame)
{
    if (!m_frameCallback.IsNull())
    {
        m_frameCallback(this, frame);
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

} // namespace ns3
