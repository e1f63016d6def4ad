#include "simulator/fl-experiment.h"

#include "models/learning/partition-summary.h"
#include "models/ns3/helper/fl-client-helper.h"
#include "models/ns3/helper/fl-server-helper.h"
#include "models/ns3/helper/fl-stats-helper.h"
#include "models/ns3/helper/link-sampler.h"
#include "models/ns3/helper/path-capacity.h"
#include "models/ns3/model/client-availability.h"
#include "models/ns3/model/fl-client-app.h"
#include "models/ns3/model/fl-server-app.h"
#include "models/ns3/model/thread-pool.h"
#include "models/trace/csv-writer.h"
#include "models/trace/trace-schema.h"
#include "simulator/core/federated-task-builder.h"
#include "simulator/core/output-folder.h"
#include "simulator/edge-round-trace.h"
#include "simulator/edge-tiers.h"
#include "simulator/network-topology.h"
#include "simulator/packet-capture.h"
#include "simulator/run-timing.h"
#include "simulator/scheduled-outages.h"
#include "simulator/stop-signals.h"

#include <ns3/boolean.h>
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

void
StopSimulation()
{
    // The run ends with its last round: stragglers' uploads and TCP timers may still be
    // scheduled, and simulating them would only add wall time.
    Simulator::Stop();
}

} // namespace

FlExperiment::FlExperiment(fedran::ScenarioConfig config, unsigned threads)
    : m_config(std::move(config))
    , m_threads(threads)
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

/// What one Run builds, step by step (FlExperiment's steps fill it in order).
struct FlExperiment::RunState
{
    std::string outDir;
    WallClock::time_point setupStart;
    Ptr<MessageTransport> transport;
    std::unique_ptr<NetworkTopology> topology;
    std::unique_ptr<FlServerHelper> serverHelper;
    /// server.selection "network": each client's path capacity now, from the topology's links.
    std::unique_ptr<PathCapacity> paths;
    NodeContainer serverNode;
    Ptr<FlServerApp> server;
    std::unique_ptr<EdgeTiers> tiers;
    std::shared_ptr<ThreadPool> pool;
    std::vector<double> crashProbability;                ///< per client
    std::vector<double> crashRestartS;                   ///< per client
    std::vector<Ptr<ClientAvailability>> availabilities; ///< in the order they were made
    /// One helper per tier the sites report to: its address, deadline and model codec.
    std::map<int32_t, std::unique_ptr<FlClientHelper>> clientHelpers;
    ApplicationContainer clientApps; ///< in client order (stated clients share a node)
    std::vector<Ptr<FlClientApp>> clients;
    std::vector<std::string> groupNames;                 ///< per client
    std::vector<Ptr<ClientAvailability>> availabilityOf; ///< per client; null: always on
    std::vector<Ptr<FlEdgeApp>> aggregators;
    std::unique_ptr<FlStatsHelper> stats;
    std::unique_ptr<EdgeRoundTrace> edgeRounds;
    std::unique_ptr<LinkSampler> links;
    std::unique_ptr<PacketCapture> capture;
    RoundTimer rounds; ///< wall and CPU time of each round, for run.json's timing
    JoinRecord join;
    double setupWallS = 0.0;
    WallClock::time_point simulateStart;
    double simulateWallS = 0.0;
    double simulateCpuS = 0.0;
};

RunTotals
FlExperiment::Run(const std::string& outDir, RoundObserver observer)
{
    if (!m_task)
    {
        Prepare();
    }
    RunState run;
    run.outDir = outDir;
    run.setupStart = WallClock::now();
    BuildNetwork(run);
    InstallServer(run);
    InstallClients(run);
    AssignStreamsAndInstallAggregators(run);
    ConnectTraces(run, std::move(observer));
    Simulate(run);
    return CollectTotals(run);
}

void
FlExperiment::BuildNetwork(RunState& run) const
{
    ConfigureBackhaulTcp(m_config.network.tcp);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(m_config.seed);

    run.transport = CreateMessageTransport(m_config.network.transport);
    // network.flow_ports concerns a transport that models flows; packet transports are
    // packet level at every port already.
    if (m_config.network.flowPorts == "packet" && !run.transport->CarriesPackets())
    {
        run.transport->SetAttribute("PortModel", BooleanValue(true));
    }
    // The server holds a connection per client; split its TCP endpoint table so that each
    // packet it receives is looked up among ~32 endpoints, not all of them (docs/architecture.md).
    run.transport->SetAttributeFailSafe(
        "ListenShards",
        UintegerValue(std::max<size_t>(1, (m_clientGroup.size() + 31) / 32)));
    run.topology =
        std::make_unique<NetworkTopology>(m_config, m_clientGroup, run.transport->CarriesPackets());
    run.transport->SetTopology(run.topology->GetTransportTopology());
}

