// What fedran refuses at once, before spending anything (docs/reliability.md): inputs that are
// not regular files or are too large, an update that cannot fit a frame, and a run that would
// need more memory than it may use. Each is exit 2 with the path or the figure and the limit,
// and no output folder.

#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace fedran::test
{
namespace
{

namespace fs = std::filesystem;

void
ExpectRefused(const CommandResult& r, const std::string& message, const fs::path& out)
{
    EXPECT_EQ(r.exitCode, 2) << r.stderrText;
    EXPECT_NE(r.stderrText.find(message), std::string::npos) << r.stderrText;
    EXPECT_FALSE(fs::exists(out));
}

TEST(InputFiles, ADeviceOrAFifoAsScenarioIsRefusedAtOnce)
{
    TempDir dir("special");
    // Read forever (/dev/zero) or blocked forever (a FIFO nobody writes): the test would hang.
    ExpectRefused(RunFedran("run /dev/zero --out out --quiet", dir.Path()),
                  "/dev/zero: is a character device, not a scenario file",
                  dir.Path() / "out");
    ASSERT_EQ(mkfifo((dir.Path() / "fifo.json").c_str(), 0644), 0);
    ExpectRefused(RunFedran("run fifo.json --out out --quiet", dir.Path()),
                  "fifo.json: is a FIFO, not a scenario file",
                  dir.Path() / "out");
    ExpectRefused(RunFedran("validate " + dir.Path().string(), dir.Path()),
                  ": is a directory, not a scenario file",
                  dir.Path() / "out");
}

TEST(InputFiles, ATraceOrProfileThatIsAFifoOrDeviceIsRefusedNamingTheKey)
{
    TempDir dir("special-trace");
    ASSERT_EQ(mkfifo((dir.Path() / "trace.csv").c_str(), 0644), 0);
    nlohmann::json scenario = TinyScenario(4, 2, 2);
    scenario["clients"]["groups"][0]["backhaul"] = {{"type", "trace"}, {"file", "trace.csv"}};
    WriteFile(dir.Path() / "s.json", scenario.dump());
    ExpectRefused(RunFedran("run s.json --out out --quiet", dir.Path()),
                  "clients.groups.0.backhaul.file: trace.csv: is a FIFO, not a link trace",
                  dir.Path() / "out");

    scenario = TinyScenario(4, 2, 2);
    scenario["server"]["compute"] = {{"profile", "/dev/zero"}};
    WriteFile(dir.Path() / "s.json", scenario.dump());
    ExpectRefused(RunFedran("run s.json --out out --quiet", dir.Path()),
                  "server.compute.profile: /dev/zero: is a character device, not a cost profile",
                  dir.Path() / "out");
}

TEST(InputFiles, AnOversizedTraceIsRefusedWithItsSizeAndTheLimit)
{
    TempDir dir("huge-trace");
    // Sparse: 1 GiB and one byte in size, nothing on disk.
    {
        std::ofstream out(dir.Path() / "huge.csv");
    }
    ASSERT_EQ(truncate((dir.Path() / "huge.csv").c_str(), (1ll << 30) + 1), 0);
    nlohmann::json scenario = TinyScenario(4, 2, 2);
    scenario["clients"]["groups"][0]["backhaul"] = {{"type", "trace"}, {"file", "huge.csv"}};
    WriteFile(dir.Path() / "s.json", scenario.dump());
    ExpectRefused(RunFedran("run s.json --out out --quiet", dir.Path()),
                  "huge.csv: is 1.0 GiB; a link trace is read up to 1.0 GiB",
                  dir.Path() / "out");
}

TEST(RefusedBeforeRunning, AnUpdateOverTheFrameLimitIsRefusedBeforeAnyTraining)
{
    TempDir dir("frame");
    nlohmann::json scenario = TinyScenario(4, 2, 2);
    // 784 x 20000 + 20000 x 20000 + 20000 x 10 weights and the biases: 416 M parameters.
    scenario["model"] = {{"type", "mlp"}, {"hidden", {20000, 20000}}};
    WriteFile(dir.Path() / "s.json", scenario.dump());
    const CommandResult r = RunFedran("run s.json --out out", dir.Path());
    ExpectRefused(
        r,
        "compression.uplink: an update of this model (415920010 parameters) would be a 1.5 GiB",
        dir.Path() / "out");
    EXPECT_NE(r.stderrText.find("more than the frame limit of 1.0 GiB"), std::string::npos)
        << r.stderrText;
    EXPECT_EQ(r.stderrText.find("round"), std::string::npos) << "no progress: nothing trained";
    // fp16 halves it to 0.78 GiB: under the limit.
    const CommandResult validate =
        RunFedran("validate s.json --set 'compression.uplink={\"type\":\"fp16\"}' "
                  "--set 'compression.downlink={\"type\":\"fp16\"}' --memory-limit 1T",
                  dir.Path());
    EXPECT_EQ(validate.exitCode, 0) << validate.stderrText;
    EXPECT_NE(validate.stdoutText.find("largest frame payload 793.3 MiB"), std::string::npos)
        << validate.stdoutText;
}

TEST(RefusedBeforeRunning, AMemoryNeedAboveTheLimitIsRefusedWithTheFigure)
{
    TempDir dir("memory");
    WriteFile(dir.Path() / "s.json", TinyScenario(4, 2, 2).dump());
    ExpectRefused(RunFedran("run s.json --out out --memory-limit 64M", dir.Path()),
                  "more than the 64.0 MiB of --memory-limit",
                  dir.Path() / "out");
    const CommandResult r = RunFedran("validate s.json --memory-limit 64M", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("the run would need about "), std::string::npos) << r.stderrText;
    ExpectRefused(RunFedran("run s.json --out out --memory-limit lots", dir.Path()),
                  "--memory-limit: 'lots' is not a memory size",
                  dir.Path() / "out");

    // The estimate is in validate's summary and in run.json.
    const CommandResult ok = RunFedran("validate s.json", dir.Path());
    EXPECT_EQ(ok.exitCode, 0) << ok.stderrText;
    EXPECT_NE(ok.stdoutText.find("estimate: 7850 parameters; largest frame payload"),
              std::string::npos)
        << ok.stdoutText;
    ASSERT_EQ(RunFedran("run s.json --out out --quiet", dir.Path()).exitCode, 0);
    const auto manifest = nlohmann::json::parse(ReadFile(dir.Path() / "out" / "run.json"));
    EXPECT_EQ(manifest["estimate"]["parameters"], 7850);
    EXPECT_GT(manifest["estimate"]["memory_bytes"].get<uint64_t>(), 100u << 20);
    EXPECT_GT(manifest["estimate"]["frame_payload_bytes"]["compression.uplink"].get<uint64_t>(),
              7850u * 4u);
}

TEST(RefusedBeforeRunning, TheMemoryEstimateCountsEveryModelSizedArrayACodecKeeps)
{
    // Per client between its rounds: none nothing, error feedback its residual, dgc its
    // momentum and accumulation, error feedback over dgc all three.
    TempDir dir("codec-state");
    WriteFile(dir.Path() / "s.json", TinyScenario(4, 2, 2).dump());
    auto clientsBytes = [&](const std::string& name, const std::string& codec) {
        const CommandResult r = RunFedran("run s.json --out " + name + " --quiet --set '" +
                                              "compression.uplink=" + codec + "'",
                                          dir.Path());
        EXPECT_EQ(r.exitCode, 0) << r.stderrText;
        const auto manifest = nlohmann::json::parse(ReadFile(dir.Path() / name / "run.json"));
        return manifest["estimate"]["memory"]["clients"].get<int64_t>();
    };
    const int64_t none = clientsBytes("none", R"({"type":"none"})");
    const int64_t model = 4 * 7850; // float32 parameters of the tiny scenario's softmax
    const int64_t clients = 4;
    EXPECT_EQ(clientsBytes("ef", R"({"type":"error_feedback","base":{"type":"top_k"}})") - none,
              clients * model);
    EXPECT_EQ(clientsBytes("dgc", R"({"type":"dgc","mode":"round"})") - none, 2 * clients * model);
    EXPECT_EQ(clientsBytes("ef-dgc",
                           R"({"type":"error_feedback","base":{"type":"dgc","mode":"round"}})") -
                  none,
              3 * clients * model);
}

} // namespace
} // namespace fedran::test
