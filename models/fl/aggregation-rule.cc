#include "models/fl/aggregation-rule.h"

#include "compression/codec-spec.h"

#include <exception>
#include <stdexcept>

namespace fedran
{

// The rules, one file each in models/fl/robust/.
std::unique_ptr<AggregationRule> MakeMedianRule(RuleArgs& args);
std::unique_ptr<AggregationRule> MakeTrimmedMeanRule(RuleArgs& args);
std::unique_ptr<AggregationRule> MakeKrumRule(RuleArgs& args);
std::unique_ptr<AggregationRule> MakeMultiKrumRule(RuleArgs& args);
std::unique_ptr<AggregationRule> MakeGeometricMedianRule(RuleArgs& args);
std::unique_ptr<AggregationRule> MakeCenteredClippingRule(RuleArgs& args);
std::unique_ptr<AggregationRule> MakeNormBoundRule(RuleArgs& args);

namespace
{

/// A compression Aggregator (a codec's own rule) as an AggregationRule: it combines as
/// updates arrive and holds no update. A weighted mean's aggregate_weight is each update's
/// sample share; a majority vote's is 1 / n (one client, one vote).
class AggregatorRule final : public AggregationRule
{
  public:
    AggregatorRule(std::unique_ptr<Aggregator> aggregator, bool votes)
        : m_aggregator(std::move(aggregator))
        , m_votes(votes)
    {
    }

    void Reset(size_t size) override
    {
        m_aggregator->Reset(size);
        m_weights.clear();
    }

    void Add(std::span<const float> update, double weight) override
    {
        m_aggregator->Add(update, weight);
        m_weights.push_back(weight);
    }

    size_t Count() const override
    {
        return m_aggregator->Count();
    }

    void Result(std::span<float> out) override
    {
        m_aggregator->Result(out);
    }

    std::vector<double> AggregateWeights() const override
    {
        double total = 0.0;
        for (double w : m_weights)
        {
            total += m_votes ? 1.0 : w;
        }
        std::vector<double> shares;
        for (double w : m_weights)
        {
            shares.push_back((m_votes ? 1.0 : w) / total);
        }
        return shares;
    }

