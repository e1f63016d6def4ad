// "--set a.b.0.c=VALUE": command-line changes to a scenario before it is validated, so that
// sweeps don't need one file per point.

#include "simulator/scenario/json-text.h"
#include "simulator/scenario/scenario.h"

#include <string>
#include <vector>

namespace fedran
{

namespace
{

using nlohmann::json;

std::vector<std::string>
SplitPath(const std::string& path, const std::string& assignment)
{
    std::vector<std::string> segments;
    size_t start = 0;
    while (true)
    {
        const size_t dot = path.find('.', start);
        segments.push_back(path.substr(start, dot - start));
        if (segments.back().empty())
        {
            throw ScenarioError("--set " + assignment + ": empty key in path \"" + path + "\"");
        }
        if (dot == std::string::npos)
        {
            return segments;
        }
        start = dot + 1;
    }
}

bool
IsIndex(const std::string& segment)
{
    // No leading zeros beyond "0" and no more than 9 digits: "007" is a key, not an index,
    // and the bound keeps the conversion below from overflowing.
    if (segment.empty() || segment.size() > 9 || (segment.size() > 1 && segment[0] == '0'))
    {
        return false;
    }
    for (char c : segment)
    {
        if (c < '0' || c > '9')
        {
            return false;
        }
    }
    return true;
}

std::string
TypeName(const json& value)
{
    switch (value.type())
    {
        case json::value_t::object:
            return "an object";
        case json::value_t::array:
            return "an array";
        case json::value_t::string:
            return "a string";
        case json::value_t::boolean:
            return "a boolean";
        case json::value_t::null:
            return "null";
        default:
            return "a number";
    }
}

/// The value text as JSON when it parses, else as a plain string ("10Mbps").
json
ParseValue(const std::string& text, const std::string& assignment)
{
    if (const std::optional<size_t> deep = FindTooDeep(text))
    {
        throw ScenarioError("--set " + assignment.substr(0, 80) + ": value nested deeper than " +
                            std::to_string(kMaxScenarioDepth) + " levels (at byte " +
                            std::to_string(*deep) + " of the value)");
    }
    json value = json::parse(text, nullptr, false);
    if (value.is_discarded())
    {
        return json(text);
    }
    return value;
}

/// The element `segment` names in `parent`, creating it where the contract allows.
json&
Step(json& parent, const std::string& segment, const std::string& path)
{
    if (parent.is_array())
    {
        if (!IsIndex(segment))
        {
            throw ScenarioError(path + ": \"" + segment + "\" is not an array index");
        }
        const size_t index = std::stoul(segment);
        if (index > parent.size())
        {
            const std::string size = std::to_string(parent.size());
            throw ScenarioError(path + ": index " + segment + " is out of range (the array has " +
                                size + (parent.size() == 1 ? " element" : " elements") +
                                "; index " + size + " appends)");
        }
        if (index == parent.size())
        {
            parent.push_back(nullptr);
        }
        return parent[index];
    }
    if (IsIndex(segment))
    {
        // Numeric segments are indices only: a stray one is more likely a path mistake than
        // a numeric key (the scenario has none).
        throw ScenarioError(path + ": index " + segment + " used on " + TypeName(parent) +
                            ", not an array");
    }
    if (parent.is_null())
    {
        parent = json::object();
    }
    if (!parent.is_object())
    {
        throw ScenarioError(path + ": key \"" + segment + "\" used on " + TypeName(parent) +
                            ", not an object");
    }
    return parent[segment];
}

} // namespace

void
ApplyOverride(nlohmann::json& scenario, const std::string& assignment)
{
    const size_t equals = assignment.find('=');
    if (equals == std::string::npos)
    {
        throw ScenarioError("--set " + assignment + ": expected PATH=VALUE (no '=')");
    }
    const std::string path = assignment.substr(0, equals);
    if (path.empty())
    {
        throw ScenarioError("--set " + assignment + ": empty path before '='");
    }
    const std::vector<std::string> segments = SplitPath(path, assignment);
    json value = ParseValue(assignment.substr(equals + 1), assignment);

    // Work on a copy so that a failed override leaves the scenario untouched.
    json result = scenario;
    json* node = &result;
    std::string walked;
    for (const std::string& segment : segments)
    {
        walked += (walked.empty() ? "" : ".") + segment;
        node = &Step(*node, segment, walked);
    }
    *node = std::move(value);
    scenario = std::move(result);
}

} // namespace fedran
