// The "adaptive" codec in scenarios: controller keys are checked at load time; an adaptive
// downlink loads with its own keys and is refused where its protocol cannot run.

#include "scenario-test-util.h"

#include <gtest/gtest.h>

namespace fedran
{
namespace
{

using nlohmann::json;
using test::Quickstart;
using test::ScenarioErrorOf;

json
WithUplink(const std::string& uplink)
{
    json scenario = Quickstart();
    scenario["compression"]["uplink"] = json::parse(uplink);
    return scenario;
}

TEST(AdaptiveScenario, ValidLadderLoads)
{
    const ScenarioConfig config = ToConfig(WithUplink(R"({"type": "adaptive",
        "policy": "deadline", "safety": 0.8,
        "ladder": [{"type": "none"}, {"type": "quantization", "bits": 8},
                   {"type": "error_feedback", "base": {"type": "top_k", "ratio": 0.01}},
                   {"type": "sign"}]})"));
    EXPECT_EQ(config.uplinkCodec.Json().at("policy"), "deadline");
}

TEST(AdaptiveScenario, ControllerErrorsNameTheirKey)
{
    EXPECT_NE(ScenarioErrorOf([] {
                  ToConfig(WithUplink(R"({"type": "adaptive", "policy": "fastest",
                                          "ladder": [{"type": "none"}]})"));
              }).find("compression.uplink.policy: must be one of"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf([] {
                  ToConfig(WithUplink(R"({"type": "adaptive", "safety": 2,
                                          "ladder": [{"type": "none"}]})"));
              }).find("compression.uplink.safety"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf([] {
                  ToConfig(WithUplink(R"({"type": "adaptive",
                                          "ladder": [{"type": "top_k", "ratio": -1}]})"));
              }).find("compression.uplink.ladder[0].ratio"),
              std::string::npos);
}

TEST(AdaptiveScenario, AdagqNeedsNoLadderAndRefusesAsyncRounds)
{
    const ScenarioConfig config =
        ToConfig(WithUplink(R"({"type": "adaptive", "policy": "adagq"})"));
    EXPECT_EQ(config.uplinkCodec.Json().at("ladder").size(), 8u); // 255, 127, .., 1
    json scenario = WithUplink(R"({"type": "adaptive", "policy": "adagq"})");
    scenario["server"]["mode"] = "async";
    scenario["server"]["async"] = {{"buffer", 5}, {"concurrency", 8}};
    EXPECT_NE(ScenarioErrorOf([&] {
                  ToConfig(scenario);
              }).find("compression.uplink.policy: \"adagq\" runs in synchronous rounds"),
              std::string::npos);
}

json
WithDownlink(const std::string& downlink)
{
    json scenario = Quickstart();
    scenario["compression"]["downlink"] = json::parse(downlink);
    return scenario;
}

const char* const kDownlinkLadder = R"({"type": "adaptive", "window": 3,
    "ladder": [{"type": "none"}, {"type": "quantization", "bits": 8},
               {"type": "quantization", "bits": 2}]})";

TEST(AdaptiveScenario, AdaptiveDownlinkLoads)
{
    const ScenarioConfig config = ToConfig(WithDownlink(kDownlinkLadder));
    EXPECT_TRUE(config.downlinkCodec.Traits().adaptive);
    EXPECT_EQ(config.downlinkCodec.Children().size(), 3u);
}

TEST(AdaptiveScenario, AdaptiveDownlinkRefusesWhatItCannotHonour)
{
    auto errorOf = [](const json& scenario) {
        return ScenarioErrorOf([&] { ToConfig(scenario); });
    };
    auto has = [](const std::string& text, const std::string& part) {
        return text.find(part) != std::string::npos;
    };
    // Only the time policy, and no uplink controller key it would ignore.
    EXPECT_TRUE(has(errorOf(WithDownlink(R"({"type": "adaptive", "policy": "deadline",
                                             "ladder": [{"type": "none"}]})")),
                    "compression.downlink.policy: the downlink's only policy is \"time\""));
    EXPECT_TRUE(has(errorOf(WithDownlink(R"({"type": "adaptive", "safety": 0.5,
                                             "ladder": [{"type": "none"}]})")),
                    "compression.downlink.safety: not a key of an adaptive downlink"));

    json async = WithDownlink(kDownlinkLadder);
    async["server"]["mode"] = "async";
    async["server"]["async"] = {{"buffer", 5}, {"concurrency", 8}};
    EXPECT_TRUE(has(errorOf(async), "compression.downlink.type: \"adaptive\""));
    EXPECT_TRUE(has(errorOf(async), "server.mode"));

    json layerwise = WithDownlink(kDownlinkLadder);
    layerwise["training"]["pipelining"] = {{"mode", "layerwise"}};
    EXPECT_TRUE(has(errorOf(layerwise), "training.pipelining.mode \"layerwise\""));

    json powerSgd = WithDownlink(kDownlinkLadder);
    powerSgd["compression"]["uplink"] = {{"type", "power_sgd"}, {"rank", 2}};
    EXPECT_TRUE(has(errorOf(powerSgd), "compression.uplink.type power_sgd takes two exchanges"));

    // A rung with per-client state needs the client_view reference.
    const char* const stateful = R"({"type": "adaptive", "ladder": [{"type": "none"},
        {"type": "error_feedback", "base": {"type": "quantization", "bits": 2}}]})";
    EXPECT_TRUE(has(errorOf(WithDownlink(stateful)),
                    "compression.downlink.ladder[1]: error_feedback(quantization) keeps a state "
                    "per receiving client, which needs compression.downlink_reference"));
    json view = WithDownlink(stateful);
    view["compression"]["downlink_reference"] = "client_view";
    EXPECT_NO_THROW(ToConfig(view));
}

} // namespace
} // namespace fedran
