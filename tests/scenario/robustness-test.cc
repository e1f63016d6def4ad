// Any JSON at any place in a scenario gives either a config or a ScenarioError: never another
// exception, a crash or a sanitizer report.

#include "scenario-test-util.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fedran
{
namespace
{

using nlohmann::json;

/// JSON pointers of every value in `value`, the root included.
void
CollectPointers(const json& value,
                const json::json_pointer& at,
                std::vector<json::json_pointer>& out)
{
    out.push_back(at);
    if (value.is_object())
    {
        for (const auto& [key, child] : value.items())
        {
            CollectPointers(child, at / key, out);
        }
    }
    else if (value.is_array())
    {
        for (size_t i = 0; i < value.size(); ++i)
        {
            CollectPointers(value[i], at / i, out);
        }
    }
}

TEST(Robustness, EveryShapeAtEveryPlace)
{
    const json shapes[] = {
        nullptr,
        true,
        -1,
        0,
        2.5,
        -0.0,
        1e300,
        18446744073709551615ULL,
        -9223372036854775807LL,
        "",
        "x",
        "-5Mbps",
        "0ms",
        json::array(),
        json::array({1, "a"}),
        json::object(),
        json({{"type", "none"}}),
        json({{"name", "g"}, {"count", 1}}),
    };
    const json base = test::Quickstart();
    std::vector<json::json_pointer> pointers;
    CollectPointers(base, json::json_pointer(), pointers);
    size_t accepted = 0;
    size_t rejected = 0;
    for (const json::json_pointer& pointer : pointers)
    {
        for (const json& shape : shapes)
        {
            json scenario = base;
            scenario[pointer] = shape;
            try
            {
                ValidateScenario(scenario);
                ToConfig(scenario);
                ++accepted;
            }
            catch (const ScenarioError& e)
            {
                ++rejected;
                EXPECT_NE(std::string(e.what()), "") << pointer.to_string();
            }
        }
    }
    // Sanity: the loop did both.
    EXPECT_GT(accepted, 10u);
    EXPECT_GT(rejected, 100u);
}

TEST(Robustness, OverridesWithOddValues)
{
    const char* assignments[] = {
        "rounds=1e999",
        "rounds=-1e999",
        "rounds=NaN",
        "seed=-1",
        "name=\xff\xfe",
        "data=[]",
        "clients.groups.0=0",
        "clients.groups=\"\"",
        "training.lr=1e-400",
        "server.clients_per_round=20.0",
    };
    for (const char* assignment : assignments)
    {
        json scenario = test::Quickstart();
        try
        {
            ApplyOverride(scenario, assignment);
            ValidateScenario(scenario);
            ToConfig(scenario);
        }
        catch (const ScenarioError& e)
        {
            EXPECT_NE(std::string(e.what()), "") << assignment;
        }
    }
}

} // namespace
} // namespace fedran