void
FlExperiment::InstallServer(RunState& run) const
{
    run.serverHelper = std::make_unique<FlServerHelper>(m_task, run.transport);
    FlServerHelper& serverHelper = *run.serverHelper;
    serverHelper.SetAttribute("Port", UintegerValue(kServerPort));
    serverHelper.SetAttribute("Rounds", UintegerValue(m_config.rounds));
    serverHelper.SetAttribute("ClientsPerRound", UintegerValue(m_config.server.clientsPerRound));
    serverHelper.SetAttribute("OverSelect", DoubleValue(m_config.server.overSelect));
    serverHelper.SetAttribute("Deadline", TimeValue(Seconds(m_config.server.deadlineS)));
    serverHelper.SetAttribute("JoinTimeout", TimeValue(Seconds(m_config.server.joinTimeoutS)));
    run.serverNode = NodeContainer(run.topology->GetServer());
    run.server = DynamicCast<FlServerApp>(serverHelper.Install(run.serverNode).Get(0));
    if (m_config.server.async)
    {
        run.server->SetAsync(m_config.server.asyncConfig);
    }
    if (m_config.server.selection.type == "network")
    {
        run.paths = std::make_unique<PathCapacity>(*run.topology);
        const PathCapacity* paths = run.paths.get();
        run.server->SetPathRates([paths](uint32_t client) { return paths->Of(client); });
    }

    // Edge aggregation: the server's children include the top aggregating hubs, and each
    // site talks to the nearest aggregator up its hub chain (docs/hierarchical.md).
    run.tiers = std::make_unique<EdgeTiers>(m_config, *m_task);
    if (run.tiers->Any())
    {
        run.server->SetAggregatorChildren(run.tiers->AggregatorChildren(EdgeTiers::kServer));
    }
}

Ptr<ClientAvailability>
FlExperiment::MakeAvailability(RunState& run, uint32_t i) const
{
    const fedran::AvailabilityConfig& availability = m_config.groups[m_clientGroup[i]].availability;
    if (!(availability.dropout > 0.0 || availability.OnOff()))
    {
        return nullptr;
    }
    Ptr<ClientAvailability> process = CreateObject<ClientAvailability>();
    process->SetAttribute("DropoutProbability", DoubleValue(availability.dropout));
    process->SetAttribute("MeanOnTime", TimeValue(Seconds(availability.meanOnS)));
    process->SetAttribute("MeanOffTime", TimeValue(Seconds(availability.meanOffS)));
    run.availabilities.push_back(process);
    return process;
}

FlClientHelper&
FlExperiment::ClientHelperFor(RunState& run, int32_t tier) const
{
    std::unique_ptr<FlClientHelper>& helper = run.clientHelpers[tier];
    if (helper)
    {
        return *helper;
    }
    const Ipv4Address address = tier == EdgeTiers::kServer
                                    ? run.topology->GetServerAddress()
                                    : run.topology->GetHubAddress(uint32_t(tier));
    helper = std::make_unique<FlClientHelper>(m_task,
                                              InetSocketAddress(address, kServerPort),
                                              run.transport);
    helper->SetAttribute("Deadline", TimeValue(Seconds(run.tiers->DeadlineOf(tier))));
    helper->SetAttribute("JoinWindow", TimeValue(Seconds(m_config.server.joinWindowS)));
    if (tier != EdgeTiers::kServer)
    {
        helper->SetAttribute("DownlinkCodec",
                             StringValue(run.tiers->DownlinkCodecOf(tier).Json().dump()));
    }
    helper->SetSamplesPerSecond(m_samplesPerSecond);
    helper->SetAttribute("CorruptUplink", DoubleValue(m_config.faults.corruptUplink));
    helper->SetCrashes(run.crashProbability, run.crashRestartS);
    helper->SetTrainingPool(run.pool);
    helper->SetAvailability([this, &run](uint32_t i) { return MakeAvailability(run, i); });
    return *helper;
}

