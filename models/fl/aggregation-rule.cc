#include "models/fl/aggregation-rule.h"

#include <stdexcept>

namespace fedran
{

namespace
{

std::unique_ptr<AggregationRule>
MakeCodecRule(const Codec& uplink)
{
    return uplink.MakeAggregator();
}

std::unique_ptr<AggregationRule>
MakeWeightedMeanRule(const Codec&)
{
    return MakeWeightedMeanAggregator();
}

std::unique_ptr<AggregationRule>
MakeMajorityVoteRule(const Codec&)
{
    return MakeMajorityVoteAggregator();
}

struct RuleEntry
{
    std::string_view name;
    std::unique_ptr<AggregationRule> (*make)(const Codec&);
};

// The registry: one line per rule.
constexpr RuleEntry kAggregationRules[] = {
    {"codec", MakeCodecRule},
    {"weighted_mean", MakeWeightedMeanRule},
    {"majority_vote", MakeMajorityVoteRule},
};

} // namespace

std::unique_ptr<AggregationRule>
MakeAggregationRule(std::string_view name, const Codec& uplink)
{
    for (const RuleEntry& entry : kAggregationRules)
    {
        if (entry.name == name)
        {
            return entry.make(uplink);
        }
    }
    throw std::invalid_argument("unknown aggregation rule \"" + std::string(name) + "\"");
}

std::vector<std::string>
AggregationRuleNames()
{
    std::vector<std::string> names;
    for (const RuleEntry& entry : kAggregationRules)
    {
        names.emplace_back(entry.name);
    }
    return names;
}

} // namespace fedran
