// The recipe for a new aggregation rule (docs/architecture.md, "Extension points"), followed
// from outside the library: this one file defines "test_first" (the round's first update, as
// it came) and registers it with one line; nothing else in the tree names it.

#include "compression/codec-spec.h"
#include "models/fl/aggregation-rule.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <vector>

namespace fedran
{
namespace
{

class FirstUpdateRule final : public AggregationRule
{
  public:
    void Reset(size_t size) override
    {
        m_first.assign(size, 0.0f);
        m_count = 0;
    }

    void Add(std::span<const float> update, double /* weight */) override
    {
        if (m_count++ == 0)
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
        if (m_count > 0)
        {
            weights[0] = 1.0;
        }
        return weights;
    }

  private:
    std::vector<float> m_first;
    size_t m_count = 0;
};

std::unique_ptr<AggregationRule>
MakeFirstUpdateRule(const RuleArgs& args)
{
    if (args.clientsPerRound < 1)
    {
        throw RuleConfigError("server.robust.type: \"test_first\" needs a client a round");
    }
    return std::make_unique<FirstUpdateRule>();
}

// The one registration line.
const RuleRegistration kFirstUpdate{"test_first", &MakeFirstUpdateRule};

TEST(ExtensionRule, OneFileAndOneLineMakeARuleTheServerCanUse)
{
    const auto names = AggregationRuleNames();
    EXPECT_NE(std::find(names.begin(), names.end(), "test_first"), names.end());

    // As server.robust would name it: checked against the uplink codec like a shipped rule...
    RobustRuleConfig config;
    config.type = "test_first";
    const CodecSpec none = CodecSpec::Parse({{"type", "none"}}, "compression.uplink");
    EXPECT_NO_THROW(CheckRobustRule(config, none, 3));
    const CodecSpec vote = CodecSpec::Parse({{"type", "sign"}, {"aggregation", "majority_vote"}},
                                            "compression.uplink");
    EXPECT_THROW(CheckRobustRule(config, vote, 3), RuleConfigError);

    // ... and built the way the server builds its rule.
    const auto codec = MakeCodec(none);
    const auto rule = MakeAggregationRule(RuleArgs{*codec, config, 3, false});
    rule->Reset(2);
    const float a[] = {1.0f, 2.0f}, b[] = {5.0f, 6.0f};
    rule->Add(a, 10.0);
    rule->Add(b, 30.0);
    std::vector<float> out(2);
    rule->Result(out);
    EXPECT_EQ(out, (std::vector<float>{1.0f, 2.0f}));
    EXPECT_EQ(rule->AggregateWeights(), (std::vector<double>{1.0, 0.0}));
}

TEST(ExtensionRule, ATakenNameIsRefused)
{
    EXPECT_THROW(RuleRegistration("median", &MakeFirstUpdateRule), std::logic_error);
}

} // namespace
} // namespace fedran
