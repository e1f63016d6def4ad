// The robust aggregation rules (models/fl/robust/) against independent computations on
// hand-made updates.

#include "compression/codec-spec.h"
#include "models/fl/aggregation-rule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

namespace fedran::test
{
namespace
{

using nlohmann::json;
using Updates = std::vector<std::vector<float>>;

/// Runs `config` over `updates` (weights: 1 unless given) and returns the result.
std::vector<float>
Combine(const RuleSpec& config,
        const Updates& updates,
        std::vector<double>* aggregateWeights = nullptr,
        std::vector<double> weights = {},
        AggregationRule* reuse = nullptr)
{
    auto codec = MakeCodec({{"type", "none"}}, "u");
    std::unique_ptr<AggregationRule> made;
    if (!reuse)
    {
        made = MakeAggregationRule(
            config,
            RuleContext{static_cast<uint32_t>(updates.size()), codec.get(), false});
        reuse = made.get();
    }
    reuse->Reset(updates.front().size());
    for (size_t i = 0; i < updates.size(); ++i)
    {
        reuse->Add(updates[i], weights.empty() ? 1.0 : weights[i]);
    }
    std::vector<float> out(updates.front().size());
    reuse->Result(out);
    if (aggregateWeights)
    {
        *aggregateWeights = reuse->AggregateWeights();
    }
    return out;
}

RuleSpec
Rule(const std::string& type)
{
    RuleSpec config;
    config.type = type;
    config.json = {{"type", type}};
    return config;
}

Updates
RandomUpdates(size_t n, size_t d, uint32_t seed)
{
    std::mt19937 gen(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    Updates updates(n, std::vector<float>(d));
    for (auto& u : updates)
    {
        for (float& v : u)
        {
            v = normal(gen);
        }
    }
    return updates;
}

double
Distance(const std::vector<float>& a, const std::vector<double>& b)
{
    double s = 0.0;
    for (size_t j = 0; j < a.size(); ++j)
    {
        s += (a[j] - b[j]) * (a[j] - b[j]);
    }
    return std::sqrt(s);
}

TEST(RobustRules, MedianOfHandMadeUpdates)
{
    std::vector<double> held;
    const auto out = Combine(Rule("median"), {{1, 5}, {2, -1}, {100, 0}}, &held);
    EXPECT_EQ(out, (std::vector<float>{2, 0}));
    // Coordinate 0's median is client 1's value, coordinate 1's client 2's.
    EXPECT_EQ(held, (std::vector<double>{0.0, 0.5, 0.5}));
    // Even n: the mean of the two middle values.
    EXPECT_EQ(Combine(Rule("median"), {{1}, {10}, {2}, {3}}, &held), (std::vector<float>{2.5f}));
    EXPECT_EQ(held, (std::vector<double>{0.0, 0.0, 0.5, 0.5}));
}

TEST(RobustRules, MedianMatchesSortingEveryColumn)
{
    for (size_t n : {5u, 8u})
    {
        const Updates updates = RandomUpdates(n, 40, 7 + n);
        const auto out = Combine(Rule("median"), updates);
        for (size_t j = 0; j < 40; ++j)
        {
            std::vector<double> column;
            for (const auto& u : updates)
            {
                column.push_back(u[j]);
            }
            std::sort(column.begin(), column.end());
            const double expected =
                n % 2 ? column[n / 2] : (column[n / 2 - 1] + column[n / 2]) / 2.0;
            EXPECT_NEAR(out[j], expected, 1e-6) << "n " << n << " coordinate " << j;
        }
    }
}

TEST(RobustRules, TrimmedMeanWithTies)
{
    RuleSpec config = Rule("trimmed_mean");
    config.json["beta"] = 0.2; // n = 5: one value trimmed at each end
    std::vector<double> held;
    // Column {5, 1, 5, 5, 0}: drop 0 and one of the 5s, keep 1, 5, 5.
    const auto out = Combine(config, {{5, 2}, {1, 2}, {5, 2}, {5, 2}, {0, 2}}, &held);
    EXPECT_FLOAT_EQ(out[0], 11.0f / 3.0f);
    EXPECT_FLOAT_EQ(out[1], 2.0f); // all equal: ties trimmed by arrival order
    // Per coordinate 1/3 to each kept value, averaged over the two coordinates. Ties are
    // ordered by arrival: the tie at 5 trims the last of the three (coordinate 0), the
    // all-equal column trims the first and the last.
    const double third = 1.0 / 3.0;
    EXPECT_NEAR(held[0], third / 2, 1e-12); // 5 kept, 2 trimmed
    EXPECT_NEAR(held[1], third, 1e-12);     // 1 kept, 2 kept
    EXPECT_NEAR(held[2], third, 1e-12);     // 5 kept, 2 kept
    EXPECT_NEAR(held[3], third / 2, 1e-12); // 5 trimmed, 2 kept
    EXPECT_NEAR(held[4], 0.0, 1e-12);       // 0 trimmed, 2 trimmed
    EXPECT_NEAR(std::accumulate(held.begin(), held.end(), 0.0), 1.0, 1e-12);
}

TEST(RobustRules, TrimmedMeanMatchesSorting)
{
    RuleSpec config = Rule("trimmed_mean");
    config.json["beta"] = 0.3; // n = 10: 3 at each end
    const Updates updates = RandomUpdates(10, 30, 3);
    const auto out = Combine(config, updates);
    for (size_t j = 0; j < 30; ++j)
    {
        std::vector<double> column;
        for (const auto& u : updates)
        {
            column.push_back(u[j]);
        }
        std::sort(column.begin(), column.end());
        EXPECT_NEAR(out[j], std::accumulate(column.begin() + 3, column.end() - 3, 0.0) / 4.0, 1e-6);
    }
}

/// Five updates near (0, 0), two far away.
Updates
ClusterAndOutliers()
{
    return {{0.05f, 0.0f},
            {10.0f, 10.0f},
            {0.0f, 0.02f},
            {-0.04f, 0.01f},
            {-10.0f, 5.0f},
            {0.01f, -0.03f},
            {0.02f, 0.04f}};
}

/// Krum scores, the plain way.
std::vector<double>
KrumScores(const Updates& x, size_t f)
{
    std::vector<double> scores;
    for (size_t i = 0; i < x.size(); ++i)
    {
        std::vector<double> d;
        for (size_t j = 0; j < x.size(); ++j)
        {
            if (j != i)
            {
                double s = 0;
                for (size_t k = 0; k < x[i].size(); ++k)
                {
                    s += (x[i][k] - x[j][k]) * (x[i][k] - x[j][k]);
                }
                d.push_back(s);
            }
        }
        std::sort(d.begin(), d.end());
        scores.push_back(std::accumulate(d.begin(), d.begin() + (x.size() - f - 2), 0.0));
    }
    return scores;
}

TEST(RobustRules, KrumChoosesTheTightCluster)
{
    const Updates x = ClusterAndOutliers();
    RuleSpec config = Rule("krum");
    config.json["f"] = 2; // n = 7 > 2f + 2
    std::vector<double> held;
    const auto out = Combine(config, x, &held);
    const auto scores = KrumScores(x, 2);
    const size_t best = std::min_element(scores.begin(), scores.end()) - scores.begin();
    EXPECT_EQ(out, x[best]);
    EXPECT_NE(best, 1u);
    EXPECT_NE(best, 4u);
    EXPECT_EQ(held[best], 1.0);
    EXPECT_EQ(std::accumulate(held.begin(), held.end(), 0.0), 1.0);

    config.type = "multi_krum";
    config.json["m"] = 3;
    const auto multi = Combine(config, x, &held);
    std::vector<size_t> order(x.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return scores[a] < scores[b];
    });
    for (size_t k = 0; k < 2; ++k)
    {
        const double mean = (x[order[0]][k] + x[order[1]][k] + x[order[2]][k]) / 3.0;
        EXPECT_NEAR(multi[k], mean, 1e-7);
    }
    EXPECT_EQ(held[1], 0.0);
    EXPECT_EQ(held[4], 0.0);
    EXPECT_NEAR(held[order[0]], 1.0 / 3.0, 1e-12);
    // The default m = n - f averages the five honest updates.
    config.json.erase("m");
    const auto fiveMean = Combine(config, x, &held);
    EXPECT_NEAR(fiveMean[0], (0.05 + 0 - 0.04 + 0.01 + 0.02) / 5.0, 1e-7);
    EXPECT_EQ(held[1] + held[4], 0.0);
}

TEST(RobustRules, KrumNeedsMoreThanTwoFPlusTwo)
{
    auto codec = MakeCodec({{"type", "none"}}, "u");
    RuleSpec config = Rule("krum");
    config.json["f"] = 2;
    EXPECT_NO_THROW(MakeAggregationRule(config, RuleContext{7, codec.get(), false}));
    try
    {
        MakeAggregationRule(config, RuleContext{6, codec.get(), false});
        FAIL() << "n = 6, f = 2 is not admissible";
    }
    catch (const RuleConfigError& e)
    {
        EXPECT_NE(std::string(e.what()).find("server.robust.f"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("n > 2f + 2"), std::string::npos) << e.what();
    }
    config.type = "multi_krum";
    config.json["m"] = 6; // > n - f = 5
    EXPECT_THROW(MakeAggregationRule(config, RuleContext{7, codec.get(), false}), RuleConfigError);
}

/// The geometric median's optimality condition: the weighted unit vectors toward the points
/// sum to (nearly) zero.
double
WeiszfeldResidual(const Updates& x, const std::vector<float>& z)
{
    std::vector<double> zd(z.begin(), z.end());
    std::vector<double> g(z.size(), 0.0);
    for (const auto& p : x)
    {
        const double d = Distance(p, zd);
        for (size_t k = 0; k < z.size(); ++k)
        {
            g[k] += (zd[k] - p[k]) / std::max(d, 1e-9);
        }
    }
    return std::sqrt(std::inner_product(g.begin(), g.end(), g.begin(), 0.0));
}

TEST(RobustRules, GeometricMedianOfCollinearAndSymmetricPoints)
{
    RuleSpec config = Rule("geometric_median");
    config.json["iters"] = 200;
    // On a line through the origin along (3, 4) / 5 at 0, 1 and 10: the middle point.
    const Updates line = {{0.0f, 0.0f}, {0.6f, 0.8f}, {6.0f, 8.0f}};
    const auto onLine = Combine(config, line);
    EXPECT_NEAR(onLine[0], 0.6, 1e-4);
    EXPECT_NEAR(onLine[1], 0.8, 1e-4);
    // Symmetric about (1, 2): the centre.
    const Updates symmetric =
        {{1, 2}, {4, 2}, {-2, 2}, {1, 7}, {1, -3}, {1.5f, 2.5f}, {0.5f, 1.5f}};
    const auto centre = Combine(config, symmetric);
    EXPECT_NEAR(centre[0], 1.0, 1e-4);
    EXPECT_NEAR(centre[1], 2.0, 1e-4);
    // A generic set: the optimality condition holds, and two far outliers barely move it.
    Updates x = RandomUpdates(7, 5, 11);
    x[2].assign(5, 1e4f);
    x[5].assign(5, -3e3f);
    std::vector<double> held;
    const auto z = Combine(config, x, &held);
    EXPECT_LT(WeiszfeldResidual(x, z), 1e-3);
    for (float v : z)
    {
        EXPECT_LT(std::abs(v), 2.0f);
    }
    EXPECT_LT(held[2], 1e-3);
    EXPECT_NEAR(std::accumulate(held.begin(), held.end(), 0.0), 1.0, 1e-9);
}

TEST(RobustRules, CenteredClippingReachesItsFixedPoint)
{
    const Updates x = ClusterAndOutliers();
    RuleSpec config = Rule("centered_clipping");
    config.json["tau"] = 0.5;
    config.json["iters"] = 300;
    const auto v = Combine(config, x);
    // Fixed point: sum_i (x_i - v) min(1, tau / ||x_i - v||) = 0.
    std::vector<double> vd(v.begin(), v.end());
    double residual[2] = {0, 0};
    for (const auto& p : x)
    {
        const double d = Distance(p, vd);
        const double c = std::min(1.0, 0.5 / d);
        residual[0] += (p[0] - vd[0]) * c;
        residual[1] += (p[1] - vd[1]) * c;
    }
    EXPECT_LT(std::hypot(residual[0], residual[1]), 1e-5);
    // The outliers pull it by at most tau each: it stays near the cluster.
    EXPECT_LT(std::hypot(v[0], v[1]), 2 * 0.5 + 0.1);

    // Without clipping, one iteration from zero is the mean; the next round starts from it.
    config.json["tau"] = 1e9;
    config.json["iters"] = 1;
    auto codec = MakeCodec({{"type", "none"}}, "u");
    auto rule = MakeAggregationRule(config, RuleContext{2, codec.get(), false});
    const auto mean = Combine(config, {{2, 0}, {0, 4}}, nullptr, {}, rule.get());
    EXPECT_EQ(mean, (std::vector<float>{1, 2}));
    config.json["tau"] = 1.0;
    auto clipped = MakeAggregationRule(config, RuleContext{1, codec.get(), false});
    Combine(config, {{0, 0}}, nullptr, {}, clipped.get()); // centre stays at 0
    std::vector<double> held;
    const auto step = Combine(config, {{3, 4}}, &held, {}, clipped.get());
    EXPECT_NEAR(step[0], 0.6, 1e-6); // moved tau = 1 toward (3, 4)
    EXPECT_NEAR(step[1], 0.8, 1e-6);
    EXPECT_NEAR(held[0], 0.2, 1e-12); // clipped to tau / 5
}

TEST(RobustRules, NormBoundClipsThenAveragesBySamples)
{
    RuleSpec config = Rule("norm_bound");
    config.json["max_norm"] = 1.0;
    std::vector<double> held;
    const auto out = Combine(config, {{3, 4}, {0.5f, 0}}, &held, {1.0, 3.0});
    // (3, 4) -> (0.6, 0.8) with weight 1/4, (0.5, 0) unclipped with weight 3/4.
    EXPECT_NEAR(out[0], 0.25 * 0.6 + 0.75 * 0.5, 1e-7);
    EXPECT_NEAR(out[1], 0.25 * 0.8, 1e-7);
    EXPECT_NEAR(held[0], 0.25 * 0.2, 1e-12);
    EXPECT_NEAR(held[1], 0.75, 1e-12);
}

TEST(RobustRules, NanUpdatesDoNotPoisonTheRobustRules)
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const Updates x = {{1, 1}, {nan, nan}, {1.2f, 0.9f}, {0.9f, 1.1f}, {1.1f, 1.0f}};
    RuleSpec trimmed = Rule("trimmed_mean");
    trimmed.json["beta"] = 0.2;
    RuleSpec krum = Rule("krum");
    krum.json["f"] = 1;
    RuleSpec gm = Rule("geometric_median");
    for (const RuleSpec& config : {Rule("median"), trimmed, krum, gm})
    {
        const auto out = Combine(config, x);
        for (float v : out)
        {
            EXPECT_TRUE(std::isfinite(v)) << config.type;
            EXPECT_NEAR(v, 1.0, 0.25) << config.type;
        }
    }
}

TEST(RobustRules, ScenarioChecksNameThePath)
{
    const json none = {{"type", "none"}};
    auto message = [&](const RuleSpec& config, const json& uplink, uint32_t n) {
        try
        {
            CheckRobustRule(config, CodecSpec::Parse(uplink, "compression.uplink"), n);
        }
        catch (const RuleConfigError& e)
        {
            return std::string(e.what());
        }
        return std::string();
    };
    RuleSpec krum = Rule("krum");
    EXPECT_EQ(message(krum, none, 10), "");
    EXPECT_EQ(message(krum, none, 2).rfind("server.robust.f: krum needs", 0), 0u)
        << message(krum, none, 2);
    RuleSpec median = Rule("median");
    median.json["tau"] = 1.0;
    EXPECT_EQ(message(median, none, 10).rfind("server.robust.tau: not a setting", 0), 0u);
    const json vote = {{"type", "sign"}, {"aggregation", "majority_vote"}};
    EXPECT_EQ(message(Rule("median"), vote, 10).rfind("server.robust.type:", 0), 0u);
    EXPECT_EQ(message(Rule("mean"), vote, 10), "");
    const json efVote = {{"type", "error_feedback"}, {"base", vote}};
    EXPECT_NE(message(Rule("median"), efVote, 10), "");
    EXPECT_EQ(message(Rule("median"), {{"type", "sign"}, {"aggregation", "mean"}}, 10), "");
    EXPECT_EQ(message(Rule("norm_bound"), none, 10).rfind("server.robust.max_norm:", 0), 0u);
    EXPECT_EQ(message(Rule("centered_clipping"), none, 10).rfind("server.robust.tau:", 0), 0u);
    RuleSpec trimmed = Rule("trimmed_mean");
    trimmed.json["beta"] = 0.05;
    EXPECT_EQ(message(trimmed, none, 10).rfind("server.robust.beta:", 0), 0u);
    trimmed.json["beta"] = 0.45;
    EXPECT_EQ(message(trimmed, none, 10), "");
    EXPECT_EQ(message(Rule("median"), {{"type", "power_sgd"}, {"rank", 2}}, 10)
                  .rfind("server.robust.type:", 0),
              0u);
}

TEST(RobustRules, EachRuleReadsItsOwnKeys)
{
    const CodecSpec none = CodecSpec::Parse({{"type", "none"}}, "compression.uplink");
    auto message = [&](const json& robust) {
        try
        {
            CheckRobustRule(RuleSpec::Parse(robust, "server.robust"), none, 10);
        }
        catch (const RuleConfigError& e)
        {
            return std::string(e.what());
        }
        return std::string();
    };
    // A key of another rule names the rules it belongs to, found by asking each rule.
    EXPECT_EQ(message({{"type", "median"}, {"tau", 1.0}}),
              "server.robust.tau: not a setting of type \"median\" (only of centered_clipping)");
    EXPECT_EQ(message({{"type", "krum"}, {"iters", 3}}),
              "server.robust.iters: not a setting of type \"krum\" (only of geometric_median "
              "centered_clipping)");
    EXPECT_EQ(message({{"type", "mean"}, {"f", 1}}),
              "server.robust.f: not a setting of type \"mean\" (only of krum multi_krum)");
    EXPECT_EQ(message({{"type", "median"}, {"tua", 1.0}}),
              "server.robust.tua: not a setting of type \"median\" (nor of any other rule)");
    // A key of another rule is reported before the rule's own refusal.
    EXPECT_EQ(message({{"type", "krum"}, {"f", 4}, {"m", 2}}).rfind("server.robust.m: not a", 0),
              0u);
    EXPECT_EQ(message({{"type", "krum"}, {"f", "two"}}),
              "server.robust.f: must be an integer in [0, 4294967295], got \"two\"");
    EXPECT_EQ(message({{"type", "multi_krum"}, {"f", 3}, {"m", 7}}), "");
    // The type: registered, and one a scenario may name.
    EXPECT_EQ(message({{"type", "krum?"}})
                  .rfind("server.robust.type: unknown aggregation rule "
                         "\"krum?\" (one of mean, median, ",
                         0),
              0u);
    EXPECT_EQ(message({{"type", "weighted_mean"}})
                  .rfind("server.robust.type: \"weighted_mean\" "
                         "is not a server.robust rule",
                         0),
              0u);
}

TEST(RobustRules, TraitsSayWhatTheChecksAndCalibrationAsk)
{
    EXPECT_TRUE(RuleTypeTraits("mean").codecsOwn);
    EXPECT_TRUE(RuleTypeTraits("mean").foldsOnArrival);
    EXPECT_FALSE(RuleTypeTraits("median").foldsOnArrival);
    EXPECT_FALSE(RuleTypeTraits("majority_vote").scenarioType);
    // Every rule calibration times builds from its calibration keys alone.
    for (const std::string& name : AggregationRuleNames())
    {
        const RuleTraits& traits = RuleTypeTraits(name);
        json keys = json::parse(traits.calibrationKeys);
        keys["type"] = name;
        EXPECT_NO_THROW(MakeAggregationRule(RuleSpec::Parse(keys, "calibrate"), RuleContext{10}))
            << name;
    }
    EXPECT_THROW(RuleTypeTraits("krum?"), RuleConfigError);
}

} // namespace
} // namespace fedran::test
