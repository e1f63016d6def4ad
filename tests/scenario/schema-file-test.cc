// scenarios/scenario.schema.json itself: valid JSON, compiled in unchanged, every key
// documented, and docs/scenario-keys.md and the README listing every key.

#include "compression/codec-spec.h"
#include "scenario-test-util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace fedran
{
namespace
{

using nlohmann::json;

std::string
ReadText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(in.good()) << path;
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

json
SchemaFromFile()
{
    return json::parse(ReadText(test::SourcePath("scenarios/scenario.schema.json")));
}

/// Calls visit(path, schema) for every subschema below properties, items and $defs, with
/// paths written as in docs/scenario-keys.md ("clients.groups[].name").
template<typename Visit>
void
Walk(const json& schema, const std::string& path, Visit visit)
{
    if (auto properties = schema.find("properties"); properties != schema.end())
    {
        for (const auto& [key, child] : properties->items())
        {
            const std::string childPath = path.empty() ? key : path + "." + key;
            visit(childPath, child);
            Walk(child, childPath, visit);
        }
    }
    if (auto items = schema.find("items"); items != schema.end())
    {
        visit(path + "[]", *items);
        Walk(*items, path + "[]", visit);
    }
    if (auto defs = schema.find("$defs"); defs != schema.end())
    {
        for (const auto& [key, child] : defs->items())
        {
            visit("$defs." + key, child);
            Walk(child, "$defs." + key, visit);
        }
    }
}

TEST(SchemaFile, IsValidJsonAndCompiledInUnchanged)
{
    json schema;
    ASSERT_NO_THROW(schema = SchemaFromFile());
    EXPECT_EQ(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
    EXPECT_EQ(ScenarioSchema(), schema);
}

TEST(SchemaFile, EveryPropertyHasADescription)
{
    const json schema = SchemaFromFile();
    ASSERT_TRUE(schema.contains("description"));
    size_t visited = 0;
    Walk(schema, "", [&](const std::string& path, const json& child) {
        ++visited;
        ASSERT_TRUE(child.is_object()) << path;
        auto description = child.find("description");
        ASSERT_NE(description, child.end()) << path << " has no description";
        EXPECT_TRUE(description->is_string() && description->get<std::string>().size() > 10)
            << path;
    });
    EXPECT_GE(visited, 40u);
}

TEST(SchemaFile, ObjectsAreClosedExceptCodecRuleAndSelectionSpecs)
{
    const json schema = SchemaFromFile();
    EXPECT_EQ(schema["additionalProperties"], false);
    Walk(schema, "", [&](const std::string& path, const json& child) {
        // "type" is a name or a list of names (samples_per_second: number or object).
        const json type = child.contains("type") ? child["type"] : json();
        const bool object =
            type == "object" ||
            (type.is_array() && std::find(type.begin(), type.end(), "object") != type.end());
        if (!object)
        {
            return;
        }
        ASSERT_TRUE(child.contains("additionalProperties")) << path;
        // Codec specs, server.robust and server.selection: each codec, rule and selection
        // policy checks its own keys.
        if (path == "$defs.codec" || path == "server.robust" || path == "server.selection")
        {
            EXPECT_EQ(child["additionalProperties"], true);
            EXPECT_NE(child["description"].get<std::string>().find("additional properties"),
                      std::string::npos);
        }
        else
        {
            EXPECT_EQ(child["additionalProperties"], false) << path;
        }
    });
}

TEST(SchemaFile, KeyDocumentationListsEveryKey)
{
    const json schema = SchemaFromFile();
    for (const char* file : {"docs/scenario-keys.md"})
    {
        const std::string doc = ReadText(test::SourcePath(file));
        Walk(schema, "", [&](const std::string& path, const json&) {
            if (path.rfind("$defs", 0) == 0)
            {
                return;
            }
            EXPECT_NE(doc.find("| `" + path + "` |"), std::string::npos)
                << path << " is missing from " << file << ": run analysis/schema_doc.py --write";
        });
    }
}

} // namespace
} // namespace fedran
