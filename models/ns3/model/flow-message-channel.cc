// FlowMessageChannel: one end of a flow-transport connection, handing its calls to the
// transport that owns the connection (flow-message-transport.h).

#include "models/ns3/model/flow-message-transport.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FlowMessageChannel);

TypeId
FlowMessageChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlowMessageChannel")
                            .SetParent<MessageChannel>()
                            .SetGroupName("Fedran")
                            .AddConstructor<FlowMessageChannel>();
    return tid;
}

void
FlowMessageChannel::Send(std::vector<uint8_t> message)
{
    if (m_transport)
    {
        m_transport->Send(m_connection, m_side, std::move(message));
    }
}

void
FlowMessageChannel::Close()
{
    if (m_transport)
    {
        m_transport->Close(m_connection, m_side);
    }
}

void
FlowMessageChannel::Abort()
{
    if (m_transport)
    {
        m_transport->Abort(m_connection, m_side);
    }
}

} // namespace ns3
