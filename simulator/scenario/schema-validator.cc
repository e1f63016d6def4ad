// Walks a scenario along the schema (objects, arrays, $ref, defaults), collecting every
// problem so that a user fixes a file in one pass instead of one error per run. Checks of
// single values are in schema-scalar-checks.cc.

#include "simulator/scenario/schema-validator.h"

#include "simulator/scenario/key-suggestion.h"
#include "simulator/scenario/scenario.h"
#include "simulator/scenario/schema-messages.h"

namespace fedran
{

namespace
{

using nlohmann::json;
using schema::Child;
using schema::Dump;
using schema::Line;

} // namespace

SchemaValidator::SchemaValidator(const nlohmann::json& schema)
    : m_root(schema)
{
}

std::vector<std::string>
SchemaValidator::Validate(nlohmann::json& instance) const
{
    Errors errors;
    try
    {
        ValidateNode(instance, m_root, "", errors);
    }
    catch (const json::exception& e)
    {
        // Only a schema with unexpected keyword values can get here; still a ScenarioError so
        // that callers have one exception type to handle.
        throw ScenarioError(std::string("scenario schema: ") + e.what());
    }
    return errors;
}

const nlohmann::json*
SchemaValidator::Keyword(const nlohmann::json& schema, const char* name) const
{
    const json* current = &schema;
    // The depth bound turns a $ref cycle in a broken schema into an error, not a hang.
    for (int depth = 0; depth < 16; ++depth)
    {
        if (!current->is_object())
        {
            return nullptr;
        }
        auto it = current->find(name);
        if (it != current->end())
        {
            return &*it;
        }
        auto ref = current->find("$ref");
        if (ref == current->end())
        {
            return nullptr;
        }
        const std::string target = ref->is_string() ? ref->get<std::string>() : "";
        if (target.empty() || target[0] != '#')
        {
            throw ScenarioError("scenario schema: unsupported $ref " + Dump(*ref));
        }
        try
        {
            current = &m_root.at(json::json_pointer(target.substr(1)));
        }
        catch (const json::exception&)
        {
            throw ScenarioError("scenario schema: unresolvable $ref \"" + target + "\"");
        }
    }
    throw ScenarioError("scenario schema: $ref chain too long (a cycle?)");
}

void
SchemaValidator::ValidateNode(nlohmann::json& node,
                              const nlohmann::json& schema,
                              const std::string& path,
                              Errors& errors) const
{
    if (!CheckType(node, schema, path, errors))
    {
        return;
    }
    CheckEnum(node, schema, path, errors);
    if (Keyword(schema, "oneOf") != nullptr)
    {
        CheckOneOf(node, schema, path, errors);
    }
    else if (node.is_number())
    {
        CheckNumber(node, schema, path, errors);
    }
    else if (node.is_string())
    {
        CheckString(node, schema, path, errors);
    }
    else if (node.is_object())
    {
        CheckObject(node, schema, path, errors);
    }
    else if (node.is_array())
    {
        CheckArray(node, schema, path, errors);
    }
}

void
SchemaValidator::CheckObject(nlohmann::json& node,
                             const nlohmann::json& schema,
                             const std::string& path,
                             Errors& errors) const
{
    static const json kNoProperties = json::object();
    const json* found = Keyword(schema, "properties");
    const json& properties = found != nullptr ? *found : kNoProperties;
    const json* additional = Keyword(schema, "additionalProperties");
    const bool closed = additional != nullptr && *additional == false;

    for (auto& [key, value] : node.items())
    {
        auto property = properties.find(key);
        if (property != properties.end())
        {
            ValidateNode(value, *property, Child(path, key), errors);
            continue;
        }
        if (!closed)
        {
            continue;
        }
        std::vector<std::string> known;
        for (const auto& [name, unused] : properties.items())
        {
            known.push_back(name);
        }
        const std::string nearest = NearestKey(key, known);
        std::string message = "unknown key; ";
        if (!nearest.empty())
        {
            message += "did you mean \"" + nearest + "\"?";
        }
        else
        {
            message += "allowed keys:";
            for (size_t i = 0; i < known.size(); ++i)
            {
                message += (i == 0 ? " " : ", ") + known[i];
            }
        }
        errors.push_back(Line(Child(path, key), message));
    }

    if (const json* required = Keyword(schema, "required"))
    {
        for (const json& key : *required)
        {
            if (!node.contains(key.get<std::string>()))
            {
                errors.push_back(Line(Child(path, key.get<std::string>()), "missing required key"));
            }
        }
    }

    // Defaults last: they are validated like given values, which also fills nested defaults.
    for (const auto& [key, propertySchema] : properties.items())
    {
        if (node.contains(key))
        {
            continue;
        }
        if (const json* fallback = Keyword(propertySchema, "default"))
        {
            node[key] = *fallback;
        }
        else
        {
            const json* type = Keyword(propertySchema, "type");
            const json* required = Keyword(propertySchema, "required");
            // An object that needs keys of its own can't be made up; "required" reports it.
            if (type == nullptr || *type != "object" || (required != nullptr && !required->empty()))
            {
                continue;
            }
            node[key] = json::object();
        }
        ValidateNode(node[key], propertySchema, Child(path, key), errors);
    }
}

void
SchemaValidator::CheckOneOf(nlohmann::json& node,
                            const nlohmann::json& schema,
                            const std::string& path,
                            Errors& errors) const
{
    const json* discriminator = Keyword(schema, "discriminator");
    if (discriminator == nullptr || !discriminator->contains("propertyName"))
    {
        throw ScenarioError("scenario schema: oneOf at " + (path.empty() ? "(root)" : path) +
                            " needs a discriminator");
    }
    if (!node.is_object())
    {
        errors.push_back(Line(path, "expected object, got " + schema::Describe(node)));
        return;
    }
    const std::string key = discriminator->at("propertyName").get<std::string>();
    std::vector<std::pair<json, const json*>> branches; // discriminating value, branch
    const json* fallback = nullptr;
    for (const json& branch : *Keyword(schema, "oneOf"))
    {
        const json* properties = Keyword(branch, "properties");
        const json* property =
            properties != nullptr && properties->contains(key) ? &properties->at(key) : nullptr;
        const json* value = property != nullptr ? Keyword(*property, "const") : nullptr;
        if (value == nullptr)
        {
            throw ScenarioError("scenario schema: a oneOf branch at " + path + " has no const \"" +
                                key + "\"");
        }
        branches.emplace_back(*value, &branch);
        if (Keyword(*property, "default") != nullptr)
        {
            fallback = value;
        }
    }
    if (!node.contains(key))
    {
        if (fallback == nullptr)
        {
            errors.push_back(Line(Child(path, key), "missing required key"));
            return;
        }
        node[key] = *fallback;
    }
    std::string list;
    std::vector<std::string> names;
    for (const auto& [value, branch] : branches)
    {
        if (value == node[key])
        {
            ValidateNode(node, *branch, path, errors);
            return;
        }
        list += (list.empty() ? "" : ", ") + Dump(value);
        names.push_back(value.is_string() ? value.get<std::string>() : Dump(value));
    }
    std::string message = Dump(node[key]) + " is not one of " + list;
    if (node[key].is_string())
    {
        const std::string nearest = NearestKey(node[key].get<std::string>(), names);
        message += nearest.empty() ? "" : "; did you mean \"" + nearest + "\"?";
    }
    errors.push_back(Line(Child(path, key), message));
}

void
SchemaValidator::CheckArray(nlohmann::json& node,
                            const nlohmann::json& schema,
                            const std::string& path,
                            Errors& errors) const
{
    const json* minItems = Keyword(schema, "minItems");
    if (minItems != nullptr && node.size() < minItems->get<size_t>())
    {
        errors.push_back(Line(path,
                              "has " + std::to_string(node.size()) + " items; at least " +
                                  Dump(*minItems) + " required"));
    }
    if (const json* items = Keyword(schema, "items"))
    {
        for (size_t i = 0; i < node.size(); ++i)
        {
            ValidateNode(node[i], *items, Child(path, std::to_string(i)), errors);
        }
    }
}

} // namespace fedran
