// MakeCodec and the registry: names, stable wire ids, and configuration errors that name
// their JSON path.

#include "compression/codec-spec.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace fedran
{
namespace
{

std::unique_ptr<Codec>
Make(const std::string& type)
{
    nlohmann::json spec{{"type", type}};
    if (type == "error_feedback" || type == "clipped")
    {
        spec["base"] = {{"type", "none"}};
    }
    if (type == "clipped")
    {
        spec["clip_value"] = 1.0;
    }
    if (type == "adaptive")
    {
        spec["ladder"] = {{{"type", "none"}}};
    }
    return MakeCodec(spec, "compression.uplink");
}

TEST(MakeCodec, KnowsEveryNameWithStableIds)
{
    // Wire ids are written into frames: they never change.
    const std::vector<std::pair<std::string, uint16_t>> expected = {{"none", 1},
                                                                    {"fp16", 2},
                                                                    {"top_k", 10},
                                                                    {"random_k", 11},
                                                                    {"threshold", 12},
                                                                    {"quantization", 20},
                                                                    {"qsgd", 21},
                                                                    {"sign", 22},
                                                                    {"error_feedback", 30},
                                                                    {"clipped", 31},
                                                                    {"dgc", 32},
                                                                    {"power_sgd", 40},
                                                                    {"adaptive", 41}};
    std::vector<std::string> names;
    for (const auto& [name, id] : expected)
    {
        names.push_back(name);
        EXPECT_EQ(Make(name)->Id(), id) << name;
        EXPECT_EQ(Make(name)->Name(), name);
    }
    EXPECT_EQ(CodecTypeNames(), names);
}

std::string
ConfigError(const nlohmann::json& spec)
{
    try
    {
        MakeCodec(spec, "compression.uplink");
    }
    catch (const CodecConfigError& e)
    {
        return e.what();
    }
    return "(no error)";
}

TEST(MakeCodec, ErrorsNameTheJsonPath)
{
    using nlohmann::json;
    EXPECT_EQ(
        ConfigError({{"type", "zip"}}),
        "compression.uplink.type: unknown codec 'zip' (known: none, fp16, top_k, random_k, "
        "threshold, quantization, qsgd, sign, error_feedback, clipped, dgc, power_sgd, adaptive)");
    EXPECT_EQ(ConfigError({{"type", "fp16"}, {"ratio", 0.1}}),
              "compression.uplink.ratio: unknown key for codec 'fp16'");
    EXPECT_EQ(ConfigError({{"kind", "none"}}).rfind("compression.uplink.type: missing", 0), 0u);
    EXPECT_EQ(ConfigError({{"type", 3}}).rfind("compression.uplink.type: must be a string", 0), 0u);
    EXPECT_EQ(ConfigError(json("none")).rfind("compression.uplink: ", 0), 0u);
    EXPECT_EQ(ConfigError(json::array()).rfind("compression.uplink: ", 0), 0u);
}

} // namespace
} // namespace fedran
