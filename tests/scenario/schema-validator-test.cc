// SchemaValidator on small schemas: each keyword, default filling and error collection.

#include "simulator/scenario/key-suggestion.h"
#include "simulator/scenario/schema-validator.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <limits>
#include <string>
#include <vector>

namespace fedran
{
namespace
{

using nlohmann::json;

const json kSchema = json::parse(R"({
    "type": "object",
    "additionalProperties": false,
    "required": ["count"],
    "properties": {
        "count": {"type": "integer", "minimum": 1, "maximum": 10},
        "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1,
                  "default": 0.5},
        "mode": {"type": "string", "enum": ["fast", "slow"], "default": "fast"},
        "rate": {"type": "string", "format": "data-rate", "default": "1Mbps"},
        "delay": {"type": "string", "format": "time"},
        "label": {"type": "string", "minLength": 1},
        "nested": {
            "type": "object",
            "additionalProperties": false,
            "properties": {"depth": {"type": "integer", "default": 3}}
        },
        "needy": {
            "type": "object",
            "required": ["x"],
            "properties": {"x": {"type": "integer"}}
        },
        "list": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/item"}},
        "open": {"$ref": "#/$defs/item", "default": {"name": "d"}}
    },
    "$defs": {
        "item": {
            "type": "object",
            "required": ["name"],
            "properties": {"name": {"type": "string"}, "size": {"type": "integer", "default": 1}}
        }
    }
})");

std::vector<std::string>
Check(json& instance)
{
    return SchemaValidator(kSchema).Validate(instance);
}

std::string
OnlyError(json instance)
{
    const std::vector<std::string> errors = Check(instance);
    EXPECT_EQ(errors.size(), 1u) << ::testing::PrintToString(errors);
    return errors.empty() ? "" : errors.front();
}

TEST(SchemaValidator, FillsDefaultsRecursively)
{
    json instance = {{"count", 2}};
    EXPECT_TRUE(Check(instance).empty());
    EXPECT_EQ(instance["ratio"], 0.5);
    EXPECT_EQ(instance["mode"], "fast");
    EXPECT_EQ(instance["rate"], "1Mbps");
    // An absent object without required keys is created so its defaults appear...
    EXPECT_EQ(instance["nested"], json({{"depth", 3}}));
    // ...but one with required keys is not made up.
    EXPECT_FALSE(instance.contains("needy"));
    // A default through $ref gets the referenced schema's defaults too.
    EXPECT_EQ(instance["open"], json({{"name", "d"}, {"size", 1}}));
    EXPECT_FALSE(instance.contains("delay"));
}

TEST(SchemaValidator, KeepsGivenValues)
{
    json instance = {{"count", 2}, {"mode", "slow"}, {"nested", {{"depth", 7}}}};
    EXPECT_TRUE(Check(instance).empty());
    EXPECT_EQ(instance["mode"], "slow");
    EXPECT_EQ(instance["nested"]["depth"], 7);
}

TEST(SchemaValidator, IntegerAcceptsIntegralFloatsOnly)
{
    json integral = {{"count", 3.0}};
    EXPECT_TRUE(Check(integral).empty());
    EXPECT_TRUE(integral["count"].is_number_integer()); // rewritten for typed reads
    EXPECT_EQ(OnlyError({{"count", 2.5}}), "count: expected integer, got number 2.5");
    EXPECT_EQ(OnlyError({{"count", "3"}}), "count: expected integer, got string \"3\"");
    EXPECT_EQ(OnlyError({{"count", true}}), "count: expected integer, got boolean true");
    EXPECT_NE(OnlyError({{"count", 1e30}}).find("count: expected integer"), std::string::npos);
}

TEST(SchemaValidator, NumberBounds)
{
    EXPECT_EQ(OnlyError({{"count", 0}}), "count: 0 is less than the minimum 1");
    EXPECT_EQ(OnlyError({{"count", 11}}), "count: 11 is greater than the maximum 10");
    EXPECT_EQ(OnlyError({{"count", 1}, {"ratio", 0}}), "ratio: 0 must be greater than 0");
    EXPECT_EQ(OnlyError({{"count", 1}, {"ratio", 1}}), "ratio: 1 must be less than 1");
    EXPECT_EQ(OnlyError({{"count", 1}, {"ratio", -0.5}}), "ratio: -0.5 must be greater than 0");
    json ok = {{"count", 10}, {"ratio", 0.999}};
    EXPECT_TRUE(Check(ok).empty());
}

TEST(SchemaValidator, NonFiniteNumbersAreRejected)
{
    json instance = {{"count", 1}, {"ratio", std::numeric_limits<double>::infinity()}};
    const std::vector<std::string> errors = Check(instance);
    ASSERT_FALSE(errors.empty());
    EXPECT_EQ(errors.front(), "ratio: is not a finite number");
}

