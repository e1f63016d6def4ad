#include "models/fl/aggregation-rule.h"

#include "compression/codec-spec.h"

#include <stdexcept>

namespace fedran
{

// The rules, one file each in models/fl/robust/.
std::unique_ptr<AggregationRule> MakeMedianRule(const RuleArgs& args);
std::unique_ptr<AggregationRule> MakeTrimmedMeanRule(const RuleArgs& args);
std::unique_ptr<AggregationRule> MakeKrumRule(const RuleArgs& args);
std::unique_ptr<AggregationRule> MakeMultiKrumRule(const RuleArgs& args);
std::unique_ptr<AggregationRule> MakeGeometricMedianRule(const RuleArgs& args);
std::unique_ptr<AggregationRule> MakeCenteredClippingRule(const RuleArgs& args);
std::unique_ptr<AggregationRule> MakeNormBoundRule(const RuleArgs& args);

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
MakeCodecRule(const RuleArgs& args)
{
    return std::make_unique<AggregatorRule>(args.uplink.MakeAggregator(), args.codecVotes);
}

std::unique_ptr<AggregationRule>
MakeWeightedMeanRule(const RuleArgs&)
{
    return std::make_unique<AggregatorRule>(MakeWeightedMeanAggregator(), false);
}

std::unique_ptr<AggregationRule>
MakeMajorityVoteRule(const RuleArgs&)
{
    return std::make_unique<AggregatorRule>(MakeMajorityVoteAggregator(), true);
}

struct RuleEntry
{
    std::string_view name;
    RuleFactory make;
};

// The registry: one line per rule. "mean" is server.robust's name for the codec's own rule.
constexpr RuleEntry kAggregationRules[] = {
    {"codec", MakeCodecRule},
    {"mean", MakeCodecRule},
    {"weighted_mean", MakeWeightedMeanRule},
    {"majority_vote", MakeMajorityVoteRule},
    {"median", MakeMedianRule},
    {"trimmed_mean", MakeTrimmedMeanRule},
    {"krum", MakeKrumRule},
    {"multi_krum", MakeMultiKrumRule},
    {"geometric_median", MakeGeometricMedianRule},
    {"centered_clipping", MakeCenteredClippingRule},
    {"norm_bound", MakeNormBoundRule},
};

/// Which server.robust types each optional key belongs to.
struct KeyOwner
{
    std::string_view key;
    std::string_view types;
    bool given;
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

} // namespace

RuleRegistration::RuleRegistration(std::string_view name, RuleFactory make)
{
    for (const RuleEntry* entry : AllEntries())
    {
        if (entry->name == name)
        {
            throw std::logic_error("aggregation rule registration \"" + std::string(name) +
                                   "\": the name is taken");
        }
    }
    Extensions().push_back({name, make});
}

std::unique_ptr<AggregationRule>
MakeAggregationRule(std::string_view name, const RuleArgs& args)
{
    for (const RuleEntry* entry : AllEntries())
    {
        if (entry->name == name)
        {
            return entry->make(args);
        }
    }
    throw std::invalid_argument("unknown aggregation rule \"" + std::string(name) + "\"");
}

std::unique_ptr<AggregationRule>
MakeAggregationRule(const RuleArgs& args)
{
    return MakeAggregationRule(args.config.type, args);
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
CheckRobustRule(const RobustRuleConfig& config,
                const CodecSpec& uplinkSpec,
                uint32_t clientsPerRound)
{
    const KeyOwner owners[] = {
        {"beta", "trimmed_mean", config.beta.has_value()},
        {"f", "krum multi_krum", config.f.has_value()},
        {"m", "multi_krum", config.m.has_value()},
        {"iters", "geometric_median centered_clipping", config.iters.has_value()},
        {"tau", "centered_clipping", config.tau.has_value()},
        {"max_norm", "norm_bound", config.maxNorm.has_value()},
    };
    for (const KeyOwner& owner : owners)
    {
        const std::string types = std::string(" ").append(owner.types).append(" ");
        if (owner.given && types.find(" " + config.type + " ") == std::string::npos)
        {
            throw RuleConfigError("server.robust." + std::string(owner.key) +
                                  ": not a setting of type \"" + config.type + "\" (only of " +
                                  std::string(owner.types) + ")");
        }
    }
    const auto uplink = MakeCodec(uplinkSpec);
    if (config.type != "mean")
    {
        if (uplinkSpec.BringsAggregator())
        {
            throw RuleConfigError(
                "server.robust.type: \"" + config.type +
                "\" with a sign uplink that aggregates by majority_vote: the vote is the "
                "codec's rule (it is the coordinate-wise median of the signs already); use "
                "type \"mean\" for the vote, or sign's aggregation \"mean\" to combine the "
                "scaled signs with a robust rule (docs/byzantine.md)");
        }
        if (uplinkSpec.TwoExchanges())
        {
            throw RuleConfigError("server.robust.type: \"" + config.type +
                                  "\" with the two-exchange uplink codec " +
                                  std::string(uplink->Name()) +
                                  ", whose server combines the payloads itself; only \"mean\"");
        }
    }
    RuleArgs args{*uplink, config, clientsPerRound, uplinkSpec.BringsAggregator()};
    try
    {
        MakeAggregationRule(args);
    }
    catch (const RuleConfigError&)
    {
        throw;
    }
    catch (const std::invalid_argument& e)
    {
        throw RuleConfigError(std::string("server.robust.type: ") + e.what());
    }
}

} // namespace fedran
