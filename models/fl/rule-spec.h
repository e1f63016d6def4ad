#ifndef FEDRAN_MODELS_FL_RULE_SPEC_H
#define FEDRAN_MODELS_FL_RULE_SPEC_H

// An aggregation rule's spec (server.robust) read once, where the scenario is read, as a
// CodecSpec is for a codec: its type, its JSON as given and the scenario path its messages
// name. Each rule reads and checks its own keys (RuleArgs, models/fl/rule-args.h); what the
// rest of the simulator may ask of a rule is declared in its registry row (RuleTraits), never
// found by comparing its name.

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

namespace fedran
{

/// Settings a rule does not accept, or that do not fit its round size; the message starts with
/// the scenario path of the offending key (server.robust.f: ...).
class RuleConfigError : public std::invalid_argument
{
  public:
    using std::invalid_argument::invalid_argument;
};

/// The "type" of a typed spec (server.robust, server.selection): throws RuleConfigError
/// "<path>.type: missing, or not a string" unless `json` is an object with a string "type".
std::string SpecType(const nlohmann::json& json, const std::string& path);

/// What a rule type is, declared once in its registry row (aggregation-rule.cc, or a
/// RuleRegistration).
struct RuleTraits
{
    /// server.robust.type may name it. False for the names the library builds by name only:
    /// "codec" (the same as "mean"), and the two stand-ins "weighted_mean" and "majority_vote".
    bool scenarioType = true;
    /// It is the uplink codec's own rule (a weighted mean, or sign's majority vote), built at
    /// run time from the codec's aggregator: the only kind a codec that brings its own
    /// aggregator (CodecSpec::BringsAggregator) or takes two exchanges (TwoExchanges) admits.
    bool codecsOwn = false;
    /// It folds each update in as it arrives and does no work in Result (a mean, a vote): the
    /// server's cost profile prices its folds per update and needs no server.rules.<name>, and
    /// `fedran calibrate` does not time it. Otherwise its cost unit is ResultWork's.
    bool foldsOnArrival = false;
    /// The keys `fedran calibrate` builds it with to time Result, a JSON object: those it
    /// requires (centered_clipping's tau). "{}" when it needs none.
    std::string_view calibrationKeys = "{}";
};

/// The traits of a registered rule type; throws RuleConfigError for an unknown one.
const RuleTraits& RuleTypeTraits(std::string_view type);

/// A rule spec: Parse checks that its type is registered; its keys are checked by the rule
/// itself when it is built or checked (CheckRobustRule, MakeAggregationRule), which needs the
/// round size. The default is server.robust's absent value, "mean".
struct RuleSpec
{
    std::string type = "mean";
    nlohmann::json json = nlohmann::json::object(); ///< the object as given ("type" included)
    std::string path = "server.robust";             ///< what its messages name

    /// The spec `json` (an object with a string "type") names. Throws RuleConfigError naming
    /// `path`.type for an unknown type, listing those a scenario may name.
    static RuleSpec Parse(const nlohmann::json& json, const std::string& path);

    const RuleTraits& Traits() const
    {
        return RuleTypeTraits(type);
    }
};

} // namespace fedran

#endif