  private:
    std::unique_ptr<Aggregator> m_aggregator;
    bool m_votes;
    std::vector<double> m_weights;
};

std::unique_ptr<AggregationRule>
MakeCodecRule(RuleArgs& args)
{
    return std::make_unique<AggregatorRule>(args.UplinkAggregator(), args.UplinkVotes());
}

std::unique_ptr<AggregationRule>
MakeWeightedMeanRule(RuleArgs&)
{
    return std::make_unique<AggregatorRule>(MakeWeightedMeanAggregator(), false);
}

std::unique_ptr<AggregationRule>
MakeMajorityVoteRule(RuleArgs&)
{
    return std::make_unique<AggregatorRule>(MakeMajorityVoteAggregator(), true);
}

struct RuleEntry
{
    std::string_view name;
    RuleFactory make;
    RuleTraits traits;
};

/// The codec's own rule, and the library's stand-ins that fold as updates arrive.
constexpr RuleTraits kCodecsOwn{.codecsOwn = true, .foldsOnArrival = true};
constexpr RuleTraits kStandIn{.scenarioType = false, .foldsOnArrival = true};

// The registry: one line per rule. "mean" is server.robust's name for the codec's own rule.
constexpr RuleEntry kAggregationRules[] = {
    {"codec",
     MakeCodecRule,
     RuleTraits{.scenarioType = false, .codecsOwn = true, .foldsOnArrival = true}},
    {"mean", MakeCodecRule, kCodecsOwn},
    {"weighted_mean", MakeWeightedMeanRule, kStandIn},
    {"majority_vote", MakeMajorityVoteRule, kStandIn},
    {"median", MakeMedianRule, {}},
    {"trimmed_mean", MakeTrimmedMeanRule, {}},
    {"krum", MakeKrumRule, {}},
    {"multi_krum", MakeMultiKrumRule, {}},
    {"geometric_median", MakeGeometricMedianRule, {}},
    {"centered_clipping", MakeCenteredClippingRule, {.calibrationKeys = R"({"tau": 1.0})"}},
    {"norm_bound", MakeNormBoundRule, {.calibrationKeys = R"({"max_norm": 1.0})"}},
};

/// Rules registered at run time (RuleRegistration): a test's, or a user's out-of-tree rule.
std::vector<RuleEntry>&
Extensions()
{
    static std::vector<RuleEntry> extensions;
    return extensions;
}

/// Every entry: the table's, then the extensions in registration order.
std::vector<const RuleEntry*>
AllEntries()
{
    std::vector<const RuleEntry*> entries;
    for (const RuleEntry& entry : kAggregationRules)
    {
        entries.push_back(&entry);
    }
    for (const RuleEntry& entry : Extensions())
    {
        entries.push_back(&entry);
    }
    return entries;
}

const RuleEntry*
FindEntry(std::string_view name)
{
    for (const RuleEntry* entry : AllEntries())
    {
        if (entry->name == name)
        {
            return entry;
        }
    }
    return nullptr;
}

/// The names server.robust.type accepts, for messages: "mean, median, ...".
std::string
ScenarioTypes()
{
    std::string names;
    for (const RuleEntry* entry : AllEntries())
    {
        if (entry->traits.scenarioType)
        {
            names.append(names.empty() ? "" : ", ").append(entry->name);
        }
    }
    return names;
}

const RuleEntry&
EntryOf(const RuleSpec& spec)
{
    const RuleEntry* entry = FindEntry(spec.type);
    if (entry == nullptr)
    {
        throw RuleConfigError(spec.path + ".type: unknown aggregation rule \"" + spec.type +
                              "\" (one of " + ScenarioTypes() + ")");
    }
    return *entry;
}

/// Runs the rule's factory; a setting it refuses is handed back rather than thrown, so that
/// a key that is not the rule's is reported first.
std::unique_ptr<AggregationRule>
Build(const RuleEntry& entry, RuleArgs& args, std::exception_ptr& refused)
{
    try
    {
        return entry.make(args);
    }
    catch (const RuleConfigError&)
    {
        refused = std::current_exception();
    }
    return nullptr;
}

/// The other scenario rules that read `key`: each is asked by building it from its type and
/// this one key (a factory reads every key before it refuses a setting).
std::string
OwnersOf(const RuleSpec& spec, const std::string& key, const RuleContext& context)
{
    std::string owners;
    for (const RuleEntry* entry : AllEntries())
    {
        if (!entry->traits.scenarioType || entry->name == spec.type)
        {
            continue;
        }
        RuleSpec probe;
        probe.type = std::string(entry->name);
        probe.json = {{"type", probe.type}, {key, spec.json.at(key)}};
        probe.path = spec.path;
        RuleArgs args(probe, RuleContext{context.clientsPerRound, nullptr, false});
        try
        {
            std::exception_ptr refused;
            Build(*entry, args, refused);
        }
        catch (...)
        {
            // Only asked which keys it reads: whatever else it refuses is not this spec's.
        }
        if (args.Took(key))
        {
            owners.append(owners.empty() ? "" : " ").append(entry->name);
        }
    }
    return owners;
}

/// Refuses the first key of the spec the rule did not read, naming the rules it belongs to.
void
RejectUnreadKeys(const RuleSpec& spec, const RuleArgs& args, const RuleContext& context)
{
    const std::vector<std::string> unread = args.Unread();
    if (unread.empty())
    {
        return;
    }
    const std::string owners = OwnersOf(spec, unread.front(), context);
    throw RuleConfigError(args.PathOf(unread.front()) + ": not a setting of type \"" + spec.type +
                          "\" (" +
                          (owners.empty() ? "nor of any other rule" : "only of " + owners) + ")");
}

} // namespace

const RuleTraits&
RuleTypeTraits(std::string_view type)
{
    const RuleEntry* entry = FindEntry(type);
    if (entry == nullptr)
    {
        throw RuleConfigError("unknown aggregation rule \"" + std::string(type) + "\"");
    }
    return entry->traits;
}

std::string
SpecType(const nlohmann::json& json, const std::string& path)
{
    const auto type = json.is_object() ? json.find("type") : json.end();
    if (type == json.end() || !type->is_string())
    {
        throw RuleConfigError(path + ".type: missing, or not a string");
    }
    return type->get<std::string>();
}

RuleSpec
RuleSpec::Parse(const nlohmann::json& json, const std::string& path)
{
    RuleSpec spec;
    spec.path = path;
    spec.type = SpecType(json, path);
    spec.json = json;
    EntryOf(spec); // registered; whether a scenario may name it is CheckRobustRule's
    return spec;
}

RuleRegistration::RuleRegistration(std::string_view name, RuleFactory make, RuleTraits traits)
{
    if (FindEntry(name) != nullptr)
    {
        throw std::logic_error("aggregation rule registration \"" + std::string(name) +
                               "\": the name is taken");
    }
    Extensions().push_back({name, make, traits});
}

std::unique_ptr<AggregationRule>
MakeAggregationRule(const RuleSpec& spec, const RuleContext& context)
{
    const RuleEntry& entry = EntryOf(spec);
    RuleArgs args(spec, context);
    std::exception_ptr refused;
    auto rule = Build(entry, args, refused);
    RejectUnreadKeys(spec, args, context);
    if (refused)
    {
        std::rethrow_exception(refused);
    }
    return rule;
}

std::vector<std::string>
AggregationRuleNames()
{
    std::vector<std::string> names;
    for (const RuleEntry* entry : AllEntries())
    {
        names.emplace_back(entry->name);
    }
    return names;
}

void
CheckRobustRule(const RuleSpec& spec, const CodecSpec& uplinkSpec, uint32_t clientsPerRound)
{
    const RuleEntry& entry = EntryOf(spec);
    if (!entry.traits.scenarioType)
    {
        throw RuleConfigError(spec.path + ".type: \"" + spec.type +
                              "\" is not a server.robust rule (one of " + ScenarioTypes() + ")");
    }
    const RuleContext context{clientsPerRound, nullptr, uplinkSpec.BringsAggregator()};
    RuleArgs args(spec, context);
    std::exception_ptr refused;
    Build(entry, args, refused);
    RejectUnreadKeys(spec, args, context);
    if (!entry.traits.codecsOwn)
    {
        if (uplinkSpec.BringsAggregator())
        {
            throw RuleConfigError(
                spec.path + ".type: \"" + spec.type +
                "\" with a sign uplink that aggregates by majority_vote: the vote is the "
                "codec's rule (it is the coordinate-wise median of the signs already); use "
                "type \"mean\" for the vote, or sign's aggregation \"mean\" to combine the "
                "scaled signs with a robust rule (docs/byzantine.md)");
        }
        if (uplinkSpec.TwoExchanges())
        {
            throw RuleConfigError(spec.path + ".type: \"" + spec.type +
                                  "\" with the two-exchange uplink codec " + uplinkSpec.Type() +
                                  ", whose server combines the payloads itself; only \"mean\"");
        }
    }
    if (refused)
    {
        std::rethrow_exception(refused);
    }
}

} // namespace fedran
