// The example ns-3 program (models/ns3/examples/fl-on-your-topology.cc), run briefly: a user's
// own topology with fedran's server and clients installed by the helpers must train.

#include "../trace/trace-test-util.h"
#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace fedran::test
{
namespace
{

struct ExampleRound
{
    uint32_t round = 0;
    double accuracy = 0.0;
    uint32_t updates = 0;
    double simulatedS = 0.0;
};

/// Runs the example with `args` in `workDir`; its exit code and the rounds it printed.
int
RunExample(const std::string& args,
           std::vector<ExampleRound>& rounds,
           std::string& output,
           const std::filesystem::path& workDir)
{
    const std::filesystem::path outFile = workDir / "stdout.txt";
    const std::string command = "cd '" + workDir.string() + "' && '" FEDRAN_EXAMPLE_BINARY "' " +
                                args + " > '" + outFile.string() + "' 2>&1";
    const int status = std::system(command.c_str());
    output = ReadFile(outFile);
    const std::regex line(R"(^round (\d+): accuracy ([0-9.]+), loss [0-9.]+, (\d+) updates, )"
                          R"(simulated time ([0-9.]+) s$)");
    std::istringstream in(output);
    std::string text;
    std::smatch m;
    while (std::getline(in, text))
    {
        if (std::regex_match(text, m, line))
        {
            rounds.push_back({static_cast<uint32_t>(std::stoul(m[1])),
                              std::stod(m[2]),
                              static_cast<uint32_t>(std::stoul(m[3])),
                              std::stod(m[4])});
        }
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int
RunExample(const std::string& args, std::vector<ExampleRound>& rounds, std::string& output)
{
    TempDir dir("example");
    return RunExample(args, rounds, output, dir.Path());
}

TEST(Ns3Example, TrainsOnItsOwnTopology)
{
    std::vector<ExampleRound> rounds;
    std::string output;
    ASSERT_EQ(RunExample("--rounds=2 --clients=3", rounds, output), 0) << output;
    ASSERT_EQ(rounds.size(), 2u) << output;
    double previousS = 0.0;
    for (uint32_t i = 0; i < rounds.size(); ++i)
    {
        EXPECT_EQ(rounds[i].round, i + 1);
        EXPECT_EQ(rounds[i].updates, 3u) << "every client answers on an idle network";
        EXPECT_GT(rounds[i].simulatedS, previousS);
        previousS = rounds[i].simulatedS;
        // Ten classes: chance is 0.1.
        EXPECT_GT(rounds[i].accuracy, 0.1) << output;
    }
}

TEST(Ns3Example, TakesItsCommandLine)
{
    std::vector<ExampleRound> rounds;
    std::string output;
    ASSERT_EQ(RunExample("--rounds=1 --clients=5 --edges=3", rounds, output), 0) << output;
    ASSERT_EQ(rounds.size(), 1u) << output;
    EXPECT_EQ(rounds[0].updates, 5u);
    EXPECT_NE(output.find("5 clients"), std::string::npos) << output;

    rounds.clear();
    EXPECT_NE(RunExample("--clients=0", rounds, output), 0) << output;
    EXPECT_TRUE(rounds.empty());
}

TEST(Ns3Example, WritesTheTracesOfAFedranRun)
{
    TempDir dir("example-traces");
    std::vector<ExampleRound> rounds;
    std::string output;
    ASSERT_EQ(RunExample("--rounds=2 --clients=3 --edges=2 --out=out", rounds, output, dir.Path()),
              0)
        << output;
    ASSERT_EQ(rounds.size(), 2u) << output;
    // The table's header (docs/traces.md), cells that fit their columns, one row per round
    // and, every client being selected, one clients.csv row per client and round.
    size_t roundRows = 0;
    size_t clientRows = 0;
    ExpectFileFitsTable(dir.Path() / "out" / "rounds.csv", {}, &roundRows);
    ExpectFileFitsTable(dir.Path() / "out" / "clients.csv", {}, &clientRows);
    EXPECT_EQ(roundRows, 2u);
    EXPECT_EQ(clientRows, 2u * 3u);
    const auto roundsCsv = ReadCsv(dir.Path() / "out" / "rounds.csv");
    ASSERT_EQ(roundsCsv.size(), 2u);
    for (uint32_t i = 0; i < roundsCsv.size(); ++i)
    {
        EXPECT_EQ(roundsCsv[i].at("round"), std::to_string(i + 1));
        EXPECT_EQ(roundsCsv[i].at("participants"), "3");
        EXPECT_GT(std::stoull(roundsCsv[i].at("uplink_wire_bytes")),
                  std::stoull(roundsCsv[i].at("uplink_payload_bytes")))
            << "wire bytes count the headers and ACKs too";
    }
    const auto clientsCsv = ReadCsv(dir.Path() / "out" / "clients.csv");
    for (const auto& row : clientsCsv)
    {
        EXPECT_EQ(row.at("status"), "completed");
        EXPECT_EQ(row.at("group"), "edge-" + std::to_string(std::stoul(row.at("client")) % 2));
    }
}

} // namespace
} // namespace fedran::test
