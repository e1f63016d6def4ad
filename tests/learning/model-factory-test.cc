// MakeModel: building each model type from its scenario JSON, defaults, and error messages
// that start with the JSON path of the offending value.

#include "models/learning/cnn-model.h"
#include "models/learning/dataset.h"
#include "models/learning/model.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

namespace fedran
{
namespace
{

using nlohmann::json;

/// The message MakeModel throws for `spec`, or "" if it builds.
std::string
ErrorOf(const json& spec, uint32_t features = 784, uint32_t classes = 10)
{
    try
    {
        MakeModel(spec, features, classes);
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

TEST(ModelFactory, BuildsEachTypeWithDefaults)
{
    EXPECT_EQ(MakeModel(json{{"type", "softmax"}}, 784, 10)->Layout().TotalSize(), 7850u);
    EXPECT_EQ(MakeModel(json::object(), 784, 10)->Layout().TotalSize(), 7850u);
    EXPECT_EQ(MakeModel(json{{"type", "mlp"}}, 784, 10)->Layout().TotalSize(), 199210u);
    const auto cnn = MakeModel(json{{"type", "cnn"}}, 784, 10);
    EXPECT_EQ(cnn->Layout().Tensors()[0].name, "conv1.weight");
    EXPECT_EQ(cnn->Layout().TotalSize(), CnnModel(CnnShape{}).Layout().TotalSize());
}

TEST(ModelFactory, ReadsParameters)
{
    const auto mlp = MakeModel(json{{"type", "mlp"}, {"hidden", {64}}}, 20, 5);
    EXPECT_EQ(mlp->Layout().TotalSize(), 64u * 20 + 64 + 5 * 64 + 5);
    const auto linear = MakeModel(json{{"type", "mlp"}, {"hidden", json::array()}}, 20, 5);
    EXPECT_EQ(linear->Layout().TotalSize(), 20u * 5 + 5);

    const auto cnn =
        MakeModel(json{{"type", "cnn"}, {"channels", {6, 16}}, {"hidden", 100}}, 784, 10);
    const auto& tensors = cnn->Layout().Tensors();
    EXPECT_EQ(tensors[0].shape, (std::vector<uint32_t>{6, 1, 5, 5}));
    EXPECT_EQ(tensors[2].shape, (std::vector<uint32_t>{16, 6, 5, 5}));
    EXPECT_EQ(tensors[4].shape[0], 100u);
    EXPECT_EQ(tensors[7].shape, (std::vector<uint32_t>{10}));
}

TEST(ModelFactory, StringOverloadsDelegate)
{
    EXPECT_EQ(MakeModel("mlp", 784, 10)->Layout().TotalSize(), 199210u);
    EXPECT_EQ(MakeModel(std::string("softmax"), 5, 3)->Layout().TotalSize(), 18u);
    EXPECT_THROW(MakeModel("", 5, 3), std::invalid_argument);
}

TEST(ModelFactory, ErrorsStartWithTheJsonPath)
{
    EXPECT_EQ(ErrorOf(json{{"type", "x"}}),
              "model.type: unknown model 'x' (known: softmax, mlp, cnn, lstm, gru, temporal_mlp)");
    EXPECT_EQ(ErrorOf(json{{"type", 3}}), "model.type: must be a string");
    EXPECT_EQ(ErrorOf(json::array()), "model: must be an object");
    EXPECT_EQ(ErrorOf(json{{"type", "mlp"}, {"hiden", {10}}}), "model.hiden: unknown key");
    EXPECT_EQ(ErrorOf(json{{"type", "softmax"}, {"hidden", {10}}}), "model.hidden: unknown key");

    const std::string positive = ": must be a positive integer (at most 65536)";
    EXPECT_EQ(ErrorOf(json{{"type", "mlp"}, {"hidden", {200, 0}}}), "model.hidden.1" + positive);
    EXPECT_EQ(ErrorOf(json{{"type", "mlp"}, {"hidden", {-3}}}), "model.hidden.0" + positive);
    EXPECT_EQ(ErrorOf(json{{"type", "mlp"}, {"hidden", {2.5}}}), "model.hidden.0" + positive);
    EXPECT_EQ(ErrorOf(json{{"type", "mlp"}, {"hidden", {"8"}}}), "model.hidden.0" + positive);
    EXPECT_EQ(ErrorOf(json{{"type", "mlp"}, {"hidden", {1 << 20}}}), "model.hidden.0" + positive);
    EXPECT_EQ(ErrorOf(json{{"type", "mlp"}, {"hidden", 200}}),
              "model.hidden: must be a list of positive integers");

    EXPECT_EQ(ErrorOf(json{{"type", "cnn"}, {"channels", {16}}}),
              "model.channels: must list two channel counts (conv1, conv2)");
    EXPECT_EQ(ErrorOf(json{{"type", "cnn"}, {"channels", {16, true}}}),
              "model.channels.1" + positive);
    EXPECT_EQ(ErrorOf(json{{"type", "cnn"}, {"hidden", {128}}}), "model.hidden" + positive);
    EXPECT_EQ(ErrorOf(json{{"type", "cnn"}, {"kernel", 3}}), "model.kernel: unknown key");
    EXPECT_EQ(ErrorOf(json{{"type", "cnn"}}, 100, 10),
              "model.type: cnn takes 28x28 single-channel images (784 features); the data has "
              "100 features");
}

/// The message MakeModel throws for `spec` on data of `shape`, or "" if it builds.
std::string
ErrorOn(const json& spec, const DataShape& shape)
{
    try
    {
        MakeModel(spec, shape);
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

TEST(ModelFactory, BuildsForecastersFromTheDataShape)
{
    const DataShape shape{39, 0, 1, 36}; // a 36-step window and 3 side features
    const auto lstm = MakeModel(json{{"type", "lstm"}}, shape);
    EXPECT_EQ(lstm->Layout().Tensors()[0].name, "lstm1.weight_ih_i");
    EXPECT_EQ(lstm->Layout().TotalSize(), 4u * 32 * (1 + 32 + 1) + 36 + 1);
    const auto gru = MakeModel(json{{"type", "gru"}, {"hidden", 8}, {"layers", 2}}, shape);
    EXPECT_EQ(gru->Layout().TotalSize(),
              3u * 8 * (1 + 8 + 1) + 8 + 3u * 8 * (8 + 8 + 1) + 8 + 12 + 1);
    const auto mlp = MakeModel(json{{"type", "temporal_mlp"}, {"hidden", {16}}}, shape);
    EXPECT_EQ(mlp->Layout().TotalSize(), 16u * 39 + 16 + 16 + 1);
    EXPECT_EQ(MakeModel(json{{"type", "temporal_mlp"}}, shape)->Layout().TotalSize(),
              64u * 39 + 64 + 32 * 64 + 32 + 32 + 1);
}

TEST(ModelFactory, RefusesAModelForTheOtherKindOfTask)
{
    const std::string forecaster = ErrorOn(json{{"type", "lstm"}}, DataShape{784, 10, 0, 0});
    EXPECT_EQ(forecaster.rfind("model.type: 'lstm' forecasts", 0), 0u) << forecaster;
    const std::string classifier = ErrorOn(json{{"type", "mlp"}}, DataShape{39, 0, 1, 36});
    EXPECT_EQ(classifier.rfind("model.type: 'mlp' is a classifier", 0), 0u) << classifier;
    EXPECT_EQ(ErrorOn(json{{"type", "softmax"}}, DataShape{39, 0, 1, 36}).rfind("model.type:", 0),
              0u);
    EXPECT_EQ(ErrorOn(json{{"type", "gru"}}, DataShape{3, 0, 1, 0}).rfind("model.type:", 0), 0u);
    EXPECT_EQ(ErrorOn(json{{"type", "temporal_mlp"}}, DataShape{3, 0, 1, 0}), "");
    EXPECT_EQ(ErrorOf(json{{"type", "gru"}}, 784, 10).rfind("model.type:", 0), 0u);
}

TEST(ModelFactory, ChecksForecasterKeysAndWritesTheirDefaults)
{
    const DataShape shape{8, 0, 1, 8};
    EXPECT_EQ(ErrorOn(json{{"type", "lstm"}, {"hidden", 0}}, shape).rfind("model.hidden:", 0), 0u);
    EXPECT_EQ(ErrorOn(json{{"type", "gru"}, {"layers", 1.5}}, shape).rfind("model.layers:", 0), 0u);
    EXPECT_EQ(ErrorOn(json{{"type", "lstm"}, {"hidden", {4}}}, shape).rfind("model.hidden:", 0),
              0u);
    EXPECT_EQ(ErrorOn(json{{"type", "gru"}, {"channels", 4}}, shape),
              "model.channels: unknown key");
    EXPECT_EQ(ModelSpecWithDefaults(json{{"type", "lstm"}}),
              (json{{"type", "lstm"}, {"hidden", 32}, {"layers", 1}}));
    EXPECT_EQ(ModelSpecWithDefaults(json{{"type", "gru"}, {"hidden", 64}}),
              (json{{"type", "gru"}, {"hidden", 64}, {"layers", 1}}));
    EXPECT_EQ(ModelSpecWithDefaults(json{{"type", "temporal_mlp"}}),
              (json{{"type", "temporal_mlp"}, {"hidden", {64, 32}}}));
}

} // namespace
} // namespace fedran
