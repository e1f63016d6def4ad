// Federated learning on a topology of your own: a plain ns-3 program that builds a small
// two-level tree with ns-3's helpers and puts fedran's server and clients on it.
//
//   server ---- core ---+--- edge 0 ---+--- client 0
//                       |              +--- client 2
//                       +--- edge 1 ---+--- client 1
//                                      +--- client 3      (clients alternate between edges)
//
// The learning problem is LEAF's Synthetic(1, 1) data (generated here, no data files) and a
// softmax regression, trained for real by every client; each round's test accuracy and
// simulated time are printed from the server's RoundEnded trace source. With --out, the
// statistics helper also writes rounds.csv and clients.csv into that folder, the same files
// with the same columns as `fedran run` (docs/traces.md).
//
//   fedran-example --rounds=5 --clients=4
//   fedran-example --rounds=5 --out=results
//   fedran-example --PrintAttributes=ns3::FlServerApp

#include "compression/rng.h"
#include "models/fl/federated-task.h"
#include "models/fl/trace-records.h"
#include "models/learning/client-sizes.h"
#include "models/learning/model.h"
#include "models/learning/synthetic-data.h"
#include "models/ns3/helper/fl-client-helper.h"
#include "models/ns3/helper/fl-server-helper.h"
#include "models/ns3/helper/fl-stats-helper.h"

#include <ns3/command-line.h>
#include <ns3/config.h>
#include <ns3/double.h>
#include <ns3/inet-socket-address.h>
#include <ns3/internet-stack-helper.h>
#include <ns3/ipv4-address-helper.h>
#include <ns3/ipv4-global-routing-helper.h>
#include <ns3/node-container.h>
#include <ns3/point-to-point-helper.h>
#include <ns3/simulator.h>
#include <ns3/string.h>
#include <ns3/uinteger.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint16_t kPort = 7000;

/// `clients` clients of Synthetic(1, 1) data, 200 examples each (10% of them go to the shared
/// test set), softmax regression, plain SGD, no compression.
std::shared_ptr<const fedran::FederatedTask>
MakeSyntheticTask(uint32_t clients, uint64_t seed)
{
    fedran::Rng rng(seed, fedran::kPartitionStream);
    fedran::FederatedData fed = fedran::MakeSyntheticLeaf(clients,
                                                          1.0,
                                                          1.0,
                                                          fedran::kSyntheticFeatures,
                                                          fedran::kSyntheticClasses,
                                                          fedran::SizeSpec::Equal(200),
                                                          fedran::kSyntheticTestFraction,
                                                          rng);
    auto task = std::make_shared<fedran::FederatedTask>();
    task->seed = seed;
    task->model =
        fedran::MakeModel("softmax", fedran::kSyntheticFeatures, fedran::kSyntheticClasses);
    task->data = std::make_shared<fedran::TrainTestData>(std::move(fed.data));
    task->partition = std::move(fed.partition);
    task->training.batchSize = 10;
    task->training.lr = 0.05;
    task->training.localEpochs = 2;
    // e.g. {{"type", "top_k"}, {"ratio", 0.1}}
    task->uplinkCodec = fedran::CodecSpec::Parse({{"type", "none"}}, "compression.uplink");
    task->downlinkCodec = fedran::CodecSpec::Parse({{"type", "none"}}, "compression.downlink");
    return task;
}

void
PrintRound(const fedran::RoundRecord& record)
{
    std::printf("round %u: accuracy %.4f, loss %.4f, %u updates, simulated time %.3f s\n",
                record.round,
                record.testAccuracy,
                record.testLoss,
                record.participants,
                record.endS);
    std::fflush(stdout);
}

