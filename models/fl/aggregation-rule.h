#ifndef FEDRAN_MODELS_FL_AGGREGATION_RULE_H
#define FEDRAN_MODELS_FL_AGGREGATION_RULE_H

// How the server combines the decoded updates of a round into one. An aggregation rule has
// the interface of compression's Aggregator (Reset, Add with a weight, Count, Result), so a
// codec's own rule (the sample-weighted mean; a majority vote for sign) is one.
//
// Adding a rule is one file plus its entry in one place: implement AggregationRule in
// models/fl/<name>-rule.cc with a `std::unique_ptr<AggregationRule> Make<Name>Rule(const
// Codec&)`, then in models/fl/aggregation-rule.cc declare that function and add
// {"<name>", Make<Name>Rule} to kAggregationRules.

#include "compression/codec.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fedran
{

using AggregationRule = Aggregator;

/// Builds the rule a scenario names for a run whose uplink codec is `uplink`. The name
/// "codec" is the uplink codec's own rule (what every run used before rules had names).
/// Throws std::invalid_argument for an unknown name.
std::unique_ptr<AggregationRule> MakeAggregationRule(std::string_view name, const Codec& uplink);

/// Every name MakeAggregationRule accepts, in registration order.
std::vector<std::string> AggregationRuleNames();

} // namespace fedran

#endif
