// The recipe for a new aggregation rule (docs/architecture.md, "Extension points"), followed
// from outside the library: this one file defines "test_first" (the round's first update after
// `after` others, as it came) with its own key, and registers it with one line; nothing else in
// the tree names it, the schema included.

#include "../scenario/scenario-test-util.h"
#include "compression/codec-spec.h"
#include "models/fl/aggregation-rule.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace fedran
{
namespace
{

class FirstUpdateRule final : public AggregationRule
{
  public:
    explicit FirstUpdateRule(uint32_t after)
        : m_after(after)
    {
    }

    void Reset(size_t size) override
    {
        m_first.assign(size, 0.0f);
        m_count = 0;
    }

    void Add(std::span<const float> update, double /* weight */) override
    {
        if (m_count++ == m_after)
        {
            std::copy(update.begin(), update.end(), m_first.begin());
        }
    }

    size_t Count() const override
    {
        return m_count;
    }

    void Result(std::span<float> out) override
    {
        std::copy(m_first.begin(), m_first.end(), out.begin());
    }

    std::vector<double> AggregateWeights() const override
    {
        std::vector<double> weights(m_count, 0.0);
        if (m_count > m_after)
        {
            weights[m_after] = 1.0;
        }
        return weights;
    }

  private:
    uint32_t m_after;
    std::vector<float> m_first;
    size_t m_count = 0;
};

std::unique_ptr<AggregationRule>
MakeFirstUpdateRule(RuleArgs& args)
{
    const uint32_t after = args.TakeCount("after").value_or(0);
    if (after >= args.ClientsPerRound())
    {
        args.Fail("after",
                  "test_first needs after < clients_per_round (" +
                      std::to_string(args.ClientsPerRound()) + ")");
    }
    return std::make_unique<FirstUpdateRule>(after);
}

// The one registration line: it keeps one update as it arrives, so it has no Result work to
// price.
const RuleRegistration kFirstUpdate{"test_first",
                                    &MakeFirstUpdateRule,
                                    RuleTraits{.foldsOnArrival = true}};

TEST(ExtensionRule, OneFileAndOneLineMakeARuleTheServerCanUse)
{
    const auto names = AggregationRuleNames();
    EXPECT_NE(std::find(names.begin(), names.end(), "test_first"), names.end());

    // Named by a scenario's server.robust, with its own key (quickstart: 10 clients a round)...
    nlohmann::json scenario = test::Quickstart();
    scenario["server"]["robust"] = {{"type", "test_first"}, {"after", 1}};
    const ScenarioConfig config = ToConfig(scenario);
    EXPECT_EQ(config.server.robust.type, "test_first");
    EXPECT_TRUE(config.server.robust.Traits().foldsOnArrival);

    // ... whose keys it checks itself, and whose key is refused to the other rules by name.
    auto message = [&](const nlohmann::json& robust) {
        nlohmann::json bad = scenario;
        bad["server"]["robust"] = robust;
        return test::ScenarioErrorOf([&] { ToConfig(bad); });
    };
    EXPECT_EQ(message({{"type", "test_first"}, {"after", 10}})
                  .rfind("server.robust.after: test_first needs after < clients_per_round (10)", 0),
              0u);
    EXPECT_EQ(message({{"type", "test_first"}, {"after", -1}})
                  .rfind("server.robust.after: must be an integer", 0),
              0u);
    EXPECT_EQ(message({{"type", "test_first"}, {"tau", 1.0}})
                  .rfind("server.robust.tau: not a setting of type \"test_first\" (only of "
                         "centered_clipping)",
                         0),
              0u);
    EXPECT_EQ(message({{"type", "median"}, {"after", 1}})
                  .rfind("server.robust.after: not a setting of type \"median\" (only of "
                         "test_first)",
                         0),
              0u);
    // Checked against the uplink codec like a shipped rule.
    const CodecSpec vote = CodecSpec::Parse({{"type", "sign"}, {"aggregation", "majority_vote"}},
                                            "compression.uplink");
    EXPECT_THROW(CheckRobustRule(config.server.robust, vote, 10), RuleConfigError);

    // Built the way the server builds its rule.
    const CodecSpec none = CodecSpec::Parse({{"type", "none"}}, "compression.uplink");
    const auto codec = MakeCodec(none);
    const auto rule = MakeAggregationRule(config.server.robust, RuleContext{3, codec.get()});
    rule->Reset(2);
    const float a[] = {1.0f, 2.0f}, b[] = {5.0f, 6.0f}, c[] = {7.0f, 8.0f};
    rule->Add(a, 10.0);
    rule->Add(b, 30.0);
    rule->Add(c, 30.0);
    std::vector<float> out(2);
    rule->Result(out);
    EXPECT_EQ(out, (std::vector<float>{5.0f, 6.0f}));
    EXPECT_EQ(rule->AggregateWeights(), (std::vector<double>{0.0, 1.0, 0.0}));
}

TEST(ExtensionRule, ATakenNameIsRefused)
{
    EXPECT_THROW(RuleRegistration("median", &MakeFirstUpdateRule), std::logic_error);
}

} // namespace
} // namespace fedran
