#ifndef FEDRAN_MODELS_FL_AGGREGATION_RULE_H
#define FEDRAN_MODELS_FL_AGGREGATION_RULE_H

// How the server combines the decoded updates of a round into one (server.robust). A rule is
// fed the round's updates one by one (Add, with the sample count as weight), combines them
// once (Result), and then says how much each update counted (AggregateWeights, the
// aggregate_weight column of clients.csv).
//
// Adding a rule is one file plus two lines: implement AggregationRule in
// models/fl/robust/<name>-rule.cc with a `std::unique_ptr<AggregationRule>
// Make<Name>Rule(RuleArgs&)` that reads its own keys from RuleArgs (all of them before it
// refuses any setting) and refuses inadmissible ones with RuleArgs::Fail; then, in
// models/fl/aggregation-rule.cc, declare that function and add its row
// {"<name>", Make<Name>Rule, RuleTraits{...}} to kAggregationRules. server.robust.type accepts
// every registered name (the schema lists none). A rule outside this library is one file
// whose one RuleRegistration line does both.

#include "compression/codec-spec.h"
#include "models/fl/rule-args.h"
#include "models/fl/rule-spec.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fedran
{

class AggregationRule
{
  public:
    virtual ~AggregationRule() = default;

    /// Starts a round of updates of `size` floats (state kept across rounds stays).
    virtual void Reset(size_t size) = 0;
    /// One decoded update; `weight` is its sample count (> 0).
    virtual void Add(std::span<const float> update, double weight) = 0;
    /// Updates added since Reset.
    virtual size_t Count() const = 0;
    /// Combines the updates added since Reset into `out` (once per round: a rule may carry
    /// state to the next round, as centered clipping's starting point).
    virtual void Result(std::span<float> out) = 0;
    /// After Result: what each update, in the order added, counted for in the result (the
    /// rule's own measure, docs/byzantine.md: a mean's share, 0 for an update a rule
    /// discarded).
    virtual std::vector<double> AggregateWeights() const = 0;
    /// The work Result does for `count` updates of `size` floats, in the rule's own unit
    /// (docs/compute.md), which the server's cost profile prices (server.rules.<name>). 0 for
    /// a rule that combines as updates arrive (a mean, a vote): its folds are charged per
    /// update.
    virtual double ResultWork(size_t /* count */, size_t /* size */) const
    {
        return 0.0;
    }
};

/// Builds a rule from its spec's keys for a round size (and, at run time, the uplink codec).
using RuleFactory = std::unique_ptr<AggregationRule> (*)(RuleArgs&);

/**
 * Adds an aggregation rule at run time, from the file that defines it: for a rule outside this
 * library (a test's, a user's extension), one namespace-scope line
 *     const RuleRegistration kMine{"mine", &MakeMineRule, RuleTraits{...}};
 * after which server.robust.type may name it. Throws std::logic_error if the name is taken.
 * The name must outlive the program (a literal).
 */
struct RuleRegistration
{
    RuleRegistration(std::string_view name, RuleFactory make, RuleTraits traits = {});
};

/// Builds the rule `spec` names for `context`. Throws RuleConfigError naming the path for a
/// key the rule does not read or a setting it refuses.
std::unique_ptr<AggregationRule> MakeAggregationRule(const RuleSpec& spec,
                                                     const RuleContext& context);

/// Every registered rule type, in registration order (scenario types or not).
std::vector<std::string> AggregationRuleNames();

/**
 * The scenario checks of server.robust against the uplink codec and clients_per_round: the
 * type must be one a scenario may name, its keys must be its own, the rule must be meaningful
 * for the codec (only the codec's own, "mean", for sign's majority vote or a two-exchange
 * codec) and its admissibility condition must hold (Krum n > 2f + 2, trimming fewer than n,
 * ...). Builds no codec. Throws RuleConfigError naming the path.
 */
void CheckRobustRule(const RuleSpec& spec, const CodecSpec& uplinkSpec, uint32_t clientsPerRound);

} // namespace fedran

#endif
