// network.transport "flow": one transfer lasts what the flow model's formula says, to the
// microsecond, and ns-3 TCP on the same network within 5% of it; the flow mode is
// deterministic and fills every trace the packet mode does.

#include "models/flow/tcp-flow-model.h"
#include "models/ns3/model/message-transport.h"
#include "one-client-network.h"
#include "sim-test-util.h"
#include "simulator/network-topology.h"

#include <gtest/gtest.h>
#include <ns3/boolean.h>
#include <ns3/inet-socket-address.h>
#include <ns3/simulator.h>

#include <algorithm>
#include <cstdio>

namespace
{

using namespace ns3;

/// Every client of `config` connects at 1 ms and sends one frame of `payloadBytes` on its
/// connection as soon as it is up; the server's arrivals are recorded.
class Uploads
{
  public:
    std::vector<double> connectedAt;
    std::vector<double> arrivedAt;
    size_t frameBytes = 0;

    Uploads(const std::string& transportName,
            const fedran::ScenarioConfig& config,
            uint32_t payloadBytes)
    {
        fedran::test::SetFedranTcpDefaults();
        Ptr<MessageTransport> transport = CreateMessageTransport(transportName);
        if (config.network.flowPorts == "packet")
        {
            transport->SetAttribute("PortModel", BooleanValue(true));
        }
        const uint32_t clients = config.groups.at(0).count;
        NetworkTopology topology(config,
                                 std::vector<uint32_t>(clients, 0),
                                 transport->CarriesPackets());
        transport->SetTopology(topology.GetTransportTopology());
        m_payload.assign(payloadBytes, 7);
        frameBytes = fedran::EncodeFrame(fedran::FrameHeader{}, m_payload).size();
        connectedAt.assign(clients, -1.0);
        arrivedAt.assign(clients, -1.0);
        Simulator::ScheduleNow(&MessageTransport::Listen,
                               transport,
                               topology.GetServer(),
                               9000,
                               MakeCallback(&Uploads::Accepted, this));
        for (uint32_t i = 0; i < clients; ++i)
        {
            const InetSocketAddress server(topology.GetServerAddress(), 9000);
            const MessageTransport::ChannelCallback connected =
                MakeCallback(&Uploads::Connected, this).Bind(i);
            // In flow mode the sites are stated links: no node of their own, an endpoint id.
            Simulator::Schedule(MilliSeconds(1), [&topology, transport, server, connected, i] {
                if (topology.IsStated(i))
                {
                    transport->ConnectEndpoint(topology.GetClientEndpoint(i), server, connected);
                    return;
                }
                transport->Connect(topology.GetClient(i), server, connected);
            });
        }
        Simulator::Stop(Seconds(60));
        Simulator::Run();
        Simulator::Destroy();
    }

  private:
    void Accepted(Ptr<MessageChannel> channel)
    {
        m_channels.push_back(channel);
        channel->SetFrameCallback(MakeCallback(&Uploads::Arrived, this));
    }

    void Connected(uint32_t i, Ptr<MessageChannel> channel)
    {
        ASSERT_TRUE(channel);
        m_channels.push_back(channel);
        connectedAt[i] = Simulator::Now().GetSeconds();
        fedran::FrameHeader header;
        header.type = fedran::FrameType::ClientUpdate;
        header.client = i;
        channel->Send(fedran::EncodeFrame(header, m_payload));
    }

    void Arrived(Ptr<MessageChannel>, const fedran::Frame& frame, const FrameReceipt&)
    {
        arrivedAt[frame.header.client] = Simulator::Now().GetSeconds();
    }

