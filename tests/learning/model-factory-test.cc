// MakeModel: building each model type from its scenario JSON, defaults, and error messages
// that start with the JSON path of the offending value.

#include "models/learning/cnn-model.h"
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
              "model.type: unknown model 'x' (known: softmax, mlp, cnn)");
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

} // namespace
} // namespace fedran
