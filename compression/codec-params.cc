#include "compression/internal/codec-params.h"

#include <cmath>
#include <limits>

namespace fedran::internal
{

std::optional<double>
TakeNumber(CodecArgs& args, const std::string& key)
{
    const nlohmann::json* value = args.Take(key);
    if (value == nullptr)
    {
        return std::nullopt;
    }
    // nlohmann keeps booleans apart from numbers, so true is rejected here.
    if (!value->is_number())
    {
        args.Fail(key, std::string("must be a number, got ") + value->type_name());
    }
    const double number = value->get<double>();
    if (!std::isfinite(number))
    {
        args.Fail(key, "must be finite");
    }
    return number;
}

std::optional<uint32_t>
TakeCount(CodecArgs& args, const std::string& key)
{
    const nlohmann::json* value = args.Take(key);
    if (value == nullptr)
    {
        return std::nullopt;
    }
    // Parsed text gives unsigned for non-negative integers; json built in C++ from an int is
    // signed, so accept both.
    if (value->is_number_integer() && (value->is_number_unsigned() || value->get<int64_t>() >= 0))
    {
        const auto number = value->get<uint64_t>();
        if (number <= std::numeric_limits<uint32_t>::max())
        {
            return static_cast<uint32_t>(number);
        }
    }
    args.Fail(key, "must be an integer in [0, 4294967295], got " + value->dump());
}

std::optional<bool>
TakeBool(CodecArgs& args, const std::string& key)
{
    const nlohmann::json* value = args.Take(key);
    if (value == nullptr)
    {
        return std::nullopt;
    }
    if (!value->is_boolean())
    {
        args.Fail(key, "must be true or false, got " + value->dump());
    }
    return value->get<bool>();
}

std::optional<std::string>
TakeString(CodecArgs& args, const std::string& key)
{
    const nlohmann::json* value = args.Take(key);
    if (value == nullptr)
    {
        return std::nullopt;
    }
    if (!value->is_string())
    {
        args.Fail(key, std::string("must be a string, got ") + value->type_name());
    }
    return value->get<std::string>();
}

} // namespace fedran::internal
