#include "simulator/scenario/json-text.h"

#include "models/link-config/scenario-error.h"

#include <algorithm>

namespace fedran
{

namespace
{

using nlohmann::json;

/// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1,
/// column 2: " prefix, which repeats what the file:line:column in front already says.
std::string
ParseReason(const std::string& what)
{
    const size_t start = what.find("parse error");
    const size_t colon = start == std::string::npos ? start : what.find(": ", start);
    return colon == std::string::npos ? what : what.substr(colon + 2);
}

/// The number nlohmann reports in "number overflow parsing '1e999'", or "".
std::string
OverflowingNumber(const std::string& what)
{
    const size_t open = what.find('\'');
    const size_t close = open == std::string::npos ? open : what.find('\'', open + 1);
    return close == std::string::npos ? "" : what.substr(open + 1, close - open - 1);
}

} // namespace

std::string
TextPositionOf(const std::string& text, size_t offset)
{
    offset = std::min(offset, text.size());
    const auto begin = text.begin();
    const auto end = begin + static_cast<std::ptrdiff_t>(offset);
    const size_t line = 1 + static_cast<size_t>(std::count(begin, end, '\n'));
    size_t lineStart = 0;
    const size_t newline = offset == 0 ? std::string::npos : text.rfind('\n', offset - 1);
    if (newline != std::string::npos)
    {
        lineStart = newline + 1;
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(offset - lineStart + 1);
}

std::optional<size_t>
FindTooDeep(const std::string& text, size_t limit)
{
    // Brackets inside strings do not count; anything else malformed is the parser's to find.
    size_t depth = 0;
    bool inString = false;
    bool escaped = false;
    for (size_t i = 0; i < text.size(); ++i)
    {
        const char c = text[i];
        if (inString)
        {
            if (escaped)
            {
                escaped = false;
            }
            else if (c == '\\')
            {
                escaped = true;
            }
            else if (c == '"')
            {
                inString = false;
            }
            continue;
        }
        switch (c)
        {
            case '"':
                inString = true;
                break;
            case '[':
            case '{':
                if (++depth > limit)
                {
                    return i;
                }
                break;
            case ']':
            case '}':
                depth -= depth > 0 ? 1 : 0;
                break;
            default:
                break;
        }
    }
    return std::nullopt;
}

json
ParseScenarioText(const std::string& text, const std::string& where)
{
    if (const std::optional<size_t> deep = FindTooDeep(text))
    {
        throw ScenarioError(where + ": " + TextPositionOf(text, *deep) +
                            ": arrays and objects nested deeper than " +
                            std::to_string(kMaxScenarioDepth) + " levels");
    }
    try
    {
        return json::parse(text);
    }
    catch (const json::parse_error& e)
    {
        // parse_error::byte counts the characters read: the offending one is at byte - 1.
        throw ScenarioError(where + ": " + TextPositionOf(text, e.byte == 0 ? 0 : e.byte - 1) +
                            ": " + ParseReason(e.what()));
    }
    catch (const json::out_of_range& e)
    {
        // 406: a number beyond the range of a double ("1e999").
        const std::string number = OverflowingNumber(e.what());
        const size_t at = number.empty() ? std::string::npos : text.find(number);
        const std::string position = at == std::string::npos ? "" : TextPositionOf(text, at) + ": ";
        throw ScenarioError(where + ": " + position + "number " + number +
                            " is out of range (larger than a double can hold)");
    }
}

} // namespace fedran
