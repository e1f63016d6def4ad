// fedran: command-line entry point.
//
//   fedran run SCENARIO.json [--out DIR] [--seed N] [--set PATH=VALUE]... [--threads N]
//              [--quiet] [--fast-math-kernels] [--overwrite] [--memory-limit SIZE]
//   fedran validate SCENARIO.json [--set PATH=VALUE]... [--memory-limit SIZE]
//   fedran codec --spec JSON --input IN.f32 [--shape R,C] [--seed N] [--payload OUT.bin]
//                [--decoded OUT.f32]
//   fedran codec --decode --spec JSON --payload IN.bin --shape R,C --decoded OUT.f32
//   fedran calibrate --out PROFILE.json [--scale X]
//
// Exit status: 0 success, 2 bad input (usage, scenario, data files), 1 failure while running,
// 130 / 143 a run stopped by SIGINT / SIGTERM (run.json says "interrupted"; a second signal
// ends the process at once).

#include "compression/codec.h" // CodecConfigError
#include "models/learning/dataset.h"
#include "models/learning/gemm.h"
#include "simulator/core/calibrate-command.h"
#include "simulator/core/cli-error.h"
#include "simulator/core/codec-command.h"
#include "simulator/core/libm-pinning.h"
#include "simulator/core/output-folder.h"
#include "simulator/core/progress-reporter.h"
#include "simulator/core/run-estimate.h"
#include "simulator/fl-experiment.h"
#include "simulator/run-manifest.h"
#include "simulator/scenario/scenario.h"
#include "simulator/stop-signals.h"

#include <CLI/CLI.hpp>
#include <ns3/nstime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <iostream>
#include <malloc.h>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

namespace
{

constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;

struct CommonOptions
{
    std::string scenarioFile;
    std::vector<std::string> overrides;
    std::optional<uint64_t> seed;
    std::optional<std::string> outDir;
    unsigned threads = 0;
};

/// Reads, overrides, validates and type-checks a scenario.
fedran::ScenarioConfig
LoadConfig(const CommonOptions& options)
{
    nlohmann::json scenario = fedran::ReadScenarioFile(options.scenarioFile);
    for (const auto& assignment : options.overrides)
    {
        fedran::ApplyOverride(scenario, assignment);
    }
    if (options.seed)
    {
        scenario["seed"] = *options.seed;
    }
    if (options.outDir)
    {
        fedran::ApplyOverride(scenario, "output.dir=" + nlohmann::json(*options.outDir).dump());
    }
    fedran::ValidateScenario(scenario);
    return fedran::ToConfig(scenario); // also builds the codecs once to check their specs
}

struct RunOptions
{
    bool quiet = false;
    bool overwrite = false;
    std::optional<std::string> memoryLimit;
};

/// The resources the run will need, refused (exit 2) when they exceed a limit.
fedran::RunEstimate
EstimateOrRefuse(const fedran::ScenarioConfig& config,
                 const ns3::FlExperiment& experiment,
                 const std::optional<std::string>& memoryLimit)
{
    std::optional<uint64_t> limit;
    if (memoryLimit)
    {
        limit = fedran::ParseMemorySize(*memoryLimit, "--memory-limit");
    }
    fedran::RunEstimate estimate = fedran::EstimateRun(config, experiment.Task(), limit);
    fedran::CheckRunEstimate(estimate);
    return estimate;
}

int
RunCommand(const CommonOptions& options, const RunOptions& runOptions)
{
    const auto wallStart = std::chrono::steady_clock::now();
    ns3::StopSignals signals;
    fedran::ScenarioConfig config = LoadConfig(options);
    if (runOptions.memoryLimit)
    {
        fedran::ParseMemorySize(*runOptions.memoryLimit, "--memory-limit"); // before the lock
    }
    // Locked and checked first: a folder in use or holding a finished run is refused before
    // the data is loaded.
    fedran::OutputFolder folder(config.outputDir, runOptions.overwrite);
    ns3::FlExperiment experiment(config, options.threads);
    experiment.Prepare();
    const fedran::RunEstimate estimate =
        EstimateOrRefuse(config, experiment, runOptions.memoryLimit);
    folder.RemovePreviousRun();

    ns3::ProgressReporter progress(stderr,
                                   ns3::ProgressReporter::ModeFor(STDERR_FILENO, runOptions.quiet),
                                   config.rounds);
    auto observer = [&progress](const fedran::RoundRecord& r, const ns3::RunTotals& t) {
        progress.RoundEnded(r, t);
    };
    const nlohmann::json estimateJson = estimate.ToJson();
    const nlohmann::json& dataReport = experiment.Task().dataReport;
    auto wallSeconds = [&wallStart] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    };
    std::string failure;
    std::exception_ptr error;
    try
    {
        // Written first, so that a killed run's folder says so.
        ns3::WriteRunManifest(config.outputDir,
                              config,
                              ns3::RunStatus::Running,
                              {},
                              0.0,
                              "",
                              estimateJson,
                              dataReport);
        ns3::RunTotals totals = experiment.Run(config.outputDir, observer);
        const double wall = wallSeconds();
        if (totals.stopSignal != 0)
        {
            const std::string name = ns3::StopSignals::Name(totals.stopSignal);
            ns3::WriteRunManifest(config.outputDir,
                                  config,
                                  ns3::RunStatus::Interrupted,
                                  totals,
                                  wall,
                                  name,
                                  estimateJson,
                                  dataReport);
            progress.Finish();
            std::fprintf(stderr,
                         "fedran: interrupted by %s after %u of %u rounds; the rows of those "
                         "rounds are in %s\n",
                         name.c_str(),
                         totals.rounds,
                         config.rounds,
                         config.outputDir.c_str());
            return 128 + totals.stopSignal;
        }
        ns3::WriteRunManifest(config.outputDir,
                              config,
                              ns3::RunStatus::Completed,
                              totals,
                              wall,
                              "",
                              estimateJson,
                              dataReport);
        progress.Finish();
        const bool forecasting = !std::isnan(totals.finalNrmse);
        std::printf("%s: %u rounds, final test %s %.4f, simulated %.1f s, "
                    "uplink %s, downlink %s on the wire, wall %.1f s\nresults in %s\n",
                    config.name.c_str(),
                    totals.rounds,
                    forecasting ? "NRMSE" : "accuracy",
                    forecasting ? totals.finalNrmse : totals.finalAccuracy,
                    totals.simTimeS,
                    ns3::HumanBytes(totals.uplinkWireBytes).c_str(),
                    ns3::HumanBytes(totals.downlinkWireBytes).c_str(),
                    wall,
                    config.outputDir.c_str());
        return 0;
    }
    catch (const std::exception& e)
    {
        failure = e.what();
        error = std::current_exception();
    }
    catch (...)
    {
        failure = "unknown error";
        error = std::current_exception();
    }
    // Failed: the half-written traces go, and run.json (written last, when there is room
    // again) says why; it never says "completed".
    progress.Finish();
    folder.DiscardTraces(true);
    try
    {
        ns3::WriteRunManifest(config.outputDir,
                              config,
                              ns3::RunStatus::Failed,
                              {},
                              wallSeconds(),
                              failure,
                              estimateJson,
                              dataReport);
    }
    catch (const std::exception&)
    {
        folder.DiscardTraces(false);
    }
    std::rethrow_exception(error);
}