void
Finished()
{
    Simulator::Stop(); // stragglers' TCP timers may still be pending; nothing more to learn
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t rounds = 5;
    uint32_t clients = 4;
    uint32_t edges = 2;
    uint64_t seed = 1;
    std::string accessRate = "50Mbps";
    std::string accessDelay = "5ms";
    std::string outDir;
    CommandLine cmd(__FILE__);
    cmd.AddValue("rounds", "Training rounds", rounds);
    cmd.AddValue("clients", "FL clients (each on its own access link)", clients);
    cmd.AddValue("edges", "Edge routers the clients are spread over", edges);
    cmd.AddValue("seed", "Seed of the synthetic data, the partition and the initial model", seed);
    cmd.AddValue("accessRate", "Data rate of each client's access link", accessRate);
    cmd.AddValue("accessDelay", "Propagation delay of each client's access link", accessDelay);
    cmd.AddValue("out", "Folder for rounds.csv and clients.csv (none: no files)", outDir);
    cmd.Parse(argc, argv);
    if (rounds == 0 || clients == 0 || edges == 0)
    {
        std::fprintf(stderr, "--rounds, --clients and --edges must be at least 1\n");
        return 1;
    }

    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));

    // The topology: server - core - edge routers - clients, one point-to-point link each.
    NodeContainer server(1);
    NodeContainer core(1);
    NodeContainer edgeRouters(edges);
    NodeContainer clientNodes(clients);
    InternetStackHelper internet;
    internet.Install(server);
    internet.Install(core);
    internet.Install(edgeRouters);
    internet.Install(clientNodes);

    PointToPointHelper backbone;
    backbone.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
    backbone.SetChannelAttribute("Delay", StringValue("1ms"));
    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue(accessRate));
    access.SetChannelAttribute("Delay", StringValue(accessDelay));

    Ipv4AddressHelper addresses("10.0.0.0", "255.255.255.252");
    Ipv4InterfaceContainer serverLink =
        addresses.Assign(backbone.Install(server.Get(0), core.Get(0)));
    for (uint32_t e = 0; e < edges; ++e)
    {
        addresses.NewNetwork();
        addresses.Assign(backbone.Install(core.Get(0), edgeRouters.Get(e)));
    }
    std::vector<NetDeviceContainer> accessLinks; // per client: edge router's end, client's end
    for (uint32_t c = 0; c < clients; ++c)
    {
        addresses.NewNetwork();
        accessLinks.push_back(access.Install(edgeRouters.Get(c % edges), clientNodes.Get(c)));
        addresses.Assign(accessLinks.back());
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // The learning problem, shared by the server and every client.
    std::shared_ptr<const fedran::FederatedTask> task = MakeSyntheticTask(clients, seed);

    const fedran::Dataset& test = task->data->test;
    std::vector<uint32_t> perClass(test.classes, 0);
    for (uint8_t label : test.y)
    {
        ++perClass[label];
    }
    std::printf("%u clients, %zu test examples, %u classes (the most common is %.1f%% of them)\n",
                clients,
                test.y.size(),
                test.classes,
                100.0 * *std::max_element(perClass.begin(), perClass.end()) / test.y.size());

    // fedran's applications, installed with the helpers.
    FlServerHelper serverHelper(task); // a TCP message transport
    serverHelper.SetAttribute("Port", UintegerValue(kPort));
    serverHelper.SetAttribute("Rounds", UintegerValue(rounds));
    serverHelper.SetAttribute("ClientsPerRound", UintegerValue(clients));
    serverHelper.SetAttribute("ExpectedClients", UintegerValue(clients));
    serverHelper.SetAttribute("Deadline", TimeValue(Seconds(10)));
    ApplicationContainer serverApps = serverHelper.Install(server.Get(0));

    FlClientHelper clientHelper(task,
                                InetSocketAddress(serverLink.GetAddress(0), kPort),
                                serverHelper.GetTransport());
    clientHelper.SetAttribute("SamplesPerSecond", DoubleValue(5000.0));
    clientHelper.SetAttribute("Deadline", TimeValue(Seconds(10)));
    ApplicationContainer clientApps = clientHelper.Install(clientNodes); // ClientId 0, 1, ...
    clientApps.Start(Seconds(0.1));

    int64_t stream = 0;
    stream += serverHelper.AssignStreams(server, stream);
    stream += clientHelper.AssignStreams(clientNodes, stream);

    serverApps.Get(0)->TraceConnectWithoutContext("RoundEnded", MakeCallback(&PrintRound));
    serverApps.Get(0)->TraceConnectWithoutContext("Finished", MakeCallback(&Finished));

    // The traces of `fedran run`: every client in one group, named after its edge router,
    // and the wire bytes of each client's access link.
    std::optional<FlStatsHelper> stats;
    if (!outDir.empty())
    {
        std::filesystem::create_directories(outDir);
        std::vector<std::string> groups;
        std::vector<Ptr<FlClientApp>> clientApp;
        for (uint32_t c = 0; c < clients; ++c)
        {
            groups.push_back("edge-" + std::to_string(c % edges));
            clientApp.push_back(DynamicCast<FlClientApp>(clientApps.Get(c)));
        }
        stats.emplace(outDir, groups, task->uplinkCodec.Type());
        stats->Connect(DynamicCast<FlServerApp>(serverApps.Get(0)), clientApp);
        for (const NetDeviceContainer& link : accessLinks)
        {
            stats->ConnectClientDevices(link.Get(1), link.Get(0));
        }
    }

    Simulator::Run();
    if (stats)
    {
        stats->Finish();
    }
    Simulator::Destroy();
    return 0;
}
