#include "models/ns3/model/background-source.h"

#include <ns3/double.h>
#include <ns3/packet.h>
#include <ns3/simulator.h>
#include <ns3/udp-socket-factory.h>
#include <ns3/uinteger.h>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(BackgroundTag);
NS_OBJECT_ENSURE_REGISTERED(BackgroundSource);

TypeId
BackgroundTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::BackgroundTag")
                            .SetParent<Tag>()
                            .SetGroupName("Fedran")
                            .AddConstructor<BackgroundTag>();
    return tid;
}

TypeId
BackgroundTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
BackgroundTag::GetSerializedSize() const
{
    return 1; // the mark is the tag's presence; one byte keeps the tag buffer non-empty
}

void
BackgroundTag::Serialize(TagBuffer buffer) const
{
    buffer.WriteU8(0);
}

void
BackgroundTag::Deserialize(TagBuffer buffer)
{
    buffer.ReadU8();
}

void
BackgroundTag::Print(std::ostream& os) const
{
    os << "background";
}

bool
BackgroundTag::IsBackground(Ptr<const Packet> packet)
{
    BackgroundTag tag;
    return packet->PeekPacketTag(tag);
}

TypeId
BackgroundSource::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::BackgroundSource")
            .SetParent<Application>()
            .SetGroupName("Fedran")
            .AddConstructor<BackgroundSource>()
            .AddAttribute("Remote",
                          "Where the UDP packets go (address and port).",
                          AddressValue(),
                          MakeAddressAccessor(&BackgroundSource::m_remote),
                          MakeAddressChecker())
            .AddAttribute("PacketSize",
                          "UDP payload of each packet, in bytes.",
                          UintegerValue(1400),
                          MakeUintegerAccessor(&BackgroundSource::m_packetSize),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Interval",
                          "Time between packets while on.",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&BackgroundSource::m_interval),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("MeanOnTime",
                          "Mean length of an on period.",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&BackgroundSource::m_meanOn),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("MeanOffTime",
                          "Mean length of an off period; zero: always on (constant rate).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&BackgroundSource::m_meanOff),
                          MakeTimeChecker(Seconds(0)))
            .AddTraceSource("Tx",
                            "A background packet is handed to UDP.",
                            MakeTraceSourceAccessor(&BackgroundSource::m_txTrace),
                            "ns3::Packet::TracedCallback");
    return tid;
}

BackgroundSource::BackgroundSource()
    : m_packetSize(1400)
    , m_uniform(CreateObject<UniformRandomVariable>())
    , m_onTime(CreateObject<ExponentialRandomVariable>())
    , m_offTime(CreateObject<ExponentialRandomVariable>())
{
}

int64_t
BackgroundSource::AssignStreams(int64_t stream)
{
    m_uniform->SetStream(stream);
    m_onTime->SetStream(stream + 1);
    m_offTime->SetStream(stream + 2);
    return 3;
}

void
BackgroundSource::DoDispose()
{
    m_socket = nullptr;
    Application::DoDispose();
}

void
BackgroundSource::StartApplication()
{
    m_socket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
    m_socket->Bind();
    m_socket->Connect(m_remote);
    m_untilNextPacket = Time(0);
    if (!HasOnOffProcess())
    {
        TurnOn();
        return;
    }
    m_onTime->SetAttribute("Mean", DoubleValue(m_meanOn.GetSeconds()));
    m_offTime->SetAttribute("Mean", DoubleValue(m_meanOff.GetSeconds()));
    // Exponential periods are memoryless: in the stationary state, the rest of the current
    // period has the same distribution as a whole one.
    const double onProbability =
        m_meanOn.GetSeconds() / (m_meanOn.GetSeconds() + m_meanOff.GetSeconds());
    if (m_uniform->GetValue() < onProbability)
    {
        TurnOn();
    }
    else
    {
        m_switchEvent =
            Simulator::Schedule(Seconds(m_offTime->GetValue()), &BackgroundSource::TurnOn, this);
    }
}

void
BackgroundSource::StopApplication()
{
    m_sendEvent.Cancel();
    m_switchEvent.Cancel();
    if (m_socket)
    {
        m_socket->Close();
    }
}

void
BackgroundSource::TurnOn()
{
    m_sendEvent = Simulator::Schedule(m_untilNextPacket, &BackgroundSource::SendPacket, this);
    if (HasOnOffProcess())
    {
        m_switchEvent =
            Simulator::Schedule(Seconds(m_onTime->GetValue()), &BackgroundSource::TurnOff, this);
    }
}

void
BackgroundSource::TurnOff()
{
    m_untilNextPacket = Simulator::GetDelayLeft(m_sendEvent);
    m_sendEvent.Cancel();
    m_switchEvent =
        Simulator::Schedule(Seconds(m_offTime->GetValue()), &BackgroundSource::TurnOn, this);
}

void
BackgroundSource::SendPacket()
{
    Ptr<Packet> packet = Create<Packet>(m_packetSize);
    packet->AddPacketTag(BackgroundTag());
    m_txTrace(packet);
    m_socket->Send(packet);
    m_sendEvent = Simulator::Schedule(m_interval, &BackgroundSource::SendPacket, this);
}

} // namespace ns3
