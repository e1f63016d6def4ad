#ifndef FEDRAN_TESTS_SCENARIO_SCENARIO_TEST_UTIL_H
#define FEDRAN_TESTS_SCENARIO_SCENARIO_TEST_UTIL_H

// Shared helpers of the scenario tests.

#include "simulator/scenario/scenario.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <string>

namespace fedran::test
{

inline std::string
SourcePath(const std::string& relative)
{
    return std::string(FEDRAN_SOURCE_DIR) + "/" + relative;
}

/// The message of the ScenarioError `action` throws; a test failure if it throws nothing.
/// Any other exception escapes and fails the test too, which is the point: scenario code
/// must throw nothing but ScenarioError.
inline std::string
ScenarioErrorOf(const std::function<void()>& action)
{
    try
    {
        action();
    }
    catch (const ScenarioError& e)
    {
        return e.what();
    }
    ADD_FAILURE() << "expected a ScenarioError";
    return "";
}

/// A scenario with only the required keys.
inline nlohmann::json
MinimalScenario()
{
    return nlohmann::json::parse(R"({
        "rounds": 5,
        "server": {"clients_per_round": 2},
        "clients": {"groups": [{"name": "g", "count": 4}]}
    })");
}

inline nlohmann::json
Quickstart()
{
    return ReadScenarioFile(SourcePath("scenarios/quickstart.json"));
}

/// The validation message for `scenario`, which must be invalid.
inline std::string
ValidationErrorOf(nlohmann::json scenario)
{
    return ScenarioErrorOf([&] { ValidateScenario(scenario); });
}

} // namespace fedran::test

#endif
