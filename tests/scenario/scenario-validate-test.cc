// ValidateScenario with the real schema: defaults, and path-first messages for bad input.

#include "compression/codec-spec.h"
#include "scenario-test-util.h"

#include <gtest/gtest.h>

#include <string>

namespace fedran
{
namespace
{

using nlohmann::json;
using test::MinimalScenario;
using test::Quickstart;
using test::ValidationErrorOf;

bool
Contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

/// The validator fills data.synthetic in every scenario (ToConfig drops it unless used).
constexpr const char* kSyntheticDefaults = R"({
    "alpha": 1, "beta": 1, "features": 60, "classes": 10, "test_fraction": 0.1,
    "generate": "upfront", "test_clients": 1000,
    "samples": {"type": "lognormal", "mu": 4, "sigma": 2, "base": 50, "cap": 0}
})";
constexpr const char* kCellTrafficDefaults = R"({
    "format": "synthetic", "path": "", "signal": "internet", "cells": 16, "days": 28, "seed": 0,
    "window": 36, "period_days": 3, "horizon": 1, "test_days": 7
})";

TEST(ValidateScenario, QuickstartValidatesAndResolvesDefaults)
{
    json scenario = Quickstart();
    json expected = scenario;
    ValidateScenario(scenario);
    // Quickstart spells out every default but the partition settings other than iid's, the
    // synthetic generator, the training options beyond plain SGD, the downlink reference and
    // the packet captures, the router's queues and TCP.
    expected["data"]["partition"].update({{"alpha", 0.5},
                                          {"min_samples", 10},
                                          {"shards_per_client", 2},
                                          {"sizes", {{"type", "equal"}, {"sigma", 1}}}});
    expected["data"]["synthetic"] = json::parse(kSyntheticDefaults);
    expected["data"]["cell_traffic"] = json::parse(kCellTrafficDefaults);
    expected["training"].update({{"momentum", 0},
                                 {"weight_decay", 0},
                                 {"fedprox_mu", 0},
                                 {"lr_schedule", {{"type", "constant"}}},
                                 {"pipelining", {{"mode", "none"}, {"bucket_bytes", 26214400}}}});
    expected["compression"]["downlink_reference"] = "model";
    expected["network"]["flow_ports"] = "fluid";
    expected["clients"]["groups"][0]["availability"] = json::object();
    expected["clients"]["groups"][0]["energy"] = json::object(); // none; ToConfig drops it
    expected["clients"]["groups"][0]["compute"].update({{"cores", 1}, {"codec_speed", 1}});
    expected["server"]["compute"] = {{"cores", 1}, {"speed", 1}};
    expected["server"].update({{"over_select", 1},
                               {"mode", "sync"},
                               {"join_window_s", 1},
                               {"join_timeout_s", 30},
                               {"server_momentum", 0.9},
                               {"server_beta1", 0.9},
                               {"server_beta2", 0.99},
                               {"server_tau", 0.001}});
    expected["output"].update({{"pcap", false}, {"flowmon", false}});
    expected["network"]["hubs"] = json::array();
    expected["network"]["router"] = {{"queue", {{"discipline", "fifo"}, {"packets", 100}}}};
    expected["privacy"] = json::object(); // no privacy.dp: nothing in it
    expected["faults"] = {{"corrupt_uplink", 0},
                          {"link_outages", json::array()},
                          {"server_outages", json::array()},
                          {"crashes", json::array()}};
    expected["network"]["tcp"] = {{"congestion_control", "cubic"},
                                  {"initial_window", 10},
                                  {"delayed_ack", true},
                                  {"sack", true}};
    EXPECT_EQ(scenario, expected) << json::diff(expected, scenario).dump();
}

