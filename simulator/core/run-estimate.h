#ifndef FEDRAN_SIMULATOR_CORE_RUN_ESTIMATE_H
#define FEDRAN_SIMULATOR_CORE_RUN_ESTIMATE_H

// What a run will need, estimated before it starts: the size of every codec's update frame
// (against the frame limit) and the resident memory of the whole run (against the machine's
// or --memory-limit), so that `fedran validate` and `run` refuse what cannot finish before
// training for minutes and growing to gigabytes (docs/reliability.md, "Refused before
// running").

#include "models/fl/federated-task.h"
#include "simulator/scenario/scenario.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fedran
{

/// The largest frame one codec of the scenario sends.
struct FrameEstimate
{
    std::string path;          ///< the scenario key of the codec, e.g. "compression.uplink"
    uint64_t payloadBytes = 0; ///< the largest payload of one frame
};

struct RunEstimate
{
    uint64_t parameters = 0; ///< floats in the model
    std::vector<FrameEstimate> frames;
    uint64_t frameLimit = 0; ///< largest payload a frame may carry

    /// Resident memory, by part (bytes).
    struct Memory
    {
        uint64_t base = 0;     ///< the process with ns-3 and its libraries
        uint64_t data = 0;     ///< training and test examples
        uint64_t server = 0;   ///< the server's and the round's model-sized buffers
        uint64_t clients = 0;  ///< every client's node, sockets, session and residual
        uint64_t inFlight = 0; ///< per client in a round: its model copies and socket buffers
        uint64_t retained = 0; ///< freed buffers the allocator keeps, growing with the rounds

        uint64_t Total() const
        {
            return base + data + server + clients + inFlight + retained;
        }
    } memory;
    uint64_t memoryLimit = 0;
    std::string memoryLimitSource; ///< "--memory-limit", "cgroup memory.max", "MemTotal"

    /// For run.json ("estimate") and tests.
    nlohmann::ordered_json ToJson() const;
    /// One line for `fedran validate`: largest frame and memory against their limits.
    std::string Summary() const;
};

/**
 * Estimates `config`'s needs once its task is prepared (the data loaded, nothing trained).
 * Frame sizes come from encoding a random update of the model's shape with each codec
 * (tensors above 2^20 elements at two smaller scales, extrapolated); memory from the model,
 * client and data sizes with coefficients fitted to measured peak RSS.
 */
RunEstimate EstimateRun(const ScenarioConfig& config,
                        const FederatedTask& task,
                        std::optional<uint64_t> memoryLimit);

/// Throws ScenarioError (exit 2) for a frame over the limit or memory above the limit, with
/// the figure and the limit.
void CheckRunEstimate(const RunEstimate& estimate);

/// "512M", "8G", "1.5GiB", "1000000": bytes; throws BadInput naming `option`.
uint64_t ParseMemorySize(const std::string& text, const std::string& option);

/// "1.6 GB" style, powers of 1024.
std::string ByteText(uint64_t bytes);

} // namespace fedran

#endif
