#include "models/fl/rule-args.h"

#include <cmath>
#include <limits>

namespace fedran
{

RuleArgs::RuleArgs(const RuleSpec& spec, const RuleContext& context)
    : m_spec(spec)
    , m_context(context)
{
}

const nlohmann::json*
RuleArgs::Take(std::string_view key)
{
    m_taken.emplace(key);
    if (!m_spec.json.is_object())
    {
        return nullptr;
    }
    const auto it = m_spec.json.find(key);
    return it == m_spec.json.end() ? nullptr : &*it;
}

std::optional<double>
RuleArgs::TakeNumber(std::string_view key)
{
    const nlohmann::json* value = Take(key);
    if (value == nullptr)
    {
        return std::nullopt;
    }
    // nlohmann keeps booleans apart from numbers, so true is refused here.
    if (!value->is_number())
    {
        Fail(key, std::string("must be a number, got ") + value->type_name());
    }
    const double number = value->get<double>();
    if (!std::isfinite(number))
    {
        Fail(key, "must be finite");
    }
    return number;
}

std::optional<uint32_t>
RuleArgs::TakeCount(std::string_view key)
{
    const nlohmann::json* value = Take(key);
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
    Fail(key, "must be an integer in [0, 4294967295], got " + value->dump());
}

std::string
RuleArgs::PathOf(std::string_view key) const
{
    return m_spec.path + "." + std::string(key);
}

void
RuleArgs::Fail(std::string_view key, const std::string& message) const
{
    throw RuleConfigError(PathOf(key) + ": " + message);
}

std::unique_ptr<Aggregator>
RuleArgs::UplinkAggregator() const
{
    return m_context.uplink != nullptr ? m_context.uplink->MakeAggregator()
                                       : MakeWeightedMeanAggregator();
}

bool
RuleArgs::Took(std::string_view key) const
{
    return m_taken.find(key) != m_taken.end();
}

std::vector<std::string>
RuleArgs::Unread() const
{
    std::vector<std::string> unread;
    if (m_spec.json.is_object())
    {
        for (const auto& [key, value] : m_spec.json.items())
        {
            if (key != "type" && !Took(key))
            {
                unread.push_back(key);
            }
        }
    }
    return unread;
}

} // namespace fedran
