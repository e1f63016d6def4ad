#include "simulator/fl-experiment.h"

#include "models/ns3/helper/fl-client-helper.h"
#include "models/ns3/helper/fl-server-helper.h"
#include "models/ns3/model/client-availability.h"
#include "models/ns3/model/fl-client-app.h"
#include "models/ns3/model/fl-server-app.h"
#include "models/ns3/model/link-outage.h"
#include "models/learning/partition-summary.h"
#include "models/ns3/model/thread-pool.h"
#include "simulator/csv-writer.h"
#include "simulator/edge-round-trace.h"
#include "simulator/edge-tiers.h"
#include "simulator/federated-task-builder.h"
#include "simulator/fl-stats-collector.h"
#include "simulator/link-sampler.h"
#include "simulator/packet-capture.h"
#include "simulator/network-topology.h"
#include "simulator/output-folder.h"
#include "simulator/stop-signals.h"
#include "simulator/trace-schema.h"

#include <ns3/config.h>
#include <ns3/double.h>
#include <ns3/inet-socket-address.h>
#include <ns3/pointer.h>
#include <ns3/rng-seed-manager.h>
#include <ns3/simulator.h>
#include <ns3/string.h>
#include <ns3/uinteger.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iostream>
#include <map>
#include <stdexcept>