void
FlExperiment::InstallClients(RunState& run) const
{
    run.pool = std::make_shared<ThreadPool>(m_threads);
    for (uint32_t group : m_clientGroup)
    {
        run.crashProbability.push_back(m_config.faults.crashProbability.at(group));
        run.crashRestartS.push_back(m_config.faults.crashRestartS.at(group));
    }
    run.availabilityOf.assign(m_clientGroup.size(), nullptr);
    for (uint32_t i = 0; i < m_clientGroup.size(); ++i)
    {
        FlClientHelper& clientHelper = ClientHelperFor(run, run.tiers->TierOfClient(i));
        clientHelper.SetNextClientId(i);
        const size_t before = run.availabilities.size();
        ApplicationContainer app = clientHelper.Install(run.topology->GetClient(i)); // ClientId i
        if (run.availabilities.size() > before)
        {
            run.availabilityOf[i] = run.availabilities.back();
        }
        if (run.topology->IsStated(i))
        {
            app.Get(0)->SetAttribute("Endpoint", UintegerValue(run.topology->GetClientEndpoint(i)));
        }
        app.Start(Seconds(run.topology->GetLink(i).ReadyS()));
        run.clientApps.Add(app);
        run.clients.push_back(DynamicCast<FlClientApp>(app.Get(0)));
        run.groupNames.push_back(m_config.groups[m_clientGroup[i]].name);
    }
    fedran::RecordOutputFile(run.outDir, "partition.csv");
    if (m_task->generated)
    {
        std::vector<uint32_t> samples(m_task->Clients());
        for (uint32_t i = 0; i < samples.size(); ++i)
        {
            samples[i] = m_task->Examples(i);
        }
        fedran::WriteSampleCountsCsv(run.outDir + "/partition.csv", samples, run.groupNames);
        return;
    }
    fedran::WritePartitionCsv(run.outDir + "/partition.csv",
                              m_task->partition,
                              m_task->data->train.y,
                              m_task->data->train.classes,
                              run.groupNames);
}

void
FlExperiment::AssignStreamsAndInstallAggregators(RunState& run) const
{
    // Fixed stream numbers: the draws do not depend on how many objects ns-3 created first.
    int64_t stream = 0;
    stream += run.topology->AssignStreams(stream);
    stream += run.serverHelper->AssignStreams(run.serverNode, stream);
    stream += FlClientHelper::AssignStreams(run.clientApps, stream);
    stream += run.transport->AssignStreams(stream); // "tcp" runs keep their stream numbers
    std::vector<bool> initiallyOn(m_clientGroup.size(), true);
    for (uint32_t i = 0; i < m_clientGroup.size(); ++i)
    {
        initiallyOn[i] = !run.availabilityOf[i] || run.availabilityOf[i]->InitiallyOn();
    }
    // The first round starts once every child that is there at time 0 has joined (or at the
    // join timeout); clients that are off join when they turn on.
    run.server->SetAttribute(
        "ExpectedClients",
        UintegerValue(std::max(run.tiers->ExpectedChildren(EdgeTiers::kServer, initiallyOn), 1u)));
    run.aggregators =
        run.tiers->Install(*run.topology, m_task, run.transport, kServerPort, initiallyOn);
    for (Ptr<FlEdgeApp> aggregator : run.aggregators)
    {
        stream += aggregator->AssignStreams(stream);
    }
    WritePopulation(run.outDir, run.groupNames, m_samplesPerSecond, *run.topology);
}