TEST(SchemaValidator, EnumSuggestsNearValue)
{
    EXPECT_EQ(OnlyError({{"count", 1}, {"mode", "slwo"}}),
              "mode: \"slwo\" is not one of \"fast\", \"slow\"; did you mean \"slow\"?");
    EXPECT_EQ(OnlyError({{"count", 1}, {"mode", "medium"}}),
              "mode: \"medium\" is not one of \"fast\", \"slow\"");
}

TEST(SchemaValidator, Formats)
{
    EXPECT_EQ(OnlyError({{"count", 1}, {"rate", "-5Mbps"}}),
              "rate: \"-5Mbps\" is not a data rate (negative)");
    EXPECT_EQ(OnlyError({{"count", 1}, {"delay", "-1s"}}),
              "delay: \"-1s\" is not a time (negative)");
    EXPECT_EQ(OnlyError({{"count", 1}, {"label", ""}}), "label: must not be empty");
}

TEST(SchemaValidator, UnknownKeys)
{
    EXPECT_EQ(OnlyError({{"count", 1}, {"cuont", 1}}),
              "cuont: unknown key; did you mean \"count\"?");
    EXPECT_EQ(OnlyError({{"count", 1}, {"nested", {{"dep", 1}}}}),
              "nested.dep: unknown key; did you mean \"depth\"?");
    EXPECT_EQ(OnlyError({{"count", 1}, {"nested", {{"zzz", 1}}}}),
              "nested.zzz: unknown key; allowed keys: depth");
    EXPECT_EQ(OnlyError({{"count", 1}, {"zzz", 1}}),
              "zzz: unknown key; allowed keys: count, delay, label, list, mode, needy, nested, "
              "open, rate, ratio");
    // Without additionalProperties: false, extra keys pass (codec specs rely on this).
    json open = {{"count", 1}, {"open", {{"name", "x"}, {"level", 3}}}};
    EXPECT_TRUE(Check(open).empty());
}

TEST(SchemaValidator, RequiredAndArrays)
{
    EXPECT_EQ(OnlyError(json::object()), "count: missing required key");
    EXPECT_EQ(OnlyError({{"count", 1}, {"needy", json::object()}}),
              "needy.x: missing required key");
    EXPECT_EQ(OnlyError({{"count", 1}, {"list", json::array()}}),
              "list: has 0 items; at least 1 required");
    EXPECT_EQ(OnlyError({{"count", 1}, {"list", {{{"name", "a"}}, {{"size", 2}}}}}),
              "list.1.name: missing required key");
    json filled = {{"count", 1}, {"list", {{{"name", "a"}}}}};
    EXPECT_TRUE(Check(filled).empty());
    EXPECT_EQ(filled["list"][0]["size"], 1);
}

TEST(SchemaValidator, CollectsEveryError)
{
    json instance = {{"count", 0}, {"mode", 3}, {"cuont", 1}, {"list", {{{"size", "x"}}}}};
    const std::vector<std::string> errors = Check(instance);
    EXPECT_EQ(errors.size(), 5u) << ::testing::PrintToString(errors);
}

TEST(SchemaValidator, WrongShapesAnywhereGiveMessagesNotExceptions)
{
    const json shapes[] = {nullptr, 1, 2.5, "text", true, json::array(), json::array({1, 2})};
    for (const json& shape : shapes)
    {
        json root = shape;
        EXPECT_EQ(Check(root).size(), 1u) << shape.dump();
        for (const char* key : {"count", "ratio", "mode", "nested", "list", "open", "needy"})
        {
            json instance = {{"count", 1}, {key, shape}};
            EXPECT_NO_THROW(Check(instance)) << key << " = " << shape.dump();
        }
        json item = {{"count", 1}, {"list", json::array({shape})}};
        EXPECT_EQ(Check(item).size(), 1u) << shape.dump();
    }
    json root = json::array();
    EXPECT_EQ(Check(root).front(), "(root): expected object, got array");
}

TEST(KeySuggestion, OnlyNearMisses)
{
    const std::vector<std::string> keys =
        {"deadline_s", "clients_per_round", "aggregation", "lr", "rate", "delay"};
    EXPECT_EQ(NearestKey("deadline", keys), "deadline_s");
    EXPECT_EQ(NearestKey("clients_per_rounds", keys), "clients_per_round");
    EXPECT_EQ(NearestKey("agregation", keys), "aggregation");
    EXPECT_EQ(NearestKey("raet", keys), "rate");
    EXPECT_EQ(NearestKey("LR", keys), "lr");
    EXPECT_EQ(NearestKey("x", keys), "");
    EXPECT_EQ(NearestKey("bandwidth", keys), "");
    EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
    EXPECT_EQ(EditDistance("ab", "ba"), 1u);
    EXPECT_EQ(EditDistance("", "abc"), 3u);
}

} // namespace
} // namespace fedran
