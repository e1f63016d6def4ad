// The validator's checks of a single value: type, enum, number bounds, string length and
// format. Objects, arrays and defaults are in schema-validator.cc.

#include "simulator/scenario/key-suggestion.h"
#include "simulator/scenario/scenario.h"
#include "simulator/scenario/schema-messages.h"
#include "simulator/scenario/schema-validator.h"

#include <cmath>
#include <stdexcept>

namespace fedran
{

namespace
{

/// Why `value` is not a plain label (a path separator, "..", a control character), or "".
std::string
LabelProblem(const std::string& value)
{
    if (value.find('/') != std::string::npos || value.find('\\') != std::string::npos)
    {
        return "it contains a path separator";
    }
    if (value.find("..") != std::string::npos)
    {
        return "it contains \"..\"";
    }
    for (unsigned char c : value)
    {
        if (c < 0x20 || c == 0x7f)
        {
            return "it contains a control character";
        }
    }
    return "";
}

} // namespace

namespace
{

using nlohmann::json;
using schema::Describe;
using schema::Dump;
using schema::Line;

/// Whether `value` is an instance of the JSON Schema type `type`; an integral float checked
/// as "integer" is rewritten as an integer so that typed reads later see one.
bool
HasType(json& value, const std::string& type)
{
    if (type == "integer")
    {
        if (value.is_number_integer())
        {
            return true;
        }
        if (!value.is_number_float())
        {
            return false;
        }
        const double number = value.get<double>();
        if (!std::isfinite(number) || std::trunc(number) != number)
        {
            return false;
        }
        // 2^63 and 2^64 are exact doubles; anything outside stays a float and fails below.
        if (number >= -9223372036854775808.0 && number < 9223372036854775808.0)
        {
            value = static_cast<int64_t>(number);
            return true;
        }
        if (number >= 0 && number < 18446744073709551616.0)
        {
            value = static_cast<uint64_t>(number);
            return true;
        }
        return false;
    }
    if (type == "number")
    {
        return value.is_number();
    }
    if (type == "string")
    {
        return value.is_string();
    }
    if (type == "object")
    {
        return value.is_object();
    }
    if (type == "array")
    {
        return value.is_array();
    }
    if (type == "boolean")
    {
        return value.is_boolean();
    }
    return type == "null" && value.is_null();
}

size_t
CodePoints(const std::string& text)
{
    size_t count = 0;
    for (char c : text)
    {
        count += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
    }
    return count;
}

} // namespace

bool
SchemaValidator::CheckType(nlohmann::json& node,
                           const nlohmann::json& schema,
                           const std::string& path,
                           Errors& errors) const
{
    const json* type = Keyword(schema, "type");
    if (type == nullptr)
    {
        return true;
    }
    const json types = type->is_array() ? *type : json::array({*type});
    std::string expected;
    for (const json& candidate : types)
    {
        if (HasType(node, candidate.get<std::string>()))
        {
            return true;
        }
        expected += (expected.empty() ? "" : " or ") + candidate.get<std::string>();
    }
    std::string message = "expected " + expected + ", got " + Describe(node);
    if (expected == "integer" && node.is_number_float() && std::isfinite(node.get<double>()) &&
        std::trunc(node.get<double>()) == node.get<double>())
    {
        message += " (out of the 64-bit integer range)";
    }
    errors.push_back(Line(path, message));
    return false;
}

void
SchemaValidator::CheckEnum(const nlohmann::json& node,
                           const nlohmann::json& schema,
                           const std::string& path,
                           Errors& errors) const
{
    if (const json* constant = Keyword(schema, "const"))
    {
        if (node != *constant)
        {
            errors.push_back(Line(path, Dump(node) + " must be " + Dump(*constant)));
        }
    }
    const json* allowed = Keyword(schema, "enum");
    if (allowed == nullptr)
    {
        return;
    }
    std::string list;
    std::vector<std::string> names;
    for (const json& value : *allowed)
    {
        if (value == node)
        {
            return;
        }
        list += (list.empty() ? "" : ", ") + Dump(value);
        if (value.is_string())
        {
            names.push_back(value.get<std::string>());
        }
    }
    std::string message = Dump(node) + " is not one of " + list;
    if (node.is_string())
    {
        const std::string nearest = NearestKey(node.get<std::string>(), names);
        message += nearest.empty() ? "" : "; did you mean \"" + nearest + "\"?";
    }
    errors.push_back(Line(path, message));
}

void
SchemaValidator::CheckNumber(const nlohmann::json& node,
                             const nlohmann::json& schema,
                             const std::string& path,
                             Errors& errors) const
{
    const double value = node.get<double>();
    const std::string text = Dump(node);
    if (!std::isfinite(value))
    {
        errors.push_back(Line(path, "is not a finite number"));
        return;
    }
    const json* bound = nullptr;
    if ((bound = Keyword(schema, "minimum")) && value < bound->get<double>())
    {
        errors.push_back(Line(path, text + " is less than the minimum " + Dump(*bound)));
    }
    if ((bound = Keyword(schema, "exclusiveMinimum")) && value <= bound->get<double>())
    {
        errors.push_back(Line(path, text + " must be greater than " + Dump(*bound)));
    }
    if ((bound = Keyword(schema, "maximum")) && value > bound->get<double>())
    {
        errors.push_back(Line(path, text + " is greater than the maximum " + Dump(*bound)));
    }
    if ((bound = Keyword(schema, "exclusiveMaximum")) && value >= bound->get<double>())
    {
        errors.push_back(Line(path, text + " must be less than " + Dump(*bound)));
    }
}

void
SchemaValidator::CheckString(const nlohmann::json& node,
                             const nlohmann::json& schema,
                             const std::string& path,
                             Errors& errors) const
{
    const std::string& value = node.get_ref<const std::string&>();
    const json* minLength = Keyword(schema, "minLength");
    if (minLength != nullptr && CodePoints(value) < minLength->get<size_t>())
    {
        errors.push_back(Line(path,
                              value.empty() ? "must not be empty"
                                            : Dump(node) + " is shorter than " + Dump(*minLength) +
                                                  " characters"));
    }
    const json* format = Keyword(schema, "format");
    const std::string name = format != nullptr ? format->get<std::string>() : "";
    if (name == "label")
    {
        // Names become folder names (results/<name>) and CSV cells: a name must not reach
        // outside its folder or carry terminal control sequences.
        const std::string why = LabelProblem(value);
        if (!why.empty())
        {
            errors.push_back(Line(path, Dump(node) + " is not a plain name (" + why + ")"));
        }
        return;
    }
    try
    {
        if (name == "data-rate")
        {
            ParseDataRate(value);
        }
        else if (name == "time")
        {
            ParseTime(value);
        }
    }
    catch (const std::invalid_argument& e)
    {
        const char* what = name == "time" ? "a time" : "a data rate";
        errors.push_back(Line(path, Dump(node) + " is not " + what + " (" + e.what() + ")"));
    }
}

} // namespace fedran