void
FlExperiment::ConnectStats(RunState& run) const
{
    const NetworkTopology& topology = *run.topology;
    run.stats = std::make_unique<FlStatsHelper>(run.outDir,
                                                run.groupNames,
                                                m_config.uplinkCodec.Type(),
                                                m_config.server.selection.Traits().scores);
    FlStatsHelper& stats = *run.stats;
    stats.SetAsync(m_config.server.async);
    stats.SetAdaptive(m_config.uplinkCodec.Traits().adaptive);
    stats.SetAttacks(m_task->attacks);
    std::vector<std::optional<fedran::EnergySpec>> energy; // clients numbered group by group
    for (const fedran::ClientGroupConfig& group : m_config.groups)
    {
        energy.insert(energy.end(), group.count, group.energy);
    }
    stats.SetEnergy(std::move(energy), m_config.server.energyComputeW);
    std::vector<std::string> clientHubs;
    for (uint32_t i = 0; i < run.clients.size(); ++i)
    {
        clientHubs.push_back(topology.GetClientHub(i));
    }
    stats.Connect(run.server, run.clients, clientHubs);
    // A transport that carries no packets counts the wire bytes itself.
    stats.SetLinkCounters(run.transport->GetLinkCounters());
    for (uint32_t i = 0; i < run.clients.size() && !run.transport->GetLinkCounters(); ++i)
    {
        stats.ConnectClientLink(topology.GetLink(i));
    }
    if (!run.tiers->Any())
    {
        return;
    }
    std::vector<std::string> hubNames;
    for (uint32_t h = 0; h < topology.GetHubCount(); ++h)
    {
        hubNames.push_back(topology.GetHubName(h));
    }
    run.edgeRounds = std::make_unique<EdgeRoundTrace>(run.outDir, hubNames);
    for (size_t k = 0; k < run.aggregators.size(); ++k)
    {
        const uint32_t h = run.tiers->Aggregators()[k];
        const int32_t parent = m_config.network.hubs[h].parent;
        stats.ConnectAggregator(run.aggregators[k],
                                run.tiers->ChildId(h),
                                hubNames[h],
                                parent == fedran::HubConfig::kCore ? "" : hubNames[parent]);
        run.edgeRounds->Connect(run.aggregators[k]);
    }
}

void
FlExperiment::ConnectTraces(RunState& run, RoundObserver observer) const
{
    ConnectStats(run);
    run.stats->SetRoundObserver(
        [&run, observer = std::move(observer)](const fedran::RoundRecord& record,
                                               const RunTotals& totals) {
            run.rounds.RoundEnded(run.join);
            if (!record.secaggFailure.empty())
            {
                // Never silent: the row says failed_<stage>, run.json lists the rounds.
                std::cerr << "fedran: round " << record.round << ": secure aggregation failed ("
                          << record.secaggStatus << "): " << record.secaggFailure
                          << "; the model is unchanged\n";
            }
            if (observer)
            {
                observer(record, totals);
            }
        });
    if (m_config.linkSampleS > 0)
    {
        run.links = std::make_unique<LinkSampler>(run.outDir,
                                                  run.topology->GetDirections(),
                                                  m_config.linkSampleS,
                                                  run.transport->GetLinkCounters());
    }
    ScheduleOutages(m_config.faults, *run.topology);
    run.capture = std::make_unique<PacketCapture>(run.outDir,
                                                  *run.topology,
                                                  m_config.pcapLinks,
                                                  m_config.flowmon);
    run.server->TraceConnectWithoutContext("Finished", MakeCallback(&StopSimulation));
    run.server->TraceConnectWithoutContext("JoinClosed",
                                           MakeCallback(&JoinRecord::Closed, &run.join));
}

void
FlExperiment::Simulate(RunState& run) const
{
    run.setupWallS = SecondsSince(run.setupStart);
    run.simulateStart = WallClock::now();
    const double simulateStartCpu = ProcessCpuSeconds();
    run.join.wall = run.simulateStart;
    run.join.cpuS = simulateStartCpu;
    StopSignals::Arm();
    Simulator::Run();
    StopSignals::Disarm();
    run.simulateWallS = SecondsSince(run.simulateStart);
    run.simulateCpuS = ProcessCpuSeconds() - simulateStartCpu;
    run.capture->Finish();
    run.stats->Finish();
}

RunTotals
FlExperiment::CollectTotals(RunState& run) const
{
    RunTotals totals = run.stats->Totals();
    totals.clientsJoined = run.join.joined;
    totals.clientsExpected = run.join.expected;
    totals.joinTimeS = run.join.timeS;
    totals.timing.prepareWallS = m_prepareWallS;
    totals.timing.setupWallS = run.setupWallS;
    totals.timing.joinWallS =
        std::chrono::duration<double>(run.join.wall - run.simulateStart).count();
    totals.timing.simulateWallS = run.simulateWallS;
    totals.timing.roundWallS = std::move(run.rounds.wallS);
    totals.timing.simulateCpuS = run.simulateCpuS;
    totals.timing.roundCpuS = std::move(run.rounds.cpuS);
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
