// MakeCodec and the registry: names, stable wire ids, and configuration errors that name
// their JSON path.

#include "compression/codec.h"

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
    return MakeCodec(nlohmann::json{{"type", type}}, "compression.uplink");
}

TEST(MakeCodec, KnowsEveryNameWithStableIds)
{
    EXPECT_EQ(CodecTypeNames(), (std::vector<std::string>{"none", "fp16"}));
    EXPECT_EQ(Make("none")->Id(), 1);
    EXPECT_EQ(Make("fp16")->Id(), 2);
    for (const std::string& name : CodecTypeNames())
    {
        EXPECT_EQ(Make(name)->Name(), name);
    }
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
    EXPECT_EQ(ConfigError({{"type", "zip"}}),
              "compression.uplink.type: unknown codec 'zip' (known: none, fp16)");
    EXPECT_EQ(ConfigError({{"type", "fp16"}, {"ratio", 0.1}}),
              "compression.uplink.ratio: unknown key for codec 'fp16'");
    EXPECT_EQ(ConfigError({{"kind", "none"}}).rfind("compression.uplink.type: missing", 0), 0u);
    EXPECT_EQ(ConfigError({{"type", 3}}).rfind("compression.uplink.type: must be a string", 0), 0u);
    EXPECT_EQ(ConfigError(json("none")).rfind("compression.uplink: ", 0), 0u);
    EXPECT_EQ(ConfigError(json::array()).rfind("compression.uplink: ", 0), 0u);
}

} // namespace
} // namespace fedran
