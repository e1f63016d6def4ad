// The "adaptive" uplink in scenarios: controller keys are checked at load time, and the
// downlink cannot be adaptive.

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

TEST(AdaptiveScenario, DownlinkCannotBeAdaptive)
{
    json scenario = Quickstart();
    scenario["compression"]["downlink"] = json::parse(R"({"type": "adaptive",
        "ladder": [{"type": "none"}]})");
    EXPECT_NE(ScenarioErrorOf([&] {
                  ToConfig(scenario);
              }).find("compression.downlink.type: \"adaptive\" is for the uplink only"),
              std::string::npos);
}

} // namespace
} // namespace fedran