TEST(ValidateScenario, MinimalScenarioGetsEveryDefault)
{
    json scenario = MinimalScenario();
    ValidateScenario(scenario);
    json expected = json::parse(R"({
        "name": "scenario",
        "seed": 1,
        "rounds": 5,
        "data": {
            "dataset": "fashion-mnist",
            "path": "/usr/share/datasets/fashion-mnist",
            "partition": {"type": "iid", "alpha": 0.5, "min_samples": 10,
                          "shards_per_client": 2, "sizes": {"type": "equal", "sigma": 1}}
        },
        "model": {"type": "softmax"},
        "training": {"local_epochs": 1, "batch_size": 32, "lr": 0.05, "momentum": 0,
                     "weight_decay": 0, "fedprox_mu": 0, "lr_schedule": {"type": "constant"},
                     "pipelining": {"mode": "none", "bucket_bytes": 26214400}},
        "server": {"clients_per_round": 2, "over_select": 1, "deadline_s": 60,
                   "join_window_s": 1, "join_timeout_s": 30, "aggregation": "fedavg",
                   "mode": "sync", "server_momentum": 0.9, "server_beta1": 0.9, "server_beta2": 0.99,
                   "server_tau": 0.001, "compute": {"cores": 1, "speed": 1}},
        "clients": {"groups": [{
            "name": "g",
            "count": 4,
            "compute": {"samples_per_second": 2000, "cores": 1, "codec_speed": 1},
            "availability": {},
            "energy": {},
            "backhaul": {"type": "p2p", "rate": "50Mbps", "delay": "5ms", "loss": 0}
        }]},
        "network": {"core": {"rate": "1Gbps", "delay": "10ms",
                             "queue": {"discipline": "fifo", "packets": 100}},
                    "router": {"queue": {"discipline": "fifo", "packets": 100}},
                    "tcp": {"congestion_control": "cubic", "initial_window": 10,
                            "delayed_ack": true, "sack": true},
                    "transport": "tcp", "flow_ports": "fluid", "hubs": []},
        "compression": {"uplink": {"type": "none"}, "downlink": {"type": "none"},
                        "downlink_reference": "model"},
        "output": {"link_sample_s": 1, "pcap": false, "flowmon": false},
        "faults": {"corrupt_uplink": 0, "link_outages": [], "server_outages": [], "crashes": []},
        "privacy": {}
    })");
    expected["data"]["synthetic"] = json::parse(kSyntheticDefaults);
    expected["data"]["cell_traffic"] = json::parse(kCellTrafficDefaults);
    EXPECT_EQ(scenario, expected) << json::diff(expected, scenario).dump();
}

TEST(ValidateScenario, IsIdempotent)
{
    json once = MinimalScenario();
    ValidateScenario(once);
    json twice = once;
    ValidateScenario(twice);
    EXPECT_EQ(once, twice);
}

TEST(ValidateScenario, FailureLeavesScenarioUntouched)
{
    json scenario = MinimalScenario();
    scenario["training"] = {{"lr", "fast"}};
    const json before = scenario;
    ValidationErrorOf(scenario);
    EXPECT_THROW(ValidateScenario(scenario), ScenarioError);
    EXPECT_EQ(scenario, before);
}

TEST(ValidateScenario, UnknownKeySuggestsNearest)
{
    json scenario = MinimalScenario();
    scenario["server"]["deadline"] = 30;
    EXPECT_EQ(ValidationErrorOf(scenario),
              "server.deadline: unknown key; did you mean \"deadline_s\"?");
}

TEST(ValidateScenario, WrongType)
{
    json scenario = MinimalScenario();
    scenario["training"] = {{"lr", "fast"}};
    EXPECT_EQ(ValidationErrorOf(scenario), "training.lr: expected number, got string \"fast\"");
}

TEST(ValidateScenario, NegativeRate)
{
    json scenario = MinimalScenario();
    scenario["clients"]["groups"][0]["backhaul"] = {{"rate", "-5Mbps"}};
    EXPECT_EQ(ValidationErrorOf(scenario),
              "clients.groups.0.backhaul.rate: \"-5Mbps\" is not a data rate (negative)");
}

