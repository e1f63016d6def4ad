#ifndef FEDRAN_MODELS_FL_RULE_ARGS_H
#define FEDRAN_MODELS_FL_RULE_ARGS_H

// What a rule's factory reads its settings from, as a codec's reads CodecArgs: each key it
// asks for counts as its own, so a key no rule of this type asked for is refused with its path
// and the rules it belongs to (aggregation-rule.cc). A factory reads every key before it
// refuses any setting, so that asking it which keys it reads needs no valid settings.

#include "compression/codec.h"
#include "models/fl/rule-spec.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace fedran
{

/// What a rule is built for.
struct RuleContext
{
    uint32_t clientsPerRound = 1; ///< n, for admissibility and the defaults that depend on it
    /// The uplink codec, whose aggregator the codec's own rule uses; null when the rule is only
    /// checked (the check needs no codec).
    const Codec* uplink = nullptr;
    bool uplinkVotes = false; ///< the codec brings its own rule (CodecSpec::BringsAggregator)
};

class RuleArgs
{
  public:
    RuleArgs(const RuleSpec& spec, const RuleContext& context);

    const std::string& Type() const
    {
        return m_spec.type;
    }

    uint32_t ClientsPerRound() const
    {
        return m_context.clientsPerRound;
    }

    /// The value of `key`, or nullptr if the spec has none; either way `key` counts as read.
    const nlohmann::json* Take(std::string_view key);
    /// A finite JSON number (not a boolean), or nullopt when `key` is absent.
    std::optional<double> TakeNumber(std::string_view key);
    /// A JSON integer in [0, 2^32), or nullopt when `key` is absent.
    std::optional<uint32_t> TakeCount(std::string_view key);

    /// "<path>.<key>", for messages.
    std::string PathOf(std::string_view key) const;
    /// Throws RuleConfigError "<path>.<key>: <message>".
    [[noreturn]] void Fail(std::string_view key, const std::string& message) const;

    /// The uplink codec's own aggregator (a weighted mean when the rule is only checked), and
    /// whether it votes (one client, one vote).
    std::unique_ptr<Aggregator> UplinkAggregator() const;
    bool UplinkVotes() const
    {
        return m_context.uplinkVotes;
    }

    /// Whether `key` was read.
    bool Took(std::string_view key) const;
    /// The spec's keys no Take asked for ("type" aside), in the spec's order.
    std::vector<std::string> Unread() const;

  private:
    const RuleSpec& m_spec;
    RuleContext m_context;
    std::set<std::string, std::less<>> m_taken;
};

} // namespace fedran

#endif
