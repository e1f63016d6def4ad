#include "models/learning/cnn-model.h"
#include "models/learning/dataset.h"
#include "models/learning/mlp-model.h"
#include "models/learning/model.h"
#include "models/learning/recurrent-model.h"
#include "models/learning/softmax-model.h"
#include "models/learning/temporal-mlp-model.h"

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

/// A model spec read and checked, with every absent parameter at its default.
struct ParsedSpec
{
    std::string type = "softmax";
    std::vector<uint32_t> hidden{200, 200};       ///< mlp
    CnnShape cnn;                                 ///< cnn: channels and hidden
    uint32_t recurrentHidden = 32;                ///< lstm, gru: units per layer
    uint32_t layers = 1;                          ///< lstm, gru
    std::vector<uint32_t> temporalHidden{64, 32}; ///< temporal_mlp

    bool Recurrent() const
    {
        return type == "lstm" || type == "gru";
    }

    bool Forecaster() const
    {
        return Recurrent() || type == "temporal_mlp";
    }
};

[[noreturn]] void
FailUnknownType(const std::string& type)
{
    std::string known;
    for (const std::string& name : ModelTypeNames())
    {
        known += (known.empty() ? "" : ", ") + name;
    }
    Fail(kPath + ".type", "unknown model '" + type + "' (known: " + known + ")");
}

ParsedSpec
Parse(const json& spec)
{
    if (!spec.is_object())
    {
        Fail(kPath, "must be an object");
    }
    ParsedSpec parsed;
    if (spec.contains("type"))
    {
        if (!spec["type"].is_string())
        {
            Fail(kPath + ".type", "must be a string");
        }
        parsed.type = spec["type"].get<std::string>();
    }
    if (parsed.type == "softmax")
    {
        CheckKeys(spec, {"type"});
    }
    else if (parsed.type == "mlp")
    {
        CheckKeys(spec, {"type", "hidden"});
        if (spec.contains("hidden"))
        {
            parsed.hidden = PositiveIntegers(spec["hidden"], kPath + ".hidden");
        }
    }
    else if (parsed.type == "cnn")
    {
        CheckKeys(spec, {"type", "channels", "hidden"});
        if (spec.contains("channels"))
        {
            const std::vector<uint32_t> channels =
                PositiveIntegers(spec["channels"], kPath + ".channels");
            if (channels.size() != 2)
            {
                Fail(kPath + ".channels", "must list two channel counts (conv1, conv2)");
            }
            parsed.cnn.channels = {channels[0], channels[1]};
        }
        if (spec.contains("hidden"))
        {
            parsed.cnn.hidden = PositiveInteger(spec["hidden"], kPath + ".hidden");
        }
    }
    else if (parsed.Recurrent())
    {
        CheckKeys(spec, {"type", "hidden", "layers"});
        if (spec.contains("hidden"))
        {
            parsed.recurrentHidden = PositiveInteger(spec["hidden"], kPath + ".hidden");
        }
        if (spec.contains("layers"))
        {
            parsed.layers = PositiveInteger(spec["layers"], kPath + ".layers");
        }
    }
    else if (parsed.type == "temporal_mlp")
    {
        CheckKeys(spec, {"type", "hidden"});
        if (spec.contains("hidden"))
        {
            parsed.temporalHidden = PositiveIntegers(spec["hidden"], kPath + ".hidden");
        }
    }
    else
    {
        FailUnknownType(parsed.type);
    }
    return parsed;
}

} // namespace

std::vector<std::string>
ModelTypeNames()
{
    return {"softmax", "mlp", "cnn", "lstm", "gru", "temporal_mlp"};
}

std::unique_ptr<Model>
MakeModel(const json& spec, const DataShape& shape)
{
    ParsedSpec parsed = Parse(spec);
    const uint32_t features = shape.features;
    const uint32_t classes = shape.classes;
    // A forecaster has no labels to predict and a classifier no targets to regress on: say so
    // by model type rather than fail later on an empty label or target vector.
    if (parsed.Forecaster() && shape.outputs == 0)
    {
        Fail(kPath + ".type",
             "'" + parsed.type +
                 "' forecasts a series and needs a forecasting dataset (e.g. cell-traffic); "
                 "this dataset is labelled (" +
                 std::to_string(classes) + " classes)");
    }
    if (!parsed.Forecaster() && shape.outputs > 0)
    {
        Fail(kPath + ".type",
             "'" + parsed.type + "' is a classifier; this dataset is a forecasting one (" +
                 std::to_string(shape.outputs) + " outputs): use lstm, gru or temporal_mlp");
    }
    if (parsed.Recurrent())
    {
        if (shape.sequence == 0)
        {
            Fail(kPath + ".type",
                 "'" + parsed.type + "' needs a window of consecutive steps in the data; " +
                     "this dataset has none");
        }
        const RecurrentCell cell =
            parsed.type == "lstm" ? RecurrentCell::kLstm : RecurrentCell::kGru;
        return std::make_unique<RecurrentModel>(cell, shape, parsed.recurrentHidden, parsed.layers);
    }
    if (parsed.type == "temporal_mlp")
    {
        return std::make_unique<TemporalMlpModel>(shape, std::move(parsed.temporalHidden));
    }
    if (parsed.type == "mlp")
    {
        return std::make_unique<MlpModel>(features, std::move(parsed.hidden), classes);
    }
    if (parsed.type == "cnn")
    {
        if (features != parsed.cnn.Features())
        {
            Fail(kPath + ".type",
                 "cnn takes 28x28 single-channel images (784 features); the data has " +
                     std::to_string(features) + " features");
        }
        parsed.cnn.classes = classes;
        return std::make_unique<CnnModel>(parsed.cnn);
    }
    return std::make_unique<SoftmaxModel>(features, classes);
}

std::unique_ptr<Model>
MakeModel(const json& spec, uint32_t features, uint32_t classes)
{
    return MakeModel(spec, DataShape{features, classes, 0, 0});
}

json
ModelSpecWithDefaults(const json& spec)
{
    const ParsedSpec parsed = Parse(spec);
    json out{{"type", parsed.type}};
    if (parsed.type == "mlp")
    {
        out["hidden"] = parsed.hidden;
    }
    else if (parsed.type == "cnn")
    {
        out["channels"] = parsed.cnn.channels;
        out["hidden"] = parsed.cnn.hidden;
    }
    else if (parsed.Recurrent())
    {
        out["hidden"] = parsed.recurrentHidden;
        out["layers"] = parsed.layers;
    }
    else if (parsed.type == "temporal_mlp")
    {
        out["hidden"] = parsed.temporalHidden;
    }
    return out;
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
