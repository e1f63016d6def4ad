#include "simulator/run-manifest.h"

#include "models/fl/dp-aggregation.h"
#include "models/learning/gemm.h"
#include "simulator/core/libm-pinning.h"
#include "simulator/core/output-folder.h"
#include "simulator/network-topology.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <unistd.h>

namespace ns3
{

namespace
{

const char*
StatusName(RunStatus status)
{
    switch (status)
    {
        case RunStatus::Running:
            return "running";
        case RunStatus::Completed:
            return "completed";
        case RunStatus::Interrupted:
            return "interrupted";
        case RunStatus::Failed:
            return "failed";
    }
    return "running";
}

/// Writes `text` to `path` through `path`.tmp, fsync and rename: readers (and a machine that
/// crashes) see the old file or the new one, never a part.
void
ReplaceFile(const std::string& path, const std::string& text)
{
    const std::string tmp = path + ".tmp";
    auto fail = [](const std::string& what) {
        throw std::runtime_error(what + ": " + std::strerror(errno));
    };
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
    {
        fail("cannot write " + tmp);
    }
    size_t done = 0;
    while (done < text.size())
    {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
        {
            continue;
        }
        if (n <= 0)
        {
            const int error = n == 0 ? EIO : errno;
            ::close(fd);
            ::unlink(tmp.c_str());
            errno = error;
            fail("cannot write " + tmp);
        }
        done += static_cast<size_t>(n);
    }
    if (::fsync(fd) != 0)
    {
        const int error = errno;
        ::close(fd);
        ::unlink(tmp.c_str());
        errno = error;
        fail("cannot sync " + tmp);
    }
    if (::close(fd) != 0)
    {
        const int error = errno;
        ::unlink(tmp.c_str());
        errno = error;
        fail("cannot write " + tmp);
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
    {
        fail("cannot replace " + path + " by " + tmp);
    }
}

} // namespace

void
WriteRunManifest(const std::string& outDir,
                 const fedran::ScenarioConfig& config,
                 RunStatus status,
                 const RunTotals& totals,
                 double wallSeconds,
                 const std::string& note,
                 const nlohmann::json& estimate,
                 const nlohmann::json& dataReport)
{
    nlohmann::ordered_json manifest;
    manifest["status"] = StatusName(status);
    manifest["fedran_version"] = FedranVersion();
    manifest["name"] = config.name;
    manifest["seed"] = config.seed;
    manifest["transport"] = config.network.transport; // network.transport: "tcp" or "flow"
    // Portable kernels give the same bits on any x86-64; fast ones differ between instruction
    // sets, so runs to be compared bit for bit must agree here.
    manifest["kernels"] = fedran::ActiveGemmKernelName();
    // ns-3's own calls into libm: "sse2" when pinned to the same build on every CPU.
    manifest["libm"] = fedran::LibmStatus();
    // network.tcp as ns-3 applies it (ConfigureBackhaulTcp), the ns-3 names spelled out.
    const fedran::ScenarioConfig::Network::Tcp& tcp = config.network.tcp;
    manifest["tcp"] = {{"congestion_control", TcpCongestionTypeId(tcp.congestionControl)},
                       {"initial_window_segments", tcp.initialWindow},
                       {"delayed_ack_count", tcp.delayedAck ? 2 : 1},
                       {"sack", tcp.sack},
                       {"pacing", tcp.congestionControl == "bbr"},
                       {"segment_size", 1448}};
    if (status == RunStatus::Interrupted)
    {
        manifest["interrupted_by"] = note;
        manifest["last_complete_round"] = totals.rounds;
    }
    if (status == RunStatus::Failed)
    {
        manifest["error"] = note;
        manifest["wall_time_s"] = wallSeconds;
    }
    if (status == RunStatus::Completed || status == RunStatus::Interrupted)
    {
        manifest["wall_time_s"] = wallSeconds;
        manifest["result"] = {{"rounds", totals.rounds},
                              {"final_test_accuracy", totals.finalAccuracy},
                              {"final_test_nrmse", totals.finalNrmse},
                              {"sim_time_s", totals.simTimeS},
                              {"uplink_payload_bytes", totals.uplinkPayloadBytes},
                              {"downlink_payload_bytes", totals.downlinkPayloadBytes},
                              {"uplink_wire_bytes", totals.uplinkWireBytes},
                              {"downlink_wire_bytes", totals.downlinkWireBytes},
                              {"clients_joined", totals.clientsJoined},
                              {"clients_expected", totals.clientsExpected},
                              {"join_time_s", totals.joinTimeS},
                              {"access_packets", totals.accessPackets}};
        // Wall-clock figures vary between runs; everything else in run.json does not.
        manifest["timing"] = {{"prepare_wall_s", totals.timing.prepareWallS},
                              {"setup_wall_s", totals.timing.setupWallS},
                              {"join_wall_s", totals.timing.joinWallS},
                              {"simulate_wall_s", totals.timing.simulateWallS},
                              {"round_wall_s", totals.timing.roundWallS},
                              {"simulate_cpu_s", totals.timing.simulateCpuS},
                              {"round_cpu_s", totals.timing.roundCpuS},
                              {"events", totals.timing.events}};
    }
    if (config.dp.Enabled())
    {
        // The accountant's figures for the rounds that completed (rounds.csv's last epsilon).
        const fedran::DpLedger ledger(config.dp,
                                      config.server.clientsPerRound,
                                      config.TotalClients());
        // Central: a step per round; local: the most-selected site's selections.
        const fedran::PrivacySpent spent = ledger.After(totals.privacySteps);
        manifest["privacy"] = {{"mode", config.dp.mode},
                               {"clip_norm", config.dp.clipNorm},
                               {"noise_multiplier", config.dp.noiseMultiplier},
                               {"delta", config.dp.delta},
                               {"sampling_rate", ledger.SamplingRate()},
                               {"rounds", totals.rounds},
                               {"steps", totals.privacySteps},
                               {"epsilon", spent.epsilon},
                               {"order", spent.order},
                               {"accountant", ledger.Accountant()},
                               {"orders", ledger.Orders()}};
        if (config.dp.AdaptiveClipping())
        {
            const fedran::AdaptiveClipConfig& adaptive = config.dp.adaptive;
            manifest["privacy"]["adaptive_clipping"] = {
                {"target_unclipped_quantile", adaptive.targetQuantile},
                {"learning_rate", adaptive.learningRate},
                {"clipped_count_stddev", adaptive.countStddev},
                {"update", adaptive.update},
                {"sum_noise_multiplier",
                 fedran::AdaptiveSumNoiseMultiplier(config.dp.noiseMultiplier,
                                                    adaptive.countStddev)},
                {"last_clip_norm", totals.lastClipNorm}};
        }
    }
    if (config.secagg.Enabled())
    {
        const fedran::SecAggConfig& sa = config.secagg;
        nlohmann::json failures = nlohmann::json::array();
        for (const auto& [round, why] : totals.secaggFailures)
        {
            failures.push_back({{"round", round}, {"reason", why}});
        }
        manifest["secure_aggregation"] = {{"type", sa.type},
                                          {"num_shares", sa.numShares},
                                          {"threshold", sa.threshold},
                                          {"field_bits", sa.fieldBits},
                                          {"clipping_range", sa.clippingRange},
                                          {"quantization_range", sa.quantizationRange},
                                          {"max_weight", sa.maxWeight},
                                          {"timeout_s", sa.timeoutS},
                                          {"secagg_bytes", totals.secaggBytes},
                                          {"secagg_s", totals.secaggS},
                                          {"failed_rounds", failures}};
    }
    manifest["files"] = {"rounds.csv", "clients.csv", "partition.csv"};
    if (!estimate.is_null())
    {
        manifest["estimate"] = estimate;
    }
    if (dataReport.is_object())
    {
        for (const auto& [key, value] : dataReport.items())
        {
            manifest[key] = value;
        }
    }
    manifest["scenario"] = config.resolved;
    fedran::RecordOutputFile(outDir, "run.json");
    fedran::RecordOutputFile(outDir, "run.json.tmp"); // left behind by a kill mid-replace
    ReplaceFile(outDir + "/run.json", manifest.dump(2) + "\n");
}

} // namespace ns3