TEST(ValidateScenario, RateGarbage)
{
    json scenario = MinimalScenario();
    scenario["network"] = {{"core", {{"rate", "lots"}}}};
    const std::string message = ValidationErrorOf(scenario);
    EXPECT_TRUE(Contains(message, "network.core.rate: \"lots\" is not a data rate")) << message;
}

TEST(ValidateScenario, MissingRequiredKeys)
{
    const std::string message = ValidationErrorOf(json::object());
    EXPECT_TRUE(Contains(message, "rounds: missing required key")) << message;
    EXPECT_TRUE(Contains(message, "server: missing required key")) << message;
    EXPECT_TRUE(Contains(message, "clients: missing required key")) << message;
}

TEST(ValidateScenario, MultipleErrorsReportedTogether)
{
    json scenario = MinimalScenario();
    scenario["rounds"] = 0;
    scenario["training"] = {{"lr", "fast"}};
    scenario["server"]["deadline"] = 30;
    scenario["clients"]["groups"][0]["backhaul"] = {{"rate", "-5Mbps"}, {"loss", 1.0}};
    scenario["data"] = {{"dataset", "cifar10"}};
    scenario["compression"] = {{"uplink", {{"type", "zip"}, {"level", 9}}}};
    const std::string message = ValidationErrorOf(scenario);
    const char* expected[] = {
        "rounds: 0 is less than the minimum 1",
        "training.lr: expected number, got string \"fast\"",
        "server.deadline: unknown key; did you mean \"deadline_s\"?",
        "clients.groups.0.backhaul.rate: \"-5Mbps\" is not a data rate (negative)",
        "clients.groups.0.backhaul.loss: 1.0 must be less than 1",
        "data.dataset: \"cifar10\" is not one of \"fashion-mnist\", \"mnist\", \"csv\", "
        "\"synthetic\", \"cell-traffic\"",
        "compression.uplink.type: \"zip\" is not one of \"none\", \"fp16\", \"top_k\", "
        "\"random_k\", \"threshold\", \"quantization\", \"qsgd\", \"sign\", "
        "\"error_feedback\", \"clipped\", \"dgc\", \"power_sgd\", \"adaptive\"",
    };
    size_t lines = 1;
    for (char c : message)
    {
        lines += c == '\n' ? 1 : 0;
    }
    EXPECT_EQ(lines, std::size(expected)) << message;
    for (const char* line : expected)
    {
        EXPECT_TRUE(Contains("\n" + message + "\n", std::string("\n").append(line).append("\n")))
            << "missing line: " << line << "\nin:\n"
            << message;
    }
}

TEST(ValidateScenario, CodecSpecsAllowExtraKeys)
{
    json scenario = MinimalScenario();
    scenario["compression"] = {{"uplink", {{"type", "fp16"}, {"anything", {1, 2}}}}};
    ValidateScenario(scenario);
    EXPECT_EQ(scenario["compression"]["uplink"]["anything"], json({1, 2}));
    EXPECT_EQ(scenario["compression"]["downlink"], json({{"type", "none"}}));
    scenario["compression"]["downlink"] = json::object();
    EXPECT_EQ(ValidationErrorOf(scenario), "compression.downlink.type: missing required key");
}

TEST(ValidateScenario, ObjectsWhereScalarsBelongAndViceVersa)
{
    json scenario = MinimalScenario();
    scenario["clients"]["groups"] = {{"name", "g"}};
    EXPECT_EQ(ValidationErrorOf(scenario), "clients.groups: expected array, got object");
    scenario = MinimalScenario();
    scenario["data"] = json::array({1});
    EXPECT_EQ(ValidationErrorOf(scenario), "data: expected object, got array");
    EXPECT_EQ(ValidationErrorOf(json::array()), "(root): expected object, got array");
}

} // namespace
} // namespace fedran
