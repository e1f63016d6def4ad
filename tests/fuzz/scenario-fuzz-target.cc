// The scenario reader, validator and --set parser under mutation: scenario text is input from
// elsewhere, so any bytes must end in a scenario (or codec spec) error, never in a crash or
// another exception.

#include "compression/codec.h"
#include "fuzz-targets.h"
#include "models/link-config/scenario-error.h"
#include "simulator/scenario/json-text.h"
#include "simulator/scenario/scenario.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace fedran::fuzz
{

namespace
{

ScenarioFuzzCounts g_counts;

void
Rejected(const std::exception& e)
{
    if (g_counts.rejected++ == 0)
    {
        g_counts.firstRejection = e.what();
    }
}

/// Validates and types `scenario`; counts what happened.
void
Resolve(nlohmann::json scenario)
{
    try
    {
        ValidateScenario(scenario);
        ToConfig(scenario);
        ++g_counts.accepted;
    }
    catch (const ScenarioError& e)
    {
        Rejected(e);
    }
    catch (const CodecConfigError& e)
    {
        Rejected(e);
    }
}

const nlohmann::json&
Base()
{
    static const nlohmann::json base = nlohmann::json::parse(R"({
        "rounds": 2, "server": {"clients_per_round": 2},
        "clients": {"groups": [{"name": "g", "count": 4}]}})");
    return base;
}

} // namespace

void
FuzzScenario(const uint8_t* data, size_t size)
{
    ++g_counts.executions;
    if (size == 0)
    {
        return;
    }
    // Byte 0 picks the reader: the whole scenario text, or a --set assignment on a valid base.
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    try
    {
        if (data[0] % 2 == 0)
        {
            Resolve(ParseScenarioText(text, "fuzz.json"));
        }
        else
        {
            nlohmann::json scenario = Base();
            ApplyOverride(scenario, text);
            Resolve(std::move(scenario));
        }
    }
    catch (const ScenarioError& e)
    {
        Rejected(e);
    }
    catch (const std::exception& e)
    {
        // Anything else escaping is a bug: fedran would exit 1 ("run failed"), not 2.
        if (g_counts.findings++ == 0)
        {
            g_counts.firstFinding = std::string(e.what()) + "\ninput: " + std::to_string(data[0]) +
                                    " " + text.substr(0, 2000);
        }
    }
}

ScenarioFuzzCounts
TakeScenarioFuzzCounts()
{
    ScenarioFuzzCounts counts = g_counts;
    g_counts = {};
    return counts;
}

std::vector<std::vector<uint8_t>>
ScenarioSeeds()
{
    std::vector<std::vector<uint8_t>> seeds;
    const std::filesystem::path dir = std::filesystem::path(FEDRAN_SOURCE_DIR) / "scenarios";
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
    {
        if (entry.path().extension() == ".json" &&
            entry.path().filename() != "scenario.schema.json")
        {
            files.push_back(entry.path());
        }
    }
    // In name order: the mutations drawn for each seed must not depend on the file system.
    std::sort(files.begin(), files.end());
    for (const auto& file : files)
    {
        std::ifstream in(file, std::ios::binary);
        std::vector<uint8_t> seed{0};
        seed.insert(seed.end(),
                    std::istreambuf_iterator<char>(in),
                    std::istreambuf_iterator<char>());
        seeds.push_back(std::move(seed));
    }
    for (const char* assignment : {"clients.groups.0.count=7",
                                   "server.deadline_s=5",
                                   "compression.uplink={\"type\":\"top_k\",\"ratio\":0.1}",
                                   "server={\"clients_per_round\":2,\"mode\":\"async\",\"async\":{"
                                   "\"buffer\":2,\"concurrency\":3}}",
                                   "clients.groups.0.backhaul={\"type\":\"p2p\",\"rate\":"
                                   "\"10Mbps\",\"delay\":\"5ms\"}",
                                   "faults={\"corrupt_uplink\":0.2,\"link_outages\":[{\"group\":"
                                   "\"g\",\"start_s\":1,\"duration_s\":2}],\"crashes\":[{"
                                   "\"group\":\"g\",\"probability\":0.1}]}",
                                   "name=run-1"})
    {
        std::vector<uint8_t> seed{1};
        seed.insert(seed.end(), assignment, assignment + std::strlen(assignment));
        seeds.push_back(std::move(seed));
    }
    return seeds;
}

} // namespace fedran::fuzz
