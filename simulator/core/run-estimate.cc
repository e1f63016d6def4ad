#include "simulator/core/run-estimate.h"

#include "compression/codec-spec.h"
#include "models/fl/update-frame.h"
#include "models/link-config/link-types.h"
#include "models/link-config/scenario-error.h"
#include "simulator/core/cli-error.h"
#include "simulator/core/codec-round-trip.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>

namespace fedran
{

namespace
{

/// Tensors up to this many elements are encoded at their own shape.
constexpr uint64_t kExactElements = 1u << 20;

// Memory coefficients, fitted to peak RSS (/usr/bin/time -v) of synthetic-data runs with MLPs
// of 0.6 k, 1.07 M and 4.1 M parameters at 5 and 10 clients a round, and checked on the
// shipped scenarios (docs/reliability.md has both tables and the commands).
constexpr uint64_t kBaseBytes = 40ull << 20; ///< fedran, ns-3 and their libraries, idle
/// The server's and the round's model-sized buffers: global model, scratch, result, optimizer
/// state, encoded model, and what the allocator keeps of the round's freed buffers.
constexpr double kServerModelCopies = 25.0;
/// Per client in a round: received model, training copy, gradient, update and its encoding.
constexpr double kSelectedModelCopies = 4.0;
/// Per client in a round with the TCP transport: the frames in its sockets' send and receive
/// buffers (each 4 MiB, network-topology.cc), both ways.
constexpr double kSocketFrameCopies = 2.25;
constexpr uint64_t kSocketBufferBytes = 4u << 20;
/// A client's node, stack, sockets, session and codec objects (docs/performance.md: 55-87 kB a
/// site at 1,000 and 10,000 sites).
constexpr uint64_t kPerClientBytes = 80u << 10;
/// A client on a stated link under a transport that carries no packets: no node, stack or
/// device, only its session, connection and flow-model state (docs/scale.md: 8.6 kB a site
/// measured; the bound leaves room for the allocator).
constexpr uint64_t kStatedClientBytes = 12u << 10;
/// What the allocator keeps of freed round buffers grows with the rounds (fragmentation; the
/// heap is trimmed only above 256 MiB free, main.cc): measured from 0.2 to 1.15 models per
/// client and round between 2 and 100 rounds; 0.55, up to the larger of 384 MiB and 100 models.
constexpr double kRetainedModelsPerClientRound = 0.55;
constexpr double kRetainedCapModels = 100.0;
constexpr uint64_t kRetainedCapBytes = 384ull << 20;

/// A random update of `layout`'s shape (a trained update's scale; its values barely matter
/// to the sizes, except to entropy-coded codecs, for which it is a typical case).
std::vector<float>
RandomUpdate(const TensorLayout& layout, uint64_t seed)
{
    Rng rng(seed, 0x657374);
    std::vector<float> update(layout.TotalSize());
    for (float& value : update)
    {
        value = static_cast<float>(0.01 * rng.Normal());
    }
    return update;
}

/// The largest frame payload `spec` sends for an update of `layout` in its first round
/// (power_sgd's dense warm-up, if it has one, is its largest).
uint64_t
EncodedBytes(const CodecSpec& spec, const TensorLayout& layout)
{
    const std::vector<float> update = RandomUpdate(layout, layout.TotalSize());
    return CodecRoundTrip(spec).Run(layout, update, 1, false).LargestPayload();
}

/// `tensor` with every dimension divided by `divisor` (at least 1 each).
TensorSpec
Shrunk(const TensorSpec& tensor, double divisor)
{
    TensorSpec small = tensor;
    for (uint32_t& dim : small.shape)
    {
        dim = std::max<uint32_t>(1, static_cast<uint32_t>(std::lround(dim / divisor)));
    }
    return small;
}

/// One tensor's share of a payload. A large tensor is encoded at two smaller scales of the
/// same shape and the size extrapolated along the power law they give: sizes proportional to
/// the elements (dense, quantized, top-k) and to the sides (power_sgd's factors) both fit.
double
TensorBytes(const CodecSpec& spec, const TensorSpec& tensor)
{
    if (tensor.Size() <= kExactElements)
    {
        return double(EncodedBytes(spec, TensorLayout({tensor})));
    }
    const double dims = double(tensor.shape.size());
    // Divisors that bring the tensor to about kExactElements and a quarter of that.
    const double large = std::pow(double(tensor.Size()) / double(kExactElements), 1.0 / dims);
    const double small = large * std::pow(4.0, 1.0 / dims);
    const TensorSpec big = Shrunk(tensor, large);
    const TensorSpec little = Shrunk(tensor, small);
    const double bigBytes = double(EncodedBytes(spec, TensorLayout({big})));
    const double littleBytes = double(EncodedBytes(spec, TensorLayout({little})));
    const double ratio = double(tensor.Size()) / double(big.Size());
    if (littleBytes <= 0.0 || bigBytes <= littleBytes || big.Size() == little.Size())
    {
        return bigBytes * ratio; // proportional to the elements: the dense case
    }
    const double exponent =
        std::log(bigBytes / littleBytes) / std::log(double(big.Size()) / double(little.Size()));
    return bigBytes * std::pow(ratio, exponent);
}

uint64_t
FramePayloadBytes(const CodecSpec& spec, const TensorLayout& layout)
{
    if (spec.Traits().adaptive)
    {
        // The controller may pick any rung: the largest counts.
        uint64_t largest = 0;
        for (const CodecSpec& rung : spec.Children())
        {
            largest = std::max(largest, FramePayloadBytes(rung, layout));
        }
        return largest;
    }
    // Same frame sizes, encoding a finished update alone (dgc's step mode acts in training).
    const CodecSpec probe = spec.ForFinishedUpdates();
    if (layout.TotalSize() <= kExactElements)
    {
        return EncodedBytes(probe, layout);
    }
    double bytes = 0.0;
    for (const TensorSpec& tensor : layout.Tensors())
    {
        bytes += TensorBytes(probe, tensor);
    }
    return static_cast<uint64_t>(std::ceil(bytes));
}

/// The memory this process may use: --memory-limit, else the smaller of the cgroup's
/// memory.max (a Slurm job's --mem, a container's limit) and the machine's MemTotal.
void
MemoryLimit(std::optional<uint64_t> option, RunEstimate& estimate)
{
    if (option)
    {
        estimate.memoryLimit = *option;
        estimate.memoryLimitSource = "--memory-limit";
        return;
    }
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    uint64_t kib = 0;
    std::string unit;
    while (meminfo >> key >> kib >> unit)
    {
        if (key == "MemTotal:")
        {
            estimate.memoryLimit = kib * 1024;
            estimate.memoryLimitSource = "the machine's memory (MemTotal)";
            break;
        }
    }
    std::ifstream cgroup("/proc/self/cgroup");
    std::string line;
    while (std::getline(cgroup, line))
    {
        if (line.rfind("0::", 0) != 0)
        {
            continue;
        }
        std::ifstream max("/sys/fs/cgroup" + line.substr(3) + "/memory.max");
        std::string value;
        if (max >> value && value != "max")
        {
            const uint64_t bytes = std::strtoull(value.c_str(), nullptr, 10);
            if (bytes > 0 && (estimate.memoryLimit == 0 || bytes < estimate.memoryLimit))
            {
                estimate.memoryLimit = bytes;
                estimate.memoryLimitSource = "the cgroup's memory.max";
            }
        }
    }
}

} // namespace

std::string
ByteText(uint64_t bytes)
{
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = double(bytes);
    size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < std::size(units))
    {
        value /= 1024.0;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof(text), unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
    return text;
}

uint64_t
ParseMemorySize(const std::string& text, const std::string& option)
{
    size_t used = 0;
    double value = 0.0;
    try
    {
        value = std::stod(text, &used);
    }
    catch (const std::exception&)
    {
        used = 0;
    }
    std::string unit = text.substr(used);
    if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b'))
    {
        unit.pop_back();
    }
    if (unit.size() == 2 && (unit[1] == 'i' || unit[1] == 'I'))
    {
        unit.pop_back();
    }
    static const std::string kUnits = "KMGT";
    double scale = 1.0;
    if (unit.size() == 1 && kUnits.find(char(std::toupper(unit[0]))) != std::string::npos)
    {
        scale = std::pow(1024.0, double(kUnits.find(char(std::toupper(unit[0]))) + 1));
    }
    else if (!unit.empty())
    {
        used = 0;
    }
    if (used == 0 || !(value > 0.0) || value * scale > 1e18)
    {
        throw BadInput(option + ": '" + text + "' is not a memory size like 512M or 8G");
    }
    return static_cast<uint64_t>(value * scale);
}

RunEstimate
EstimateRun(const ScenarioConfig& config,
            const FederatedTask& task,
            std::optional<uint64_t> memoryLimit)
{
    RunEstimate estimate;
    const TensorLayout& layout = task.model->Layout();
    estimate.parameters = layout.TotalSize();
    estimate.frameLimit = kMaxFramePayload;

    std::vector<std::pair<std::string, const CodecSpec*>> codecs = {
        {"compression.uplink", &config.uplinkCodec},
        {"compression.downlink", &config.downlinkCodec}};
    for (const HubConfig& hub : config.network.hubs)
    {
        if (hub.aggregator)
        {
            const std::string path = "network.hubs (" + hub.name + ").aggregator.compression.";
            codecs.emplace_back(path + "uplink", &hub.aggregator->uplinkCodec);
            codecs.emplace_back(path + "downlink", &hub.aggregator->downlinkCodec);
        }
    }
    uint64_t uplinkBytes = 0;
    uint64_t downlinkBytes = 0;
    for (const auto& [path, spec] : codecs)
    {
        if (spec->Empty())
        {
            continue;
        }
        const uint64_t bytes = FramePayloadBytes(*spec, layout);
        estimate.frames.push_back({path, bytes});
        (path.ends_with("uplink") ? uplinkBytes : downlinkBytes) =
            std::max(path.ends_with("uplink") ? uplinkBytes : downlinkBytes, bytes);
    }

    const double model = 4.0 * double(layout.TotalSize());
    const TrainTestData& data = *task.data;
    RunEstimate::Memory& memory = estimate.memory;
    memory.base = kBaseBytes;
    memory.data = (data.train.x.size() + data.test.x.size()) * sizeof(float) + data.train.y.size() +
                  data.test.y.size() +
                  data.train.Size() * sizeof(uint32_t); // the partition's indices
    memory.server = static_cast<uint64_t>(kServerModelCopies * model);
    const uint64_t clients = config.TotalClients();
    const TransportTraits* transport = FindTransport(config.network.transport);
    const bool packets = transport != nullptr && transport->carriesPackets;
    for (const ClientGroupConfig& group : config.groups)
    {
        const LinkTypeTraits* link = FindLinkType(group.backhaul.type);
        const bool stated = !packets && link != nullptr && link->statedWithoutDevices;
        memory.clients += group.count * (stated ? kStatedClientBytes : kPerClientBytes);
    }
    // An error-feedback residual, dgc's momentum and accumulation: model-sized arrays that
    // stay with every client between its rounds (dgc's second once it was selected twice).
    memory.clients +=
        static_cast<uint64_t>(double(clients) * model * config.uplinkCodec.StateModels());
    double sockets = 0.0;
    // A packet transport holds each frame in socket buffers too.
    if (packets)
    {
        sockets =
            kSocketFrameCopies * double(std::min<uint64_t>(uplinkBytes, kSocketBufferBytes) +
                                        std::min<uint64_t>(downlinkBytes, kSocketBufferBytes));
    }
    memory.inFlight = static_cast<uint64_t>(double(config.server.clientsPerRound) *
                                            (kSelectedModelCopies * model + sockets));
    const double retained = kRetainedModelsPerClientRound * model *
                            double(config.server.clientsPerRound) * double(config.rounds);
    memory.retained = static_cast<uint64_t>(
        std::min(retained, std::max(double(kRetainedCapBytes), kRetainedCapModels * model)));
    MemoryLimit(memoryLimit, estimate);
    return estimate;
}

void
CheckRunEstimate(const RunEstimate& estimate)
{
    for (const FrameEstimate& frame : estimate.frames)
    {
        if (frame.payloadBytes > estimate.frameLimit)
        {
            throw ScenarioError(
                frame.path + ": an update of this model (" + std::to_string(estimate.parameters) +
                " parameters) would be a " + ByteText(frame.payloadBytes) +
                " frame payload (estimated), "
                "more than the frame limit of " +
                ByteText(estimate.frameLimit) + "; use a smaller model or a compressing codec");
        }
    }
    if (estimate.memoryLimit > 0 && estimate.memory.Total() > estimate.memoryLimit)
    {
        throw ScenarioError("the run would need about " + ByteText(estimate.memory.Total()) +
                            " of memory (estimated: model " + std::to_string(estimate.parameters) +
                            " parameters; clients " + ByteText(estimate.memory.clients) +
                            ", data " + ByteText(estimate.memory.data) + ", server " +
                            ByteText(estimate.memory.server) + "), more than the " +
                            ByteText(estimate.memoryLimit) + " of " + estimate.memoryLimitSource +
                            "; use fewer clients or a smaller model, or set --memory-limit");
    }
}

nlohmann::ordered_json
RunEstimate::ToJson() const
{
    nlohmann::ordered_json json;
    json["parameters"] = parameters;
    json["frame_limit_bytes"] = frameLimit;
    nlohmann::ordered_json frameList = nlohmann::ordered_json::object();
    for (const FrameEstimate& frame : frames)
    {
        frameList[frame.path] = frame.payloadBytes;
    }
    json["frame_payload_bytes"] = frameList;
    json["memory_bytes"] = memory.Total();
    json["memory"] = {{"base", memory.base},
                      {"data", memory.data},
                      {"server", memory.server},
                      {"clients", memory.clients},
                      {"in_round", memory.inFlight},
                      {"allocator_retained", memory.retained}};
    json["memory_limit_bytes"] = memoryLimit;
    json["memory_limit_source"] = memoryLimitSource;
    return json;
}

std::string
RunEstimate::Summary() const
{
    const FrameEstimate* largest = nullptr;
    for (const FrameEstimate& frame : frames)
    {
        if (largest == nullptr || frame.payloadBytes > largest->payloadBytes)
        {
            largest = &frame;
        }
    }
    std::string text = std::to_string(parameters) + " parameters";
    if (largest != nullptr)
    {
        text += "; largest frame payload " + ByteText(largest->payloadBytes) + " (" +
                largest->path + ", limit " + ByteText(frameLimit) + ")";
    }
    text += "; memory about " + ByteText(memory.Total()) + " (limit " + ByteText(memoryLimit) +
            ", " + memoryLimitSource + ")";
    return text;
}

} // namespace fedran