    std::vector<uint8_t> m_payload;
    std::vector<Ptr<MessageChannel>> m_channels;
};

/// The model's own prediction for one flow alone: handshake, then slow start, wire bits at
/// the bottleneck and the path's latency.
double
Formula(size_t frameBytes, const std::vector<fedran::PathHop>& hops)
{
    const fedran::TcpFlowSettings tcp;
    return fedran::HandshakeRttS(hops) + fedran::AloneTransferS(frameBytes, hops, 10, tcp);
}

TEST(FlowTransport, OneFlowAloneLastsItsFormulaToTheMicrosecond)
{
    const auto config = fedran::test::OneClientConfig("50Mbps", 0.010, "1Gbps", 0.001);
    Uploads flow("flow", config, 800000);
    const std::vector<fedran::PathHop> hops = {{50e6, 0.010, 0.0}, {1e9, 0.001, 0.0}};
    ASSERT_GE(flow.arrivedAt[0], 0.0) << "the frame never arrived";
    EXPECT_NEAR(flow.connectedAt[0] - 0.001, fedran::HandshakeRttS(hops), 1e-6);
    EXPECT_NEAR(flow.arrivedAt[0] - 0.001, Formula(flow.frameBytes, hops), 1e-6);
}

TEST(FlowTransport, PacketModeIsWithinFivePercentOfTheFormula)
{
    for (const auto& [rate, delay] :
         {std::pair<const char*, double>{"50Mbps", 0.010}, {"10Mbps", 0.002}, {"200Mbps", 0.020}})
    {
        const auto config = fedran::test::OneClientConfig(rate, delay, "1Gbps", 0.001);
        Uploads packets("tcp", config, 800000);
        const std::vector<fedran::PathHop> hops = {
            {static_cast<double>(config.groups[0].backhaul.rateBps), delay, 0.0},
            {1e9, 0.001, 0.0}};
        const double formula = Formula(packets.frameBytes, hops);
        const double measured = packets.arrivedAt[0] - 0.001;
        std::printf("%s, %.0f ms: packet %.4f s, flow formula %.4f s\n",
                    rate,
                    delay * 1e3,
                    measured,
                    formula);
        EXPECT_NEAR(measured, formula, 0.05 * formula) << rate;
    }
}

TEST(FlowTransport, UploadsSharingAHopFinishTogetherAtItsFairShare)
{
    // 10 clients of 100 Mbit/s behind a 100 Mbit/s core: each gets 10 Mbit/s. The core queue
    // holds the ten slow starts (with the default 100 packets they overflow it together and
    // some uploads wait out ns-3's 1 s minimum retransmission timeout: docs/flow-validation.md).
    // The windows could overflow even 1000 packets, so the flow transport runs the port's
    // micro-simulation: no loss, and the FIFO serves the uploads a few ms apart, as in ns-3.
    fedran::ScenarioConfig config =
        fedran::test::OneClientConfig("100Mbps", 0.005, "100Mbps", 0.001);
    config.groups[0].count = 10;
    config.network.coreQueuePackets = 1000;
    Uploads flow("flow", config, 400000);
    Uploads packets("tcp", config, 400000);
    const fedran::TcpFlowSettings tcp;
    const double wire = fedran::DataWireBytes(flow.frameBytes, tcp) * 8.0;
    double last = 0.0;
    double lastPacket = 0.0;
    for (size_t i = 0; i < 10; ++i)
    {
        ASSERT_GE(flow.arrivedAt[i], 0.0);
        ASSERT_GE(packets.arrivedAt[i], 0.0);
        last = std::max(last, flow.arrivedAt[i]);
        lastPacket = std::max(lastPacket, packets.arrivedAt[i]);
        EXPECT_NEAR(flow.arrivedAt[i], flow.arrivedAt[0], 0.1 * flow.arrivedAt[0]);
    }
    // All ten together move 10 x wire bits at the core's rate.
    EXPECT_GT(last, 10 * wire / 100e6);
    EXPECT_LT(last, 10 * wire / 100e6 + 0.2);
    std::printf("10 uploads over one 100 Mbit/s hop: flow %.4f s, packet %.4f s\n",
                last,
                lastPacket);
    EXPECT_NEAR(last, lastPacket, 0.10 * lastPacket);
}

TEST(FlowTransport, UploadsOverflowingTheCoreFifoGetPacketLevelTails)
{
    // The contended case of docs/flow-validation.md in its simplest form: 20 uploads of
    // 0.8 MB from 100 Mbit/s sites through a 100 Mbit/s core with its default 100-packet
    // FIFO, all starting together. The fair share alone would end every upload at 16 MB /
    // 100 Mbit/s (1.33 s + slow start); ns-3 loses packets, some uploads recover late or wait
    // out a 1 s RTO, and the last ends well after that. The flow transport simulates that
    // port packet by packet (models/flow/port-micro-sim.h): its slowest and fastest uploads
    // bracket the fair share as ns-3's do.
    fedran::ScenarioConfig config =
        fedran::test::OneClientConfig("100Mbps", 0.002, "100Mbps", 0.005);
    config.groups[0].count = 20;
    config.network.flowPorts = "packet";
    Uploads flow("flow", config, 800000);
    // The default, network.flow_ports "fluid", keeps the port in the flow model: every upload
    // ends together at about the fair share, far from ns-3's tail.
    config.network.flowPorts = "fluid";
    Uploads fluid("flow", config, 800000);
    const double fluidLast = *std::max_element(fluid.arrivedAt.begin(), fluid.arrivedAt.end());
    Uploads packets("tcp", config, 800000);
    const double floor = 20 * fedran::DataWireBytes(flow.frameBytes, {}) * 8.0 / 100e6;
    auto range = [](const std::vector<double>& v) {
        return std::make_pair(*std::min_element(v.begin(), v.end()),
                              *std::max_element(v.begin(), v.end()));
    };
    const auto [flowFirst, flowLast] = range(flow.arrivedAt);
    const auto [packetFirst, packetLast] = range(packets.arrivedAt);
    std::printf("20 uploads through a 100-packet FIFO: flow %.3f-%.3f s, packet %.3f-%.3f s, "
                "fair share %.3f s\n",
                flowFirst,
                flowLast,
                packetFirst,
                packetLast,
                floor);
    ASSERT_GT(flowFirst, 0.0);
    ASSERT_GT(packetFirst, 0.0);
    EXPECT_LT(flowFirst, floor);
    EXPECT_GT(flowLast, floor + 0.2);
    EXPECT_LT(packetFirst, floor);
    EXPECT_GT(packetLast, floor + 0.2);
    // Issue 33's target for the slowest upload: within 15% (measured 1.708 against 1.935 s).
    EXPECT_NEAR(flowLast, packetLast, 0.15 * packetLast);
    EXPECT_LT(fluidLast, packetLast - 0.15 * packetLast);
}

TEST(FlowTransport, SameSeedGivesByteIdenticalTraces)
{
    using namespace fedran::test;
    TempDir dir("flow-determinism");
    nlohmann::json scenario = TinyScenario(4, 3, 2);
    scenario["network"]["transport"] = "flow";
    scenario["output"]["link_sample_s"] = 0.5;
    WriteFile(dir.Path() / "s.json", scenario.dump());
    for (const char* out : {"a", "b"})
    {
        const CommandResult r =
            RunFedran(std::string("run s.json --quiet --out ") + out, dir.Path());
        ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    }
    ExpectSameTraces(dir.Path() / "a",
                     dir.Path() / "b",
                     {"rounds.csv", "clients.csv", "links.csv", "partition.csv"});
    const nlohmann::json manifest = nlohmann::json::parse(ReadFile(dir.Path() / "a" / "run.json"));
    EXPECT_EQ(manifest.at("transport"), "flow");
    // Wire bytes are counted in flow mode too: payload plus headers and ACKs.
    EXPECT_GT(SumColumn(dir.Path() / "a" / "rounds.csv", "uplink_wire_bytes"),
              SumColumn(dir.Path() / "a" / "rounds.csv", "uplink_payload_bytes"));
}

TEST(FlowTransport, PacketCapturesAreRefused)
{
    using namespace fedran::test;
    TempDir dir("flow-pcap");
    nlohmann::json scenario = TinyScenario(2, 2, 1);
    scenario["network"]["transport"] = "flow";
    scenario["output"]["pcap"] = true;
    WriteFile(dir.Path() / "s.json", scenario.dump());
    const CommandResult r = RunFedran("run s.json --quiet --out o", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("output.pcap"), std::string::npos) << r.stderrText;
}

} // namespace
