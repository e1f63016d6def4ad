#include "models/learning/cnn-model.h"
#include "models/learning/mlp-model.h"
#include "models/learning/model.h"
#include "models/learning/softmax-model.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace fedran
{

namespace
{

using nlohmann::json;

/// Every message starts with the JSON path of the offending value, as scenario errors do.
const std::string kPath = "model";

/// Widths and channel counts above this are certainly typos, and would overflow the layout.
constexpr uint64_t kMaxWidth = 1u << 16;

[[noreturn]] void
Fail(const std::string& path, const std::string& message)
{
    throw std::invalid_argument(path + ": " + message);
}

uint32_t
PositiveInteger(const json& value, const std::string& path)
{
    // is_number_integer() is false for 2.0, so a float in a width is an error, not truncated.
    if (!value.is_number_integer() || value.get<int64_t>() <= 0 ||
        value.get<uint64_t>() > kMaxWidth)
    {
        Fail(path, "must be a positive integer (at most " + std::to_string(kMaxWidth) + ")");
    }
    return value.get<uint32_t>();
}

std::vector<uint32_t>
PositiveIntegers(const json& value, const std::string& path)
{
    if (!value.is_array())
    {
        Fail(path, "must be a list of positive integers");
    }
    std::vector<uint32_t> out;
    for (size_t i = 0; i < value.size(); ++i)
    {
        out.push_back(PositiveInteger(value[i], path + "." + std::to_string(i)));
    }
    return out;
}

/// Rejects keys that the model type does not take (a misspelt key would be silently ignored).
void
CheckKeys(const json& spec, std::initializer_list<std::string_view> allowed)
{
    for (const auto& [key, value] : spec.items())
    {
        if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
        {
            Fail(kPath + "." + key, "unknown key");
        }
    }
}

std::unique_ptr<Model>
MakeMlp(const json& spec, uint32_t features, uint32_t classes)
{
    CheckKeys(spec, {"type", "hidden"});
    std::vector<uint32_t> hidden{200, 200};
    if (spec.contains("hidden"))
    {
        hidden = PositiveIntegers(spec["hidden"], kPath + ".hidden");
    }
    return std::make_unique<MlpModel>(features, std::move(hidden), classes);
}

std::unique_ptr<Model>
MakeCnn(const json& spec, uint32_t features, uint32_t classes)
{
    CheckKeys(spec, {"type", "channels", "hidden"});
    CnnShape shape;
    if (features != shape.Features())
    {
        Fail(kPath + ".type",
             "cnn takes 28x28 single-channel images (784 features); the data has " +
                 std::to_string(features) + " features");
    }
    shape.classes = classes;
    if (spec.contains("channels"))
    {
        const std::vector<uint32_t> channels =
            PositiveIntegers(spec["channels"], kPath + ".channels");
        if (channels.size() != 2)
        {
            Fail(kPath + ".channels", "must list two channel counts (conv1, conv2)");
        }
        shape.channels = {channels[0], channels[1]};
    }
    if (spec.contains("hidden"))
    {
        shape.hidden = PositiveInteger(spec["hidden"], kPath + ".hidden");
    }
    return std::make_unique<CnnModel>(shape);
}

} // namespace

std::vector<std::string>
ModelTypeNames()
{
    return {"softmax", "mlp", "cnn"};
}

std::unique_ptr<Model>
MakeModel(const json& spec, uint32_t features, uint32_t classes)
{
    if (!spec.is_object())
    {
        Fail(kPath, "must be an object");
    }
    std::string type = "softmax";
    if (spec.contains("type"))
    {
        if (!spec["type"].is_string())
        {
            Fail(kPath + ".type", "must be a string");
        }
        type = spec["type"].get<std::string>();
    }
    if (type == "softmax")
    {
        CheckKeys(spec, {"type"});
        return std::make_unique<SoftmaxModel>(features, classes);
    }
    if (type == "mlp")
    {
        return MakeMlp(spec, features, classes);
    }
    if (type == "cnn")
    {
        return MakeCnn(spec, features, classes);
    }
    std::string known;
    for (const std::string& name : ModelTypeNames())
    {
        known += (known.empty() ? "" : ", ") + name;
    }
    Fail(kPath + ".type", "unknown model '" + type + "' (known: " + known + ")");
}

std::unique_ptr<Model>
MakeModel(const std::string& type, uint32_t features, uint32_t classes)
{
    return MakeModel(json{{"type", type}}, features, classes);
}

std::unique_ptr<Model>
MakeModel(const char* type, uint32_t features, uint32_t classes)
{
    return MakeModel(std::string(type), features, classes);
}

} // namespace fedran
