// The ns-3-only peer of bench/scale: the same topology as a scenario (built by the same
// NetworkTopology, so the same links, queues, addresses and routes), the same TCP settings,
// and per round the same bytes an FL round moves: the model down to each selected site, then
// its update back up as soon as its download is complete. BulkSend and PacketSink replace
// fedran's applications, so nothing of fedran's own runs: no training, codecs, frames,
// round protocol or traces. The ratio of the two programs' wall time per round is fedran's
// overhead over ns-3 itself.
//
//   scale-peer SCENARIO --rounds R --down-bytes D --up-bytes U
//
// prints one JSON object: set-up and per-round wall seconds, simulated round durations,
// simulator events and the packets the sites' links transmitted.

#include "simulator/network-topology.h"
#include "simulator/scenario/scenario.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <ns3/address.h>
#include <ns3/bulk-send-application.h>
#include <ns3/config.h>
#include <ns3/double.h>
#include <ns3/inet-socket-address.h>
#include <ns3/ipv4.h>
#include <ns3/packet-sink.h>
#include <ns3/rng-seed-manager.h>
#include <ns3/simulator.h>
#include <ns3/string.h>
#include <ns3/uinteger.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <numeric>
#include <random>
#include <unordered_map>

namespace ns3
{
namespace
{

using WallClock = std::chrono::steady_clock;

constexpr uint16_t kDownloadPort = 9001;
constexpr uint16_t kUploadPort = 9000;
constexpr uint32_t kSendSize = 64 * 1024;

class PeerRounds
{
  public:
    PeerRounds(const NetworkTopology& topology,
               uint32_t rounds,
               uint32_t perRound,
               uint64_t downBytes,
               uint64_t upBytes,
               uint32_t seed)
        : m_topology(topology)
        , m_rounds(rounds)
        , m_perRound(perRound)
        , m_downBytes(downBytes)
        , m_upBytes(upBytes)
        , m_order(topology.GetClientCount())
        , m_received(topology.GetClientCount(), 0)
        , m_uploaded(topology.GetClientCount(), 0)
        , m_rng(seed)
    {
        std::iota(m_order.begin(), m_order.end(), 0u);
        const uint32_t n = topology.GetClientCount();
        m_clientAddress.reserve(n);
        for (uint32_t i = 0; i < n; ++i)
        {
            Ptr<Node> client = topology.GetClient(i);
            const Ipv4Address address = client->GetObject<Ipv4>()->GetAddress(1, 0).GetLocal();
            m_clientAddress.push_back(address);
            m_clientOf[address.Get()] = i;
            Ptr<PacketSink> sink = InstallSink(client, kDownloadPort);
            m_clientSinks.push_back(sink);
            sink->TraceConnectWithoutContext("Rx",
                                             MakeBoundCallback(&PeerRounds::DownloadRx, this, i));
            topology.GetLink(i).ConnectTransmitted(LinkDirection::Uplink,
                                                   MakeCallback(&PeerRounds::Count, this));
            topology.GetLink(i).ConnectTransmitted(LinkDirection::Downlink,
                                                   MakeCallback(&PeerRounds::Count, this));
        }
        m_serverSink = InstallSink(topology.GetServer(), kUploadPort);
        m_serverSink->TraceConnectWithoutContext("Rx", MakeCallback(&PeerRounds::UploadRx, this));
    }

    void Start()
    {
        m_wallMark = WallClock::now();
        Simulator::ScheduleNow(&PeerRounds::StartRound, this);
    }

    nlohmann::json Result() const
    {
        return {{"rounds", m_roundWallS.size()},
                {"round_wall_s", m_roundWallS},
                {"round_sim_s", m_roundSimS},
                {"access_packets", m_packets}};
    }

  private:
    static void DownloadRx(PeerRounds* self,
                           uint32_t client,
                           Ptr<const Packet> packet,
                           const Address&)
    {
        self->m_received[client] += packet->GetSize();
        if (self->m_received[client] == self->m_downBytes)
        {
            self->Send(self->m_topology.GetClient(client),
                       InetSocketAddress(self->m_topology.GetServerAddress(), kUploadPort),
                       self->m_upBytes);
        }
    }

    void UploadRx(Ptr<const Packet> packet, const Address& from)
    {
        const uint32_t client = m_clientOf.at(InetSocketAddress::ConvertFrom(from).GetIpv4().Get());
        m_uploaded[client] += packet->GetSize();
        if (m_uploaded[client] == m_upBytes && --m_outstanding == 0)
        {
            const WallClock::time_point now = WallClock::now();
            m_roundWallS.push_back(std::chrono::duration<double>(now - m_wallMark).count());
            m_roundSimS.push_back((Simulator::Now() - m_roundStart).GetSeconds());
            m_wallMark = now;
            CloseFinished();
            if (m_roundWallS.size() < m_rounds)
            {
                Simulator::ScheduleNow(&PeerRounds::StartRound, this);
            }
            else
            {
                Simulator::Stop(); // link models (rain, traces) would schedule events forever
            }
        }
    }

    /// PacketSink never closes the sockets it accepted, so their endpoints would pile up in
    /// the receiving node's demultiplexer (which ns-3 scans per packet) round after round;
    /// closing them keeps the peer as cheap as ns-3 can be.
    void CloseFinished()
    {
        for (const Ptr<Socket>& socket : m_serverSink->GetAcceptedSockets())
        {
            socket->Close();
        }
        for (uint32_t k = 0; k < m_perRound; ++k)
        {
            for (const Ptr<Socket>& socket : m_clientSinks[m_order[k]]->GetAcceptedSockets())
            {
                socket->Close();
            }
        }
    }

