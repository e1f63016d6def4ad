// Data rates and times written as strings in scenario files ("50Mbps", "5ms").

#include "models/link-config/units.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace fedran
{

namespace
{

bool
IsDigit(char c)
{
    return c >= '0' && c <= '9';
}

bool
IsSpace(char c)
{
    return c == ' ' || c == '\t';
}

/// "  1.5 Mbps " split into its digits and unit; only the number's syntax is checked here.
struct Quantity
{
    std::string intDigits;
    std::string fracDigits;
    std::string unit;
};

Quantity
SplitQuantity(std::string_view text)
{
    size_t begin = 0;
    size_t end = text.size();
    while (begin < end && IsSpace(text[begin]))
    {
        ++begin;
    }
    while (end > begin && IsSpace(text[end - 1]))
    {
        --end;
    }
    if (begin == end)
    {
        throw std::invalid_argument("empty");
    }
    size_t i = begin;
    if (text[i] == '-' && i + 1 < end && (IsDigit(text[i + 1]) || text[i + 1] == '.'))
    {
        throw std::invalid_argument("negative");
    }
    Quantity q;
    while (i < end && IsDigit(text[i]))
    {
        q.intDigits += text[i++];
    }
    if (i < end && text[i] == '.')
    {
        ++i;
        while (i < end && IsDigit(text[i]))
        {
            q.fracDigits += text[i++];
        }
    }
    if (q.intDigits.empty() && q.fracDigits.empty())
    {
        throw std::invalid_argument("no number");
    }
    while (i < end && IsSpace(text[i]))
    {
        ++i;
    }
    q.unit = std::string(text.substr(i, end - i));
    return q;
}

struct RateUnit
{
    std::string_view name;
    size_t decimalExponent; ///< SI, 1000-based like ns-3 DataRate
};

constexpr std::array<RateUnit, 11> kRateUnits{{
    {"", 0},
    {"bps", 0},
    {"b/s", 0},
    {"kbps", 3},
    {"Kbps", 3},
    {"kb/s", 3},
    {"Kb/s", 3},
    {"Mbps", 6},
    {"Mb/s", 6},
    {"Gbps", 9},
    {"Gb/s", 9},
}};

} // namespace

uint64_t
ParseDataRate(const std::string& text)
{
    Quantity q = SplitQuantity(text);
    const RateUnit* unit = nullptr;
    for (const RateUnit& candidate : kRateUnits)
    {
        if (candidate.name == q.unit)
        {
            unit = &candidate;
        }
    }
    if (unit == nullptr)
    {
        // ns-3 also knows byte units ("MBps"), but one wrong letter case would silently give
        // a rate 8 times off, so they are refused rather than guessed.
        if (q.unit.find('B') != std::string::npos)
        {
            throw std::invalid_argument("unit \"" + q.unit +
                                        "\" is in bytes; use bits: bps, kbps, Mbps or Gbps");
        }
        throw std::invalid_argument("unknown unit \"" + q.unit + "\"; use bps, kbps, Mbps or Gbps");
    }

    // Exact decimal arithmetic: "1.1Mbps" must be 1100000 bits/s, which doubles can't promise
    // for every input. Shift the fraction's first digits into the integer, round on the next.
    std::string digits = q.intDigits;
    std::string fraction = q.fracDigits;
    fraction.resize(std::max(fraction.size(), unit->decimalExponent + 1), '0');
    digits += fraction.substr(0, unit->decimalExponent);
    const bool roundUp = fraction[unit->decimalExponent] >= '5';

    uint64_t bps = 0;
    for (char digit : digits)
    {
        if (__builtin_mul_overflow(bps, uint64_t{10}, &bps) ||
            __builtin_add_overflow(bps, static_cast<uint64_t>(digit - '0'), &bps))
        {
            throw std::invalid_argument("too large");
        }
    }
    if (roundUp && __builtin_add_overflow(bps, uint64_t{1}, &bps))
    {
        throw std::invalid_argument("too large");
    }
    if (bps == 0)
    {
        throw std::invalid_argument("zero; a link needs a positive rate");
    }
    return bps;
}

double
ParseTime(const std::string& text)
{
    Quantity q = SplitQuantity(text);
    // Sub-second units divide rather than multiply by 1e-3 etc., so that "5ms" is the double
    // nearest to 0.005.
    double divisor = 0.0;
    double factor = 1.0;
    if (q.unit.empty() || q.unit == "s")
    {
        divisor = 1.0;
    }
    else if (q.unit == "ms")
    {
        divisor = 1e3;
    }
    else if (q.unit == "us")
    {
        divisor = 1e6;
    }
    else if (q.unit == "ns")
    {
        divisor = 1e9;
    }
    else if (q.unit == "min")
    {
        divisor = 1.0;
        factor = 60.0;
    }
    else
    {
        throw std::invalid_argument("unknown unit \"" + q.unit + "\"; use s, ms, us, ns or min");
    }

    const std::string number = (q.intDigits.empty() ? "0" : q.intDigits) + "." +
                               (q.fracDigits.empty() ? "0" : q.fracDigits);
    double value = 0.0;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec != std::errc() || end != number.data() + number.size())
    {
        throw std::invalid_argument("too large");
    }
    value = value * factor / divisor;
    if (!std::isfinite(value))
    {
        throw std::invalid_argument("too large");
    }
    return value;
}

} // namespace fedran
