// A hundred thousand sites in flow mode (docs/scale.md): every site joins, and the run's peak
// memory is within its own estimate, which prices a site on a stated p2p link at 12 KiB (no
// ns-3 node, stack or device; synthetic data generated on demand). Slow: about 15 s and 1 GB.

#include "sim-test-util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sys/resource.h>
#include <sys/wait.h>

namespace fedran::test
{
namespace
{

using nlohmann::json;

json
Population(uint32_t sites, uint32_t hubs)
{
    return {{"name", "population"},
            {"seed", 1},
            {"rounds", 2},
            {"data", {{"dataset", "synthetic"}, {"synthetic", {{"generate", "on_demand"}}}}},
            {"model", {{"type", "softmax"}}},
            {"training", {{"local_epochs", 1}, {"batch_size", 32}, {"lr", 0.05}}},
            {"server", {{"clients_per_round", 100}, {"deadline_s", 600}}},
            {"clients",
             {{"groups",
               {{{"name", "sites"},
                 {"count", sites},
                 {"hub", "hub"},
                 {"backhaul", {{"type", "p2p"}, {"rate", "100Mbps"}, {"delay", "2ms"}}},
                 {"compute", {{"samples_per_second", 2000}}}}}}}},
            {"network",
             {{"core", {{"rate", "40Gbps"}, {"delay", "5ms"}}},
              {"hubs",
               {{{"name", "hub"},
                 {"parent", "core"},
                 {"count", hubs},
                 {"backhaul", {{"type", "p2p"}, {"rate", "1Gbps"}, {"delay", "1ms"}}}}}},
              {"transport", "flow"}}},
            {"output", {{"link_sample_s", 0}}}};
}

TEST(PopulationSlow, AHundredThousandFlowSitesJoinWithinTheirMemoryEstimate)
{
    TempDir dir("population");
    WriteFile(dir.Path() / "s.json", Population(100000, 100).dump());
    const pid_t pid = StartFedranRun(dir.Path());
    int status = 0;
    struct rusage usage = {};
    ASSERT_EQ(wait4(pid, &status, 0, &usage), pid);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0) << ReadFile(dir.Path() / "stderr.txt");
    std::ifstream in(dir.Path() / "out" / "run.json");
    const json run = json::parse(in);
    EXPECT_EQ(run["result"]["clients_joined"], 100000);
    EXPECT_EQ(run["result"]["rounds"], 2);
    const double estimate = run["estimate"]["memory_bytes"].get<double>();
    const double peak = double(usage.ru_maxrss) * 1024.0;
    std::printf("100,000 sites: peak RSS %.0f MiB, estimate %.0f MiB\n",
                peak / 1048576.0,
                estimate / 1048576.0);
    // The estimate is an upper bound that is not wildly loose (measured: 0.8 of it).
    EXPECT_LT(peak, estimate);
    EXPECT_GT(peak, 0.5 * estimate);
}

} // namespace
} // namespace fedran::test
