// ToConfig: typed settings, the default output folder and the cross-field checks.

#include "compression/codec-spec.h"
#include "scenario-test-util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace fedran
{
namespace
{

using nlohmann::json;
using test::MinimalScenario;
using test::Quickstart;
using test::ScenarioErrorOf;

TEST(ToConfig, RouterQueueDefaultsToTheHundredPacketFifoAndIsRead)
{
    const ScenarioConfig defaults = ToConfig(Quickstart());
    EXPECT_EQ(defaults.network.routerQueue, "fifo");
    EXPECT_EQ(defaults.network.routerQueuePackets, 100u);
    json scenario = Quickstart();
    scenario["network"]["router"] = {{"queue", {{"discipline", "fq_codel"}, {"packets", 425}}}};
    ValidateScenario(scenario);
    const ScenarioConfig config = ToConfig(scenario);
    EXPECT_EQ(config.network.routerQueue, "fq_codel");
    EXPECT_EQ(config.network.routerQueuePackets, 425u);
    json bad = Quickstart();
    bad["network"]["router"] = {{"queue", {{"discipline", "codel"}}}};
    EXPECT_NE(test::ValidationErrorOf(bad).find("network.router.queue.discipline"),
              std::string::npos);
}

TEST(ToConfig, Quickstart)
{
    const ScenarioConfig config = ToConfig(Quickstart());
    EXPECT_EQ(config.name, "quickstart");
    EXPECT_EQ(config.seed, 1u);
    EXPECT_EQ(config.rounds, 30u);
    EXPECT_EQ(config.data.dataset, "fashion-mnist");
    EXPECT_EQ(config.data.path, "/usr/share/datasets/fashion-mnist");
    EXPECT_EQ(config.data.partition, "iid");
    EXPECT_DOUBLE_EQ(config.data.alpha, 0.5);
    EXPECT_EQ(config.data.minSamples, 10u);
    EXPECT_EQ(config.modelType, "softmax");
    EXPECT_EQ(config.training.localEpochs, 1u);
    EXPECT_EQ(config.training.batchSize, 32u);
    EXPECT_DOUBLE_EQ(config.training.lr, 0.05);
    EXPECT_EQ(config.server.clientsPerRound, 10u);
    EXPECT_DOUBLE_EQ(config.server.deadlineS, 60.0);
    EXPECT_EQ(config.server.optimizer.method, "fedavg");
    EXPECT_DOUBLE_EQ(config.server.optimizer.lr, 1.0);
    ASSERT_EQ(config.groups.size(), 1u);
    EXPECT_EQ(config.groups[0].name, "cell-sites");
    EXPECT_EQ(config.groups[0].count, 20u);
    EXPECT_EQ(config.groups[0].compute.kind, ComputeSpeedSpec::Kind::Fixed);
    EXPECT_DOUBLE_EQ(config.groups[0].compute.value, 2000.0);
    EXPECT_DOUBLE_EQ(config.groups[0].availability.dropout, 0.0);
    EXPECT_FALSE(config.groups[0].availability.OnOff());
    EXPECT_DOUBLE_EQ(config.server.overSelect, 1.0);
    EXPECT_EQ(config.groups[0].backhaul.type, "p2p");
    EXPECT_EQ(config.groups[0].backhaul.rateBps, 50'000'000u);
    EXPECT_DOUBLE_EQ(config.groups[0].backhaul.delayS, 0.005);
    EXPECT_DOUBLE_EQ(config.groups[0].backhaul.loss, 0.0);
    EXPECT_EQ(config.network.coreRateBps, 1'000'000'000u);
    EXPECT_DOUBLE_EQ(config.network.coreDelayS, 0.010);
    EXPECT_EQ(config.network.transport, "tcp");
    EXPECT_EQ(config.uplinkCodec.Json(), json({{"type", "none"}}));
    EXPECT_EQ(config.downlinkCodec.Json(), json({{"type", "none"}}));
    EXPECT_EQ(config.outputDir, "results/quickstart");
    EXPECT_EQ(config.TotalClients(), 20u);
    json resolved = Quickstart();
    resolved["data"]["partition"].update({{"alpha", 0.5},
                                          {"min_samples", 10},
                                          {"shards_per_client", 2},
                                          {"sizes", {{"type", "equal"}, {"sigma", 1}}}});
    resolved["training"].update({{"momentum", 0},
                                 {"weight_decay", 0},
                                 {"fedprox_mu", 0},
                                 {"lr_schedule", {{"type", "constant"}}},
                                 {"pipelining", {{"mode", "none"}, {"bucket_bytes", 26214400}}}});
    resolved["compression"]["downlink_reference"] = "model";
    resolved["clients"]["groups"][0]["availability"] = json::object();
    resolved["clients"]["groups"][0]["compute"].update({{"cores", 1}, {"codec_speed", 1.0}});
    resolved["server"]["compute"] = {{"cores", 1}, {"speed", 1.0}};
    resolved["server"].update({{"over_select", 1.0},
                               {"mode", "sync"},
                               {"join_window_s", 1.0},
                               {"join_timeout_s", 30.0},
                               {"server_lr", 1.0},
                               {"server_momentum", 0.9},
                               {"server_beta1", 0.9},
                               {"server_beta2", 0.99},
                               {"server_tau", 0.001}});
    resolved["output"].update({{"pcap", false}, {"flowmon", false}});
    resolved["network"]["hubs"] = json::array();
    resolved["network"]["flow_ports"] = "fluid";
    resolved["network"]["router"] = {{"queue", {{"discipline", "fifo"}, {"packets", 100}}}};
    resolved["privacy"] = json::object(); // no privacy.dp: nothing in it
    resolved["faults"] = {{"corrupt_uplink", 0},
                          {"link_outages", json::array()},
                          {"server_outages", json::array()},
                          {"crashes", json::array()}};
    resolved["network"]["tcp"] = {{"congestion_control", "cubic"},
                                  {"initial_window", 10},
                                  {"delayed_ack", true},
                                  {"sack", true}};
    EXPECT_FALSE(config.downlinkClientView);
    EXPECT_EQ(config.resolved, resolved) << json::diff(resolved, config.resolved).dump();
}

TEST(ToConfig, ServerLearningRateDefaultDependsOnTheOptimizer)
{
    json scenario = Quickstart();
    scenario["server"]["aggregation"] = "fedadam";
    ScenarioConfig config = ToConfig(scenario);
    EXPECT_DOUBLE_EQ(config.server.optimizer.lr, 0.01);
    EXPECT_EQ(config.resolved["server"]["server_lr"], 0.01);
    scenario["server"]["server_lr"] = 0.5;
    EXPECT_DOUBLE_EQ(ToConfig(scenario).server.optimizer.lr, 0.5);
}

TEST(ToConfig, DefaultOutputDirFollowsName)
{
    json scenario = MinimalScenario();
    scenario["name"] = "sweep-7";
    const ScenarioConfig config = ToConfig(scenario);
    EXPECT_EQ(config.outputDir, "results/sweep-7");
    // run.json records the folder actually used, and the defaults.
    EXPECT_EQ(config.resolved["output"]["dir"], "results/sweep-7");
    EXPECT_EQ(config.resolved["training"]["batch_size"], 32);
}

TEST(ToConfig, SeveralGroupsAndCodecParameters)
{
    json scenario = MinimalScenario();
    scenario["clients"]["groups"].push_back(
        {{"name", "rural"}, {"count", 6}, {"backhaul", {{"rate", "2.5Mbps"}, {"loss", 0.01}}}});
    scenario["compression"] = {{"uplink", {{"type", "fp16"}}}};
    scenario["seed"] = 18446744073709551615ULL;
    const ScenarioConfig config = ToConfig(scenario);
    EXPECT_EQ(config.TotalClients(), 10u);
    EXPECT_EQ(config.seed, 18446744073709551615ULL);
    EXPECT_EQ(config.groups[1].backhaul.rateBps, 2'500'000u);
    EXPECT_DOUBLE_EQ(config.groups[1].backhaul.loss, 0.01);
    EXPECT_EQ(config.uplinkCodec.Json(), json({{"type", "fp16"}}));
}

TEST(ToConfig, ClientsPerRoundAboveClientCount)
{
    json scenario = MinimalScenario();
    scenario["server"]["clients_per_round"] = 5;
    EXPECT_EQ(ScenarioErrorOf([&] { ToConfig(scenario); }),
              "server.clients_per_round: 5 is more than the number of clients (4 in "
              "clients.groups)");
    scenario["server"]["clients_per_round"] = 4;
    EXPECT_EQ(ToConfig(scenario).server.clientsPerRound, 4u);
}

TEST(ToConfig, CountsBeyond32Bits)
{
    json scenario = MinimalScenario();
    scenario["rounds"] = 5'000'000'000ULL;
    scenario["clients"]["groups"].push_back({{"name", "h"}, {"count", 4'294'967'295ULL}});
    const std::string message = ScenarioErrorOf([&] { ToConfig(scenario); });
    EXPECT_NE(message.find("rounds: 5000000000 is too large"), std::string::npos) << message;
    EXPECT_NE(message.find("clients.groups: 4294967299 clients in total"), std::string::npos)
        << message;
}

TEST(ToConfig, DuplicateGroupNames)
{
    json scenario = MinimalScenario();
    scenario["clients"]["groups"].push_back({{"name", "g"}, {"count", 1}});
    EXPECT_EQ(ScenarioErrorOf([&] { ToConfig(scenario); }),
              "clients.groups.1.name: \"g\" is already the name of clients.groups.0");
}

TEST(ToConfig, CodecParametersAreCheckedByTheCodecFactory)
{
    json scenario = MinimalScenario();
    scenario["compression"] = {{"downlink", {{"type", "fp16"}, {"levle", 3}}}};
    // The schema lets codec parameters through; the factory names the bad one.
    ValidateScenario(scenario);
    const std::string message = ScenarioErrorOf([&] { ToConfig(scenario); });
    EXPECT_EQ(message.rfind("compression.downlink.levle: ", 0), 0u) << message;
}

TEST(ToConfig, SchemaCodecTypesMatchTheRegistry)
{
    std::vector<std::string> schemaNames;
    for (const json& name : ScenarioSchema()["$defs"]["codec"]["properties"]["type"]["enum"])
    {
        schemaNames.push_back(name.get<std::string>());
    }
    std::vector<std::string> registered = CodecTypeNames();
    std::sort(schemaNames.begin(), schemaNames.end());
    std::sort(registered.begin(), registered.end());
    EXPECT_EQ(schemaNames, registered) << "update the codec enum in scenarios/scenario.schema.json";
}

TEST(ToConfig, ValidatesItsInput)
{
    json scenario = MinimalScenario();
    scenario["rounds"] = "many";
    EXPECT_EQ(ScenarioErrorOf([&] { ToConfig(scenario); }),
              "rounds: expected integer, got string \"many\"");
}

} // namespace
} // namespace fedran