namespace ns3
{

namespace
{

constexpr uint16_t kServerPort = 7000;

/// population.csv: what each client is, as drawn for this run.
void
WritePopulation(const std::string& outDir,
                const std::vector<std::string>& groupNames,
                const std::vector<double>& samplesPerSecond,
                const NetworkTopology& topology)
{
    const std::unique_ptr<fedran::CsvWriter> csv = fedran::OpenTrace(outDir, "population.csv");
    for (uint32_t i = 0; i < groupNames.size(); ++i)
    {
        csv->Add(uint64_t{i}).Add(groupNames[i]).Add(samplesPerSecond[i], 3);
        csv->Add(topology.GetClientHub(i));
        csv->EndRow();
    }
    csv->Flush();
}

/// When the first round started and who had joined by then; says so when some had not.
using WallClock = std::chrono::steady_clock;

double
SecondsSince(WallClock::time_point start)
{
    return std::chrono::duration<double>(WallClock::now() - start).count();
}

/// CPU seconds used so far by every thread of the process.
double
ProcessCpuSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct JoinRecord
{
    uint32_t joined = 0;
    uint32_t expected = 0;
    double timeS = 0.0;
    WallClock::time_point wall; ///< when it closed, for the run's timing
    double cpuS = 0.0;          ///< process CPU seconds then

    void Closed(uint32_t joinedNow, uint32_t expectedNow)
    {
        joined = joinedNow;
        expected = expectedNow;
        timeS = Simulator::Now().GetSeconds();
        wall = WallClock::now();
        cpuS = ProcessCpuSeconds();
        if (joined < expected)
        {
            std::cerr << "fedran: warning: " << expected - joined << " of " << expected
                      << " clients had not joined by the join timeout (" << timeS
                      << " s); the first round starts without them, and they take part "
                         "once they join\n";
        }
    }
};

/// faults.link_outages and faults.server_outages, on the links the topology built.
void
ScheduleOutages(const fedran::FaultsConfig& faults, const NetworkTopology& topology)
{
    for (const fedran::OutageConfig& outage : faults.linkOutages)
    {
        const Time start = Seconds(outage.startS);
        const Time duration = Seconds(outage.durationS);
        for (uint32_t client : outage.clients)
        {
            ScheduleLinkOutage(topology.GetLink(client), start, duration);
        }
        for (uint32_t hub : outage.hubs)
        {
            ScheduleLinkOutage(topology.GetHubLink(hub), start, duration);
        }
    }
    for (const fedran::OutageConfig& outage : faults.serverOutages)
    {
        ScheduleLinkOutage(topology.GetCoreLink(), Seconds(outage.startS), Seconds(outage.durationS));
    }
}

void
StopSimulation()
{
    // The run ends with its last round: stragglers' uploads and TCP timers may still be
    // scheduled, and simulating them would only add wall time.
    Simulator::Stop();
}

} // namespace

FlExperiment::FlExperiment(fedran::ScenarioConfig config, unsigned threads)
    : m_config(std::move(config)),
      m_threads(threads)
{
}

void
FlExperiment::Prepare()
{
    const WallClock::time_point start = WallClock::now();
    for (const fedran::ClientGroupConfig& group : m_config.groups)
    {
        CheckBackhaulLink(group.backhaul); // trace files and radio settings, before any output
    }
    for (const fedran::HubConfig& hub : m_config.network.hubs)
    {
        CheckBackhaulLink(hub.backhaul);
    }
    m_clientGroup.clear();
    m_samplesPerSecond.clear();
    for (uint32_t g = 0; g < m_config.groups.size(); ++g)
    {
        const fedran::ClientGroupConfig& group = m_config.groups[g];
        m_clientGroup.insert(m_clientGroup.end(), group.count, g);
        // One stream per group: changing one group's size leaves the others' draws alone.
        fedran::Rng speedRng(m_config.seed, fedran::kComputeSpeedStreamBase + g);
        const std::vector<double> speeds =
            fedran::DrawComputeSpeeds(group.compute, group.count, speedRng);
        m_samplesPerSecond.insert(m_samplesPerSecond.end(), speeds.begin(), speeds.end());
    }
    const uint32_t clients = static_cast<uint32_t>(m_clientGroup.size());

    m_task = fedran::BuildFederatedTask(m_config, clients);
    m_prepareWallS = SecondsSince(start);
}

RunTotals
FlExperiment::Run(const std::string& outDir, RoundObserver observer)
{
    if (!m_task)
    {
        Prepare();
    }
    const WallClock::time_point setupStart = WallClock::now();
    ConfigureBackhaulTcp(m_config.network.tcp);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(m_config.seed);

    Ptr<MessageTransport> transport = CreateMessageTransport(m_config.network.transport);
    // The server holds a connection per client; split its TCP endpoint table so that each
    // packet it receives is looked up among ~32 endpoints, not all of them (docs/architecture.md).
    transport->SetAttributeFailSafe(
        "ListenShards",
        UintegerValue(std::max<size_t>(1, (m_clientGroup.size() + 31) / 32)));
    NetworkTopology topology(m_config, m_clientGroup, transport->CarriesPackets());
    transport->SetTopology(topology.GetTransportTopology());

    FlServerHelper serverHelper(m_task, transport);
    serverHelper.SetAttribute("Port", UintegerValue(kServerPort));
    serverHelper.SetAttribute("Rounds", UintegerValue(m_config.rounds));
    serverHelper.SetAttribute("ClientsPerRound", UintegerValue(m_config.server.clientsPerRound));
    serverHelper.SetAttribute("OverSelect", DoubleValue(m_config.server.overSelect));
    serverHelper.SetAttribute("Deadline", TimeValue(Seconds(m_config.server.deadlineS)));
    serverHelper.SetAttribute("JoinTimeout", TimeValue(Seconds(m_config.server.joinTimeoutS)));
    const NodeContainer serverNode(topology.GetServer());
    Ptr<FlServerApp> server = DynamicCast<FlServerApp>(serverHelper.Install(serverNode).Get(0));
    if (m_config.server.async)
    {
        server->SetAsync(m_config.server.asyncConfig);
    }

    // Edge aggregation: the server's children include the top aggregating hubs, and each
    // site talks to the nearest aggregator up its hub chain (docs/hierarchical.md).
    const EdgeTiers tiers(m_config, *m_task);
    if (tiers.Any())
    {
        server->SetAggregatorChildren(tiers.AggregatorChildren(EdgeTiers::kServer));
    }

    auto pool = std::make_shared<ThreadPool>(m_threads);
    std::vector<double> crashProbability;
    std::vector<double> crashRestartS;
    for (uint32_t group : m_clientGroup)
    {
        crashProbability.push_back(m_config.faults.crashProbability.at(group));
        crashRestartS.push_back(m_config.faults.crashRestartS.at(group));
    }
    std::vector<Ptr<ClientAvailability>> availabilities;
    auto makeAvailability = [this, &availabilities](uint32_t i) -> Ptr<ClientAvailability> {
        const fedran::AvailabilityConfig& availability =
            m_config.groups[m_clientGroup[i]].availability;
        if (!(availability.dropout > 0.0 || availability.OnOff()))
        {
            return nullptr;
        }
        Ptr<ClientAvailability> process = CreateObject<ClientAvailability>();
        process->SetAttribute("DropoutProbability", DoubleValue(availability.dropout));
        process->SetAttribute("MeanOnTime", TimeValue(Seconds(availability.meanOnS)));
        process->SetAttribute("MeanOffTime", TimeValue(Seconds(availability.meanOffS)));
        availabilities.push_back(process);
        return process;
    };
    // One helper per tier the sites report to: its address, deadline and model codec.
    std::map<int32_t, std::unique_ptr<FlClientHelper>> clientHelpers;
    auto helperFor = [&](int32_t tier) -> FlClientHelper& {
        std::unique_ptr<FlClientHelper>& helper = clientHelpers[tier];
        if (!helper)
        {
            const Ipv4Address address = tier == EdgeTiers::kServer
                                            ? topology.GetServerAddress()
                                            : topology.GetHubAddress(uint32_t(tier));
            helper = std::make_unique<FlClientHelper>(m_task,
                                                      InetSocketAddress(address, kServerPort),
                                                      transport);
            helper->SetAttribute("Deadline", TimeValue(Seconds(tiers.DeadlineOf(tier))));
            helper->SetAttribute("JoinWindow",
                                 TimeValue(Seconds(m_config.server.joinWindowS)));
            if (tier != EdgeTiers::kServer)
            {
                helper->SetAttribute("DownlinkCodec",
                                     StringValue(tiers.DownlinkCodecOf(tier).Json().dump()));
            }
            helper->SetSamplesPerSecond(m_samplesPerSecond);
            helper->SetAttribute("CorruptUplink", DoubleValue(m_config.faults.corruptUplink));
            helper->SetCrashes(crashProbability, crashRestartS);
            helper->SetTrainingPool(pool);
            helper->SetAvailability(makeAvailability);
        }
        return *helper;
    };
    NodeContainer clientNodes;
    std::vector<Ptr<FlClientApp>> clients;
    std::vector<std::string> groupNames;
    std::vector<Ptr<ClientAvailability>> availabilityOf(m_clientGroup.size());
    for (uint32_t i = 0; i < m_clientGroup.size(); ++i)
    {
        FlClientHelper& clientHelper = helperFor(tiers.TierOfClient(i));
        clientHelper.SetNextClientId(i);
        const size_t before = availabilities.size();
        ApplicationContainer app = clientHelper.Install(topology.GetClient(i)); // ClientId i
        if (availabilities.size() > before)
        {
            availabilityOf[i] = availabilities.back();
        }
        app.Start(Seconds(topology.GetLink(i).ReadyS()));
        clientNodes.Add(topology.GetClient(i));
        clients.push_back(DynamicCast<FlClientApp>(app.Get(0)));
        groupNames.push_back(m_config.groups[m_clientGroup[i]].name);
    }
    fedran::RecordOutputFile(outDir, "partition.csv");
    fedran::WritePartitionCsv(outDir + "/partition.csv",
                              m_task->partition,
                              m_task->data->train.y,
                              m_task->data->train.classes,
                              groupNames);

    // Fixed stream numbers: the draws do not depend on how many objects ns-3 created first.
    int64_t stream = 0;
    stream += topology.AssignStreams(stream);
    stream += serverHelper.AssignStreams(serverNode, stream);
    // Any helper numbers the streams of every client on the nodes given.
    stream += helperFor(EdgeTiers::kServer).AssignStreams(clientNodes, stream);
    stream += transport->AssignStreams(stream); // "tcp" runs keep their stream numbers
    std::vector<bool> initiallyOn(m_clientGroup.size(), true);
    for (uint32_t i = 0; i < m_clientGroup.size(); ++i)
    {
        initiallyOn[i] = !availabilityOf[i] || availabilityOf[i]->InitiallyOn();
    }
    // The first round starts once every child that is there at time 0 has joined (or at the
    // join timeout); clients that are off join when they turn on.
    server->SetAttribute(
        "ExpectedClients",
        UintegerValue(std::max(tiers.ExpectedChildren(EdgeTiers::kServer, initiallyOn), 1u)));
    const std::vector<Ptr<FlEdgeApp>> aggregators =
        tiers.Install(topology, m_task, transport, kServerPort, initiallyOn);
    for (Ptr<FlEdgeApp> aggregator : aggregators)
    {
        stream += aggregator->AssignStreams(stream);
    }
    WritePopulation(outDir, groupNames, m_samplesPerSecond, topology);

    FlStatsCollector stats(outDir, groupNames, m_config.uplinkCodec.Type());
    stats.SetAsync(m_config.server.async);
    stats.SetAdaptive(m_config.uplinkCodec.Traits().adaptive);
    stats.SetAttacks(m_task->attacks);
    stats.Connect(server, clients, topology, transport->GetLinkCounters());
    std::unique_ptr<EdgeRoundTrace> edgeRounds;
    if (tiers.Any())
    {
        std::vector<std::string> hubNames;
        for (uint32_t h = 0; h < topology.GetHubCount(); ++h)
        {
            hubNames.push_back(topology.GetHubName(h));
        }
        edgeRounds = std::make_unique<EdgeRoundTrace>(outDir, hubNames);
        for (size_t k = 0; k < aggregators.size(); ++k)
        {
            const uint32_t h = tiers.Aggregators()[k];
            const int32_t parent = m_config.network.hubs[h].parent;
            stats.ConnectAggregator(aggregators[k],
                                    tiers.ChildId(h),
                                    hubNames[h],
                                    parent == fedran::HubConfig::kCore ? "" : hubNames[parent]);
            edgeRounds->Connect(aggregators[k]);
        }
    }
    std::vector<double> roundWall;
    std::vector<double> roundCpu;
    WallClock::time_point lastRoundEnd;
    double lastRoundEndCpu = 0.0;
    JoinRecord join;
    stats.SetRoundObserver([&](const fedran::RoundRecord& record, const RunTotals& totals) {
        const WallClock::time_point now = WallClock::now();
        const double nowCpu = ProcessCpuSeconds();
        const bool first = roundWall.empty();
        roundWall.push_back(std::chrono::duration<double>(now - (first ? join.wall : lastRoundEnd))
                                .count());
        roundCpu.push_back(nowCpu - (first ? join.cpuS : lastRoundEndCpu));
        lastRoundEnd = now;
        lastRoundEndCpu = nowCpu;
        if (observer)
        {
            observer(record, totals);
        }
    });
    std::unique_ptr<LinkSampler> links;
    if (m_config.linkSampleS > 0)
    {
        links = std::make_unique<LinkSampler>(outDir,
                                              topology,
                                              m_config.linkSampleS,
                                              transport->GetLinkCounters());
    }
    ScheduleOutages(m_config.faults, topology);
    PacketCapture capture(outDir, topology, m_config.pcapLinks, m_config.flowmon);
    server->TraceConnectWithoutContext("Finished", MakeCallback(&StopSimulation));
    server->TraceConnectWithoutContext("JoinClosed", MakeCallback(&JoinRecord::Closed, &join));

    const double setupWallS = SecondsSince(setupStart);
    const WallClock::time_point simulateStart = WallClock::now();
    const double simulateStartCpu = ProcessCpuSeconds();
    join.wall = simulateStart;
    join.cpuS = simulateStartCpu;
    StopSignals::Arm();
    Simulator::Run();
    StopSignals::Disarm();
    const double simulateWallS = SecondsSince(simulateStart);
    const double simulateCpuS = ProcessCpuSeconds() - simulateStartCpu;
    capture.Finish();
    stats.Finish();
    RunTotals totals = stats.Totals();
    totals.clientsJoined = join.joined;
    totals.clientsExpected = join.expected;
    totals.joinTimeS = join.timeS;
    totals.timing.prepareWallS = m_prepareWallS;
    totals.timing.setupWallS = setupWallS;
    totals.timing.joinWallS = std::chrono::duration<double>(join.wall - simulateStart).count();
    totals.timing.simulateWallS = simulateWallS;
    totals.timing.roundWallS = std::move(roundWall);
    totals.timing.simulateCpuS = simulateCpuS;
    totals.timing.roundCpuS = std::move(roundCpu);
    totals.timing.events = Simulator::GetEventCount();
    Simulator::Destroy();

    if (totals.rounds != m_config.rounds && StopSignals::Received() != 0)
    {
        totals.stopSignal = StopSignals::Received();
    }
    else if (totals.rounds != m_config.rounds)
    {
        throw std::runtime_error("simulation ended after " + std::to_string(totals.rounds) +
                                 " of " + std::to_string(m_config.rounds) + " rounds");
    }
    return totals;
}

} // namespace ns3
