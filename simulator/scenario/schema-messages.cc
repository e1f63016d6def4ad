// Path and value text of validation messages.

#include "simulator/scenario/schema-messages.h"

namespace fedran::schema
{

using nlohmann::json;

std::string
Child(const std::string& path, const std::string& key)
{
    return path.empty() ? key : path + "." + key;
}

std::string
Line(const std::string& path, const std::string& message)
{
    return (path.empty() ? std::string("(root)") : path) + ": " + message;
}

std::string
Dump(const json& value)
{
    return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string
Describe(const json& value)
{
    switch (value.type())
    {
        case json::value_t::string: {
            std::string text = Dump(value);
            return "string " + (text.size() > 60 ? text.substr(0, 56) + "...\"" : text);
        }
        case json::value_t::boolean:
            return "boolean " + Dump(value);
        case json::value_t::number_integer:
        case json::value_t::number_unsigned:
        case json::value_t::number_float:
            return "number " + Dump(value);
        case json::value_t::object:
            return "object";
        case json::value_t::array:
            return "array";
        default:
            return "null";
    }
}

} // namespace fedran::schema
