// clients.groups[].compute (cores, codec_speed, profile) and server.compute: the devices
// whose cost profiles put encoding, decoding, aggregation and evaluation on the clock.
#include "compression/codec-spec.h"
#include "models/link-config/input-file.h"
#include "simulator/scenario/config-readers.h"

#include <memory>

namespace fedran
{

namespace
{

/// The profile a compute object names at `path` (its "profile" key), or the reference
/// machine's; nullptr (and an error naming the key) when it cannot be read.
std::shared_ptr<const CostProfile>
ReadProfile(const nlohmann::json& compute,
            const std::string& path,
            std::vector<std::string>& errors)
{
    const auto it = compute.find("profile");
    if (it == compute.end())
    {
        // One shared copy: every device of a run without a profile of its own uses it.
        static const auto reference = std::make_shared<const CostProfile>(CostProfile::Reference());
        return reference;
    }
    const std::string file = it->get<std::string>();
    const std::string where = path + ".profile: " + file;
    std::string text;
    try
    {
        text = ReadInputFile(file, kProfileFileLimit, "cost profile");
    }
    catch (const ScenarioError& e)
    {
        errors.push_back(path + ".profile: " + e.what());
        return nullptr;
    }
    nlohmann::json json;
    try
    {
        json = nlohmann::json::parse(text);
    }
    catch (const nlohmann::json::parse_error& e)
    {
        errors.push_back(where + ": not JSON (byte " + std::to_string(e.byte) + ")");
        return nullptr;
    }
    try
    {
        return std::make_shared<const CostProfile>(CostProfile::FromJson(json));
    }
    catch (const CostProfileError& e)
    {
        errors.push_back(where + ": " + e.what());
        return nullptr;
    }
}

} // namespace

DeviceCompute
ReadClientCompute(const nlohmann::json& compute,
                  const std::string& path,
                  std::vector<std::string>& errors)
{
    DeviceCompute device;
    device.cores = ReadUint32(compute.at("cores"), path + ".cores", errors);
    device.speed = compute.at("codec_speed").get<double>();
    device.profile = ReadProfile(compute, path, errors);
    return device;
}

DeviceCompute
ReadServerCompute(const nlohmann::json& server, std::vector<std::string>& errors)
{
    const nlohmann::json& compute = server.at("compute");
    DeviceCompute device;
    device.cores = ReadUint32(compute.at("cores"), "server.compute.cores", errors);
    device.speed = compute.at("speed").get<double>();
    device.profile = ReadProfile(compute, "server.compute", errors);
    return device;
}

void
CheckPipelining(const ScenarioConfig& config, std::vector<std::string>& errors)
{
    if (!config.training.pipelining.layerwise)
    {
        return;
    }
    const std::string path = "training.pipelining.mode: \"layerwise\"";
    if (config.server.async)
    {
        errors.push_back(path + " needs synchronous rounds (server.mode \"async\" folds "
                                "whole updates only)");
    }
    // Buckets are encoded alone, tensor by tensor: a codec that must see the whole update
    // first cannot start before the backward pass ends.
    const CodecSpec& uplink = config.uplinkCodec;
    if (uplink.Empty() || uplink.UsesStepMode())
    {
        return; // a bad spec is reported where it is read; dgc's step mode by its own check
    }
    if (const std::string why = uplink.UnsplittableBecause(); !why.empty())
    {
        errors.push_back(path + " cannot split compression.uplink \"" + uplink.Label() +
                         "\": " + why);
    }
}

} // namespace fedran
