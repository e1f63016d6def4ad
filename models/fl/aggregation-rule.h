#ifndef FEDRAN_MODELS_FL_AGGREGATION_RULE_H
#define FEDRAN_MODELS_FL_AGGREGATION_RULE_H

// How the server combines the decoded updates of a round into one (server.robust). A rule is
// fed the round's updates one by one (Add, with the sample count as weight), combines them
// once (Result), and then says how much each update counted (AggregateWeights, the
// aggregate_weight column of clients.csv).
//
// Adding a rule is one file plus its entry in one place: implement AggregationRule in
// models/fl/robust/<name>-rule.cc with a `std::unique_ptr<AggregationRule> Make<Name>Rule(const
// RuleArgs&)` that throws RuleConfigError when its settings are inadmissible for the round
// size, then in models/fl/aggregation-rule.cc declare that function and add
// {"<name>", Make<Name>Rule} to kAggregationRules (and the name to the schema's enum of
// server.robust.type).

#include "compression/codec-spec.h"
#include "models/fl/byzantine-config.h"

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

/// Settings a rule that does not fit its round size was given; the message starts with the
/// scenario path of the offending key (server.robust.f: ...).
class RuleConfigError : public std::invalid_argument
{
  public:
    using std::invalid_argument::invalid_argument;
};

/// What a rule is built from.
struct RuleArgs
{
    const Codec& uplink;          ///< the uplink codec ("mean" is its own rule)
    RobustRuleConfig config;      ///< server.robust
    uint32_t clientsPerRound = 1; ///< n, for admissibility and the defaults that depend on it
    bool codecVotes = false;      ///< the codec brings its own rule (CodecSpec::BringsAggregator)
};

using RuleFactory = std::unique_ptr<AggregationRule> (*)(const RuleArgs&);

/**
 * Adds an aggregation rule at run time, from the file that defines it: for a rule outside this
 * library (a test's, a user's extension), one namespace-scope line
 *     const RuleRegistration kMine{"mine", &MakeMineRule};
 * Throws std::logic_error if the name is taken. The name must outlive the program (a literal).
 */
struct RuleRegistration
{
    RuleRegistration(std::string_view name, RuleFactory make);
};

/// Builds rule `name` (a server.robust.type, or "codec", "weighted_mean", "majority_vote").
/// Throws std::invalid_argument for an unknown name, RuleConfigError for bad settings.
std::unique_ptr<AggregationRule> MakeAggregationRule(std::string_view name, const RuleArgs& args);

/// The rule server.robust names for a run with this uplink codec.
std::unique_ptr<AggregationRule> MakeAggregationRule(const RuleArgs& args);

/// Every name MakeAggregationRule accepts, in registration order.
std::vector<std::string> AggregationRuleNames();

/**
 * The scenario checks of server.robust against the uplink codec and clients_per_round: the
 * rule must be meaningful for the codec (not for sign's majority vote or a two-exchange
 * codec, other than "mean"), its keys must be its own, and its admissibility condition must
 * hold (Krum n > 2f + 2, trimming fewer than n, ...). Throws RuleConfigError naming the path.
 */
void CheckRobustRule(const RobustRuleConfig& config,
                     const CodecSpec& uplinkSpec,
                     uint32_t clientsPerRound);

} // namespace fedran

#endif
