// compute.samples_per_second as a number or a distribution, availability, over_select: what
// ToConfig reads, and the path-named errors for combinations the schema can't rule out.

#include "scenario-test-util.h"

#include <gtest/gtest.h>

namespace fedran
{
namespace
{

using nlohmann::json;
using test::MinimalScenario;
using test::ScenarioErrorOf;
using test::SourcePath;
using test::ValidationErrorOf;

json
WithSpeed(const json& speed)
{
    json scenario = MinimalScenario();
    scenario["clients"]["groups"][0]["compute"] = {{"samples_per_second", speed}};
    return scenario;
}

json
WithAvailability(const json& availability)
{
    json scenario = MinimalScenario();
    scenario["clients"]["groups"][0]["availability"] = availability;
    return scenario;
}

TEST(ComputeSpeedConfig, ReadsEachDistribution)
{
    ComputeSpeedSpec spec =
        ToConfig(WithSpeed({{"dist", "lognormal"}, {"median", 800}, {"sigma", 0.5}}))
            .groups[0]
            .compute;
    EXPECT_EQ(spec.kind, ComputeSpeedSpec::Kind::Lognormal);
    EXPECT_DOUBLE_EQ(spec.median, 800.0);
    EXPECT_DOUBLE_EQ(spec.sigma, 0.5);

    spec = ToConfig(WithSpeed({{"dist", "uniform"}, {"min", 100}, {"max", 300}})).groups[0].compute;
    EXPECT_EQ(spec.kind, ComputeSpeedSpec::Kind::Uniform);
    EXPECT_DOUBLE_EQ(spec.min, 100.0);
    EXPECT_DOUBLE_EQ(spec.max, 300.0);

    spec = ToConfig(WithSpeed({{"dist", "tiers"},
                               {"tiers",
                                {{{"samples_per_second", 4000}, {"share", 0.25}},
                                 {{"samples_per_second", 500}, {"share", 0.75}}}}}))
               .groups[0]
               .compute;
    EXPECT_EQ(spec.kind, ComputeSpeedSpec::Kind::Tiers);
    ASSERT_EQ(spec.tiers.size(), 2u);
    EXPECT_DOUBLE_EQ(spec.tiers[1].samplesPerSecond, 500.0);
    EXPECT_DOUBLE_EQ(spec.tiers[1].share, 0.75);

    spec = ToConfig(WithSpeed(1234)).groups[0].compute;
    EXPECT_EQ(spec.kind, ComputeSpeedSpec::Kind::Fixed);
    EXPECT_DOUBLE_EQ(spec.value, 1234.0);
}

TEST(ComputeSpeedConfig, ErrorsNameTheKey)
{
    EXPECT_EQ(ScenarioErrorOf([] {
                  ToConfig(WithSpeed({{"dist", "lognormal"}, {"median", 5}}));
              }),
              "clients.groups.0.compute.samples_per_second.sigma: missing (dist \"lognormal\" "
              "needs it)");
    EXPECT_EQ(ScenarioErrorOf([] {
                  ToConfig(WithSpeed({{"dist", "uniform"}, {"min", 5}, {"max", 9}, {"sigma", 1}}));
              }),
              "clients.groups.0.compute.samples_per_second.sigma: not a parameter of dist "
              "\"uniform\"");
    EXPECT_EQ(ScenarioErrorOf([] {
                  ToConfig(WithSpeed({{"dist", "uniform"}, {"min", 5}, {"max", 4}}));
              }),
              "clients.groups.0.compute.samples_per_second.max: 4 is below min (5)");
    EXPECT_EQ(ScenarioErrorOf([] {
                  ToConfig(WithSpeed({{"dist", "tiers"},
                                      {"tiers",
                                       {{{"samples_per_second", 4}, {"share", 0.5}},
                                        {{"samples_per_second", 8}, {"share", 0.4}}}}}));
              }),
              "clients.groups.0.compute.samples_per_second.tiers: the shares sum to 0.900000, "
              "not 1");
    // The schema's own checks: the number's bound and the distribution names.
    EXPECT_NE(ValidationErrorOf(WithSpeed(0)).find("samples_per_second"), std::string::npos);
    EXPECT_NE(ValidationErrorOf(WithSpeed({{"dist", "normal"}})).find("samples_per_second.dist"),
              std::string::npos);
    EXPECT_NE(ValidationErrorOf(WithSpeed("fast")).find("samples_per_second"), std::string::npos);
}

TEST(AvailabilityConfig, DropoutOrOnOff)
{
    AvailabilityConfig a = ToConfig(WithAvailability({{"dropout", 0.2}})).groups[0].availability;
    EXPECT_DOUBLE_EQ(a.dropout, 0.2);
    EXPECT_FALSE(a.OnOff());
    a = ToConfig(WithAvailability({{"mean_on_s", 300}, {"mean_off_s", 60}})).groups[0].availability;
    EXPECT_TRUE(a.OnOff());
    EXPECT_DOUBLE_EQ(a.meanOnS, 300.0);
    EXPECT_DOUBLE_EQ(a.meanOffS, 60.0);

    EXPECT_EQ(ScenarioErrorOf([] {
                  ToConfig(WithAvailability({{"dropout", 0.1}, {"mean_on_s", 3}}));
              }),
              "clients.groups.0.availability: give either dropout or mean_on_s and mean_off_s, "
              "not both");
    EXPECT_EQ(ScenarioErrorOf([] {
                  ToConfig(WithAvailability({{"mean_off_s", 3}}));
              }),
              "clients.groups.0.availability.mean_on_s: missing (the on/off process needs "
              "mean_on_s and mean_off_s)");
    EXPECT_NE(ValidationErrorOf(WithAvailability({{"dropout", 1.5}})).find("availability.dropout"),
              std::string::npos);
}

TEST(OverSelectConfig, DefaultsToOneAndMustNotBeBelow)
{
    json scenario = MinimalScenario();
    EXPECT_DOUBLE_EQ(ToConfig(scenario).server.overSelect, 1.0);
    scenario["server"]["over_select"] = 1.3;
    EXPECT_DOUBLE_EQ(ToConfig(scenario).server.overSelect, 1.3);
    scenario["server"]["over_select"] = 0.9;
    EXPECT_NE(ValidationErrorOf(scenario).find("server.over_select"), std::string::npos);
}

TEST(StragglersScenario, ShipsEveryHeterogeneityKey)
{
    const ScenarioConfig config =
        ToConfig(ReadScenarioFile(SourcePath("scenarios/stragglers.json")));
    ASSERT_EQ(config.groups.size(), 2u);
    EXPECT_DOUBLE_EQ(config.server.overSelect, 1.3);
    EXPECT_EQ(config.groups[0].compute.kind, ComputeSpeedSpec::Kind::Lognormal);
    EXPECT_TRUE(config.groups[0].availability.OnOff());
    EXPECT_EQ(config.groups[1].compute.kind, ComputeSpeedSpec::Kind::Tiers);
    EXPECT_DOUBLE_EQ(config.groups[1].availability.dropout, 0.1);
}

} // namespace
} // namespace fedran