int
ValidateCommand(const CommonOptions& options, const std::optional<std::string>& memoryLimit)
{
    fedran::ScenarioConfig config = LoadConfig(options);
    ns3::FlExperiment experiment(config);
    experiment.Prepare();
    const fedran::RunEstimate estimate = EstimateOrRefuse(config, experiment, memoryLimit);
    std::printf("%s: valid (%u clients in %zu groups, %u rounds, %zu training examples)\n"
                "estimate: %s\n",
                options.scenarioFile.c_str(),
                config.TotalClients(),
                config.groups.size(),
                config.rounds,
                experiment.Task().data->train.Size(),
                estimate.Summary().c_str());
    return 0;
}

void
AddCommonOptions(CLI::App& command, CommonOptions& options)
{
    command.add_option("scenario", options.scenarioFile, "Scenario JSON file")->required();
    command.add_option("--set",
                       options.overrides,
                       "Override a scenario value: PATH=VALUE, e.g. clients.groups.0.count=50 "
                       "(VALUE is JSON, or a plain string)");
}

} // namespace

int
main(int argc, char** argv)
{
    fedran::PinPortableLibm(argv); // may re-execute this program (libm-pinning.h)
    // Every client and round allocates and frees model-sized buffers (0.8 MB for the MLP).
    // Above glibc's default 128 kB threshold each is a fresh mapping the kernel page-faults and
    // zeroes again; kept in the heap, freed buffers are reused. At 1,000 sites with the flow
    // transport this was a fifth of the run's CPU (page faults), see docs/performance.md.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    // ns-3 records every Time made before the first Simulator::Run, so that a later
    // SetResolution could rescale it: a std::set insert and erase per Time, tens of millions
    // of them while a million sites are set up. Fixing the resolution now (nanoseconds, ns-3's
    // default, so no value changes) ends the recording.
    ns3::Time::SetResolution(ns3::Time::NS);
    CLI::App app{"fedran: federated learning over simulated RAN backhaul (ns-3)", "fedran"};
    app.set_version_flag("--version", std::string("fedran ") + ns3::FedranVersion());
    app.require_subcommand(1);

    CommonOptions runOptions;
    RunOptions runFlags;
    CLI::App* run = app.add_subcommand("run", "Simulate a scenario and write its traces");
    AddCommonOptions(*run, runOptions);
    run->add_option("--out", runOptions.outDir, "Output folder (overrides output.dir)");
    run->add_option("--seed", runOptions.seed, "Random seed (overrides seed)");
    run->add_flag("--quiet,-q", runFlags.quiet, "No progress on stderr");
    run->add_flag("--overwrite",
                  runFlags.overwrite,
                  "Replace a completed or interrupted run in the output folder (removes the "
                  "files it and its plots wrote, and no others)");
    run->add_option("--memory-limit",
                    runFlags.memoryLimit,
                    "Refuse a run estimated to need more memory than this (e.g. 8G; default: "
                    "the machine's or the cgroup's)");
    bool fastKernels = false;
    run->add_flag("--fast-math-kernels",
                  fastKernels,
                  "Train with the CPU's fastest matrix kernels (FMA): faster, but results differ "
                  "in the last bits between instruction sets (run.json \"kernels\")");
    run->add_option("--threads",
                    runOptions.threads,
                    "Threads for the clients' local training (default: all cores); results do "
                    "not depend on it");

    CommonOptions validateOptions;
    CLI::App* validate =
        app.add_subcommand("validate", "Check a scenario (and its data) without running it");
    AddCommonOptions(*validate, validateOptions);
    std::optional<std::string> validateMemoryLimit;
    validate->add_option("--memory-limit",
                         validateMemoryLimit,
                         "Refuse a scenario estimated to need more memory than this (e.g. 8G)");

    fedran::CodecCommandOptions codecOptions;
    CLI::App* codec = app.add_subcommand(
        "codec",
        "Run one codec on a float32 vector and print sizes, times and error as JSON");
    codec->add_option("--spec", codecOptions.spec, "Codec spec: JSON text or @FILE")->required();
    codec->add_option("--input", codecOptions.input, "Raw little-endian float32 input");
    codec->add_option("--shape", codecOptions.shape, "Tensor shape, e.g. 1000 or 100,10");
    codec->add_option("--seed", codecOptions.seed, "Seed of the codec's random stream");
    codec->add_option("--payload",
                      codecOptions.payload,
                      "Encode: write the payload here; --decode: read it from here");
    codec->add_option("--decoded", codecOptions.decoded, "Write the decoded float32 here");
    codec->add_flag("--decode", codecOptions.decode, "Decode --payload instead of encoding");

    fedran::CalibrateOptions calibrateOptions;
    CLI::App* calibrate = app.add_subcommand(
        "calibrate",
        "Measure this machine's codec, aggregation and evaluation costs into a profile that "
        "compute.profile / server.compute.profile can name");
    calibrate->add_option("--out", calibrateOptions.out, "Profile JSON to write")->required();
    calibrate->add_option("--scale",
                          calibrateOptions.scale,
                          "Multiply the timed problem sizes (default 1; smaller is quicker)");

    try
    {
        app.parse(argc, argv);
    }
    catch (const CLI::Success& e)
    {
        return app.exit(e); // --help, --version
    }
    catch (const CLI::ParseError& e)
    {
        app.exit(e);
        return kExitBadInput;
    }

    try
    {
        if (codec->parsed())
        {
            return fedran::RunCodecCommand(codecOptions);
        }
        if (calibrate->parsed())
        {
            return fedran::RunCalibrateCommand(calibrateOptions);
        }
        if (run->parsed())
        {
            fedran::SetGemmKind(fastKernels ? fedran::GemmKind::kFast
                                            : fedran::GemmKind::kPortable);
            return RunCommand(runOptions, runFlags);
        }
        return ValidateCommand(validateOptions, validateMemoryLimit);
    }
    catch (const fedran::DecodeError& e)
    {
        std::fprintf(stderr, "fedran: cannot decode: %s\n", e.what());
        return kExitBadInput;
    }
    catch (const fedran::ScenarioError& e)
    {
        std::fprintf(stderr, "fedran: scenario error: %s\n", e.what());
        return kExitBadInput;
    }
    catch (const fedran::CodecConfigError& e)
    {
        std::fprintf(stderr, "fedran: bad codec spec: %s\n", e.what());
        return kExitBadInput;
    }
    catch (const fedran::DataError& e)
    {
        std::fprintf(stderr, "fedran: data error: %s\n", e.what());
        return kExitBadInput;
    }
    catch (const fedran::BadInput& e)
    {
        std::fprintf(stderr, "fedran: %s\n", e.what());
        return kExitBadInput;
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "fedran: run failed: %s\n", e.what());
        return kExitFailure;
    }
}
