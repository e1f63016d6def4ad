// What FlowNetwork puts on the links in place of the devices' byte counts: the data the fluid
// carried, the ACKs and handshakes it counts but does not queue, and the clients' wire bytes
// (links.csv, rounds.csv's *_wire_bytes).

#include "models/flow/tcp-flow-model.h"
#include "models/ns3/model/flow-network.h"

#include <cmath>

namespace ns3
{

namespace
{

/// The handshake's final ACK on the wire (a SYN's is fedran::kSynWireBytes).
constexpr double kAckWireBytes = 54;

} // namespace

void
FlowNetwork::CountAcks(const Transfer& transfer, double fraction)
{
    const LinkDirection reverse = transfer.direction == LinkDirection::Uplink
                                      ? LinkDirection::Downlink
                                      : LinkDirection::Uplink;
    const double acks = fedran::AckWireBytes(transfer.payloadBytes, m_tcp) * fraction;
    for (uint32_t l : transfer.path)
    {
        m_ackBytes[FluidLink(l, reverse)] += acks;
    }
    m_clientWire[reverse == LinkDirection::Uplink ? 0 : 1] += acks;
}

void
FlowNetwork::CountHandshake(const Path& path)
{
    for (uint32_t l : path)
    {
        m_ackBytes[FluidLink(l, LinkDirection::Uplink)] += fedran::kSynWireBytes + kAckWireBytes;
        m_ackBytes[FluidLink(l, LinkDirection::Downlink)] += fedran::kSynWireBytes;
    }
    m_clientWire[0] += fedran::kSynWireBytes + kAckWireBytes;
    m_clientWire[1] += fedran::kSynWireBytes;
}

uint64_t
FlowNetwork::DeliveredBytes(const InstalledLink* link, LinkDirection direction) const
{
    auto it = m_indexOf.find(link);
    if (it == m_indexOf.end())
    {
        return 0;
    }
    const uint32_t f = FluidLink(it->second, direction);
    return static_cast<uint64_t>(std::llround(m_fluid.CarriedBits(f, Now()) / 8.0 + m_ackBytes[f]));
}

uint64_t
FlowNetwork::ClientWireBytes(LinkDirection direction) const
{
    const int d = direction == LinkDirection::Uplink ? 0 : 1;
    double bytes = m_clientWire[d];
    for (const auto& [handle, transfer] : m_transfers)
    {
        if (transfer.inFluid && transfer.direction == direction)
        {
            bytes += (transfer.wireBits - m_fluid.RemainingBits(transfer.flow, Now())) / 8.0;
        }
    }
    return static_cast<uint64_t>(std::llround(bytes));
}

} // namespace ns3