    void Count(Ptr<const Packet>)
    {
        ++m_packets;
    }

    void StartRound()
    {
        m_roundStart = Simulator::Now();
        // A fresh sample of sites each round, like the server's selection.
        const uint32_t n = static_cast<uint32_t>(m_order.size());
        for (uint32_t k = 0; k < m_perRound; ++k)
        {
            std::uniform_int_distribution<uint32_t> pick(k, n - 1);
            std::swap(m_order[k], m_order[pick(m_rng)]);
        }
        m_outstanding = m_perRound;
        for (uint32_t k = 0; k < m_perRound; ++k)
        {
            const uint32_t client = m_order[k];
            m_received[client] = 0;
            m_uploaded[client] = 0;
            Send(m_topology.GetServer(),
                 InetSocketAddress(m_clientAddress[client], kDownloadPort),
                 m_downBytes);
        }
    }

    static Ptr<PacketSink> InstallSink(Ptr<Node> node, uint16_t port)
    {
        Ptr<PacketSink> sink = CreateObject<PacketSink>();
        sink->SetAttribute("Protocol", StringValue("ns3::TcpSocketFactory"));
        sink->SetAttribute("Local", AddressValue(InetSocketAddress(Ipv4Address::GetAny(), port)));
        node->AddApplication(sink);
        return sink;
    }

    static void Send(Ptr<Node> from, const Address& to, uint64_t bytes)
    {
        Ptr<BulkSendApplication> app = CreateObject<BulkSendApplication>();
        app->SetAttribute("Protocol", StringValue("ns3::TcpSocketFactory"));
        app->SetAttribute("Remote", AddressValue(to));
        app->SetAttribute("MaxBytes", UintegerValue(bytes));
        app->SetAttribute("SendSize", UintegerValue(kSendSize));
        from->AddApplication(app); // starts now: its start time is 0 from here
    }

    const NetworkTopology& m_topology;
    uint32_t m_rounds;
    uint32_t m_perRound;
    uint64_t m_downBytes;
    uint64_t m_upBytes;
    std::vector<uint32_t> m_order;
    std::vector<uint64_t> m_received;
    std::vector<uint64_t> m_uploaded;
    std::vector<Ipv4Address> m_clientAddress;
    std::vector<Ptr<PacketSink>> m_clientSinks;
    Ptr<PacketSink> m_serverSink;
    std::unordered_map<uint32_t, uint32_t> m_clientOf;
    std::mt19937 m_rng;
    uint32_t m_outstanding = 0;
    uint64_t m_packets = 0;
    Time m_roundStart;
    WallClock::time_point m_wallMark;
    std::vector<double> m_roundWallS;
    std::vector<double> m_roundSimS;
};

int
Main(int argc, char** argv)
{
    CLI::App cli{"ns-3-only peer of bench/scale: the scenario's topology, BulkSend transfers"};
    std::string scenarioFile;
    uint32_t rounds = 10;
    uint64_t downBytes = 0;
    uint64_t upBytes = 0;
    cli.add_option("scenario", scenarioFile, "scenario JSON (topology, clients_per_round, seed)")
        ->required();
    cli.add_option("--rounds", rounds, "rounds to run")->check(CLI::PositiveNumber);
    cli.add_option("--down-bytes", downBytes, "bytes sent to each selected site a round")
        ->required()
        ->check(CLI::PositiveNumber);
    cli.add_option("--up-bytes", upBytes, "bytes each selected site sends back")
        ->required()
        ->check(CLI::PositiveNumber);
    CLI11_PARSE(cli, argc, argv);

    const WallClock::time_point setupStart = WallClock::now();
    nlohmann::json scenario = fedran::ReadScenarioFile(scenarioFile);
    fedran::ValidateScenario(scenario);
    const fedran::ScenarioConfig config = fedran::ToConfig(scenario);
    std::vector<uint32_t> clientGroup;
    for (uint32_t g = 0; g < config.groups.size(); ++g)
    {
        clientGroup.insert(clientGroup.end(), config.groups[g].count, g);
    }
    const uint32_t perRound = std::min<uint32_t>(config.server.clientsPerRound,
                                                 static_cast<uint32_t>(clientGroup.size()));

    ConfigureBackhaulTcp();
    // A closed sender's endpoint waits 2 MSL (240 s by default) in TIME_WAIT; with a new
    // connection per transfer they would pile up at the server. fedran's connections persist.
    Config::SetDefault("ns3::TcpSocketBase::MaxSegLifetime", DoubleValue(0.001));
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(config.seed);
    NetworkTopology topology(config, clientGroup);
    topology.AssignStreams(0);
    PeerRounds peer(topology, rounds, perRound, downBytes, upBytes, config.seed);
    peer.Start();
    const double setupWallS = std::chrono::duration<double>(WallClock::now() - setupStart).count();

    const WallClock::time_point simulateStart = WallClock::now();
    Simulator::Run();
    const double simulateWallS =
        std::chrono::duration<double>(WallClock::now() - simulateStart).count();
    nlohmann::json result = peer.Result();
    result["setup_wall_s"] = setupWallS;
    result["simulate_wall_s"] = simulateWallS;
    result["events"] = Simulator::GetEventCount();
    result["clients"] = clientGroup.size();
    result["per_round"] = perRound;
    Simulator::Destroy();
    std::cout << result.dump() << '\n';
    return result["rounds"] == rounds ? 0 : 1;
}

} // namespace
} // namespace ns3

int
main(int argc, char** argv)
{
    try
    {
        return ns3::Main(argc, argv);
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "scale-peer: %s\n", e.what());
        return 2;
    }
}
