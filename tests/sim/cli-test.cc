// The fedran command line: determinism of whole runs, and bad input rejected with exit
// status 2, a message naming the JSON path or file, and no output folder left behind.

#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace fedran::test
{
namespace
{

TEST(Cli, SameScenarioAndSeedGiveByteIdenticalTracesAtAnyThreadCount)
{
    TempDir dir("determinism");
    WriteFile(dir.Path() / "s.json", TinyScenario(6, 3, 2).dump());
    ASSERT_EQ(RunFedran("run s.json --out a --quiet --threads 1", dir.Path()).exitCode, 0);
    ASSERT_EQ(RunFedran("run s.json --out b --quiet --threads 3", dir.Path()).exitCode, 0);
    ASSERT_EQ(RunFedran("run s.json --out c --quiet --seed 8", dir.Path()).exitCode, 0);
    ExpectSameTraces(dir.Path() / "a", dir.Path() / "b");
    // Another seed samples other clients and shuffles differently.
    EXPECT_NE(ReadFile(dir.Path() / "a" / "clients.csv"),
              ReadFile(dir.Path() / "c" / "clients.csv"));
}

struct BadInputCase
{
    const char* name;
    std::string scenarioText;
    const char* extraArgs;
    const char* expectedInMessage;
};

class CliBadInput : public ::testing::TestWithParam<BadInputCase>
{
};

TEST_P(CliBadInput, ExitsTwoNamingTheProblemAndWritesNothing)
{
    const BadInputCase& c = GetParam();
    TempDir dir("badinput");
    WriteFile(dir.Path() / "s.json", c.scenarioText);
    CommandResult r =
        RunFedran(std::string("run s.json --out out --quiet ") + c.extraArgs, dir.Path());
    EXPECT_EQ(r.exitCode, 2) << r.stderrText;
    EXPECT_NE(r.stderrText.find(c.expectedInMessage), std::string::npos) << r.stderrText;
    EXPECT_FALSE(std::filesystem::exists(dir.Path() / "out"));
}

nlohmann::json
With(const std::string& assignmentPath, const nlohmann::json& value)
{
    nlohmann::json s = TinyScenario(3, 3, 1);
    nlohmann::json* node = &s;
    std::string path = assignmentPath;
    size_t dot;
    while ((dot = path.find('.')) != std::string::npos)
    {
        const std::string key = path.substr(0, dot);
        node = key.find_first_not_of("0123456789") == std::string::npos ? &(*node)[std::stoul(key)]
                                                                        : &(*node)[key];
        path = path.substr(dot + 1);
    }
    (*node)[path] = value;
    return s;
}

INSTANTIATE_TEST_SUITE_P(
    Cases,
    CliBadInput,
    ::testing::Values(
        BadInputCase{"MalformedJson", "{\"name\": \"x\",\n \"rounds\": }", "", "s.json"},
        BadInputCase{"UnknownKey", With("server.deadline", 5).dump(), "", "server.deadline"},
        BadInputCase{"WrongType", With("training.lr", "fast").dump(), "", "training.lr"},
        BadInputCase{"NegativeRate",
                     With("clients.groups.0.backhaul.rate", "-5Mbps").dump(),
                     "",
                     "clients.groups.0.backhaul.rate"},
        BadInputCase{"MissingDataset",
                     With("data.path", "/nonexistent/fashion").dump(),
                     "",
                     "/nonexistent/fashion"},
        BadInputCase{"MissingCsvFile",
                     With("data",
                          {{"dataset", "csv"},
                           {"csv", {{"train", "/nonexistent/train.csv"}, {"test", "t.csv"}}}})
                         .dump(),
                     "",
                     "data.csv: "},
        BadInputCase{
            "ShardsLargerThanTheData",
            With("data.partition", {{"type", "shards"}, {"shards_per_client", 30000}}).dump(),
            "",
            "data.partition.shards_per_client: "},
        BadInputCase{"ModelKeyOfAnotherType",
                     With("model", {{"type", "softmax"}, {"hidden", {10}}}).dump(),
                     "",
                     "model.hidden"},
        BadInputCase{"BadOverride",
                     TinyScenario(3, 3, 1).dump(),
                     "--set clients.groups.4.count=2",
                     "clients.groups.4"},
        BadInputCase{"UnknownCodec",
                     With("compression.uplink", {{"type", "zip"}}).dump(),
                     "",
                     "compression.uplink"},
        // Hardened input (docs/reliability.md): a scenario is input from elsewhere.
        BadInputCase{"TwoHundredThousandNestedArrays",
                     std::string(200000, '[') + std::string(200000, ']'),
                     "",
                     "s.json: line 1, column 65: arrays and objects nested deeper than 64"},
        BadInputCase{"NestedTooDeepInsideAKey",
                     "{\"name\": \"x\", \"rounds\": " + std::string(100, '[') +
                         std::string(100, ']') + "}",
                     "",
                     "nested deeper than 64"},
        BadInputCase{"NumberOverflow",
                     "{\"rounds\": 1e999}",
                     "",
                     "s.json: line 1, column 12: number 1e999 is out of range"},
        BadInputCase{"IntegerBeyond64Bits",
                     With("rounds", 1e30).dump(),
                     "",
                     "rounds: expected integer"},
        BadInputCase{"CountBeyond32Bits",
                     With("clients.groups.0.count", 4294967296ull).dump(),
                     "",
                     "clients.groups.0.count: 4294967296 is too large"},
        BadInputCase{"NameWithPathSeparator",
                     With("name", "runs/x").dump(),
                     "",
                     "name: \"runs/x\" is not a plain name (it contains a path separator)"},
        BadInputCase{"NameWithDotDot",
                     With("name", "..").dump(),
                     "",
                     "name: \"..\" is not a plain name"},
        BadInputCase{"GroupNameWithControlCharacter",
                     With("clients.groups.0.name", "a\x1b[31mb").dump(),
                     "",
                     "clients.groups.0.name: \"a\\u001b[31mb\" is not a plain name (it contains a "
                     "control character)"},
        BadInputCase{
            "OverrideNestedTooDeep",
            TinyScenario(3, 3, 1).dump(),
            "--set 'training.lr=[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
            "[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]'",
            "--set training.lr=[[[["}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(Cli, AsyncModeGivesByteIdenticalTracesAtAnyThreadCount)
{
    // FedBuff: arrivals decide the steps, so training on other threads must not move them.
    TempDir dir("determinism-async");
    nlohmann::json scenario = TinyScenario(6, 3, 4);
    scenario["server"]["mode"] = "async";
    scenario["server"]["async"] = {{"buffer", 2},
                                   {"concurrency", 4},
                                   {"staleness", {{"type", "polynomial"}, {"a", 0.5}}}};
    WriteFile(dir.Path() / "s.json", scenario.dump());
    ASSERT_EQ(RunFedran("run s.json --out a --quiet --threads 1", dir.Path()).exitCode, 0);
    ASSERT_EQ(RunFedran("run s.json --out b --quiet --threads 3", dir.Path()).exitCode, 0);
    ExpectSameTraces(dir.Path() / "a", dir.Path() / "b");
    const auto rows = ReadCsv(dir.Path() / "a" / "clients.csv");
    ASSERT_FALSE(rows.empty());
    EXPECT_TRUE(std::any_of(rows.begin(), rows.end(), [](const auto& row) {
        return row.at("staleness") != "" && row.at("staleness") != "0";
    })) << "some update should be stale, or the test says little about ordering";
}

TEST(Cli, ANameThatWouldLeaveResultsIsRefusedAndNothingIsWritten)
{
    TempDir dir("escape");
    std::filesystem::create_directories(dir.Path() / "work");
    nlohmann::json scenario = TinyScenario(3, 3, 1);
    scenario["name"] = "../../escaped";
    WriteFile(dir.Path() / "work" / "s.json", scenario.dump());
    CommandResult r = RunFedran("run s.json --quiet", dir.Path() / "work");
    EXPECT_EQ(r.exitCode, 2) << r.stderrText;
    EXPECT_NE(r.stderrText.find("name: \"../../escaped\" is not a plain name"), std::string::npos)
        << r.stderrText;
    EXPECT_FALSE(std::filesystem::exists(dir.Path() / "escaped"));
    EXPECT_FALSE(std::filesystem::exists(dir.Path() / "work" / "results"));
}

TEST(Cli, UsageErrorsExitTwo)
{
    TempDir dir("usage");
    EXPECT_EQ(RunFedran("", dir.Path()).exitCode, 2);
    EXPECT_EQ(RunFedran("run", dir.Path()).exitCode, 2);
    EXPECT_EQ(RunFedran("run missing.json", dir.Path()).exitCode, 2);
    EXPECT_EQ(RunFedran("frobnicate", dir.Path()).exitCode, 2);
    EXPECT_EQ(RunFedran("--version", dir.Path()).exitCode, 0);
    EXPECT_EQ(RunFedran("--help", dir.Path()).exitCode, 0);
}

TEST(Cli, MlpWithMomentumOnDirichletDataIsByteIdenticalAtAnyThreadCount)
{
    TempDir dir("determinism-mlp");
    nlohmann::json scenario = TinyScenario(6, 4, 2);
    scenario["model"] = {{"type", "mlp"}, {"hidden", {32, 16}}};
    scenario["data"]["partition"] = {{"type", "dirichlet"}, {"alpha", 0.5}};
    scenario["training"].update({{"local_steps", 40}, {"momentum", 0.9}, {"weight_decay", 1e-4}});
    WriteFile(dir.Path() / "s.json", scenario.dump());
    ASSERT_EQ(RunFedran("run s.json --out a --quiet --threads 1", dir.Path()).exitCode, 0);
    ASSERT_EQ(RunFedran("run s.json --out b --quiet --threads 2", dir.Path()).exitCode, 0);
    ExpectSameTraces(dir.Path() / "a", dir.Path() / "b");
}

TEST(Cli, ValidateAcceptsTheShippedScenarios)
{
    // Every scenarios/*.json, validated as the README runs them, from a folder where
    // scenarios/ is the repository's (trace files are relative to the working directory).
    TempDir dir("validate");
    const std::filesystem::path root = FEDRAN_SOURCE_DIR;
    std::filesystem::create_directory_symlink(root / "scenarios", dir.Path() / "scenarios");
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(root / "scenarios"))
    {
        const std::string name = entry.path().filename().string();
        if (entry.path().extension() == ".json" && name != "scenario.schema.json")
        {
            names.push_back(name);
        }
    }
    std::sort(names.begin(), names.end());
    for (const char* expected : {"quickstart.json",
                                 "stragglers.json",
                                 "rural-microwave.json",
                                 "urban-eband.json",
                                 "trace-driven.json"})
    {
        EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
    }
    for (const std::string& name : names)
    {
        CommandResult r = RunFedran("validate scenarios/" + name, dir.Path());
        EXPECT_EQ(r.exitCode, 0) << name << ": " << r.stderrText;
    }
}

} // namespace
} // namespace fedran::test
