// MakeSyntheticLeaf: shapes, determinism, the FedProx generative model's statistics, and what
// alpha and beta actually do to the clients' data.

#include "models/learning/synthetic-data.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace fedran
{
namespace
{

FederatedData
Make(uint32_t clients, double alpha, double beta, const SizeSpec& sizes, uint64_t seed)
{
    Rng rng(seed);
    return MakeSyntheticLeaf(clients,
                             alpha,
                             beta,
                             kSyntheticFeatures,
                             kSyntheticClasses,
                             sizes,
                             kSyntheticTestFraction,
                             rng);
}

/// Mean over client pairs of the total-variation distance between their label histograms.
double
MeanLabelDistance(const FederatedData& fd)
{
    const uint32_t classes = fd.data.train.classes;
    std::vector<std::vector<double>> mix;
    for (const auto& part : fd.partition)
    {
        std::vector<double> p(classes, 0.0);
        for (uint32_t i : part)
        {
            p[fd.data.train.y[i]] += 1.0 / static_cast<double>(part.size());
        }
        mix.push_back(p);
    }
    double total = 0.0;
    size_t pairs = 0;
    for (size_t a = 0; a < mix.size(); ++a)
    {
        for (size_t b = a + 1; b < mix.size(); ++b)
        {
            double tv = 0.0;
            for (uint32_t c = 0; c < classes; ++c)
            {
                tv += std::fabs(mix[a][c] - mix[b][c]);
            }
            total += tv / 2.0;
            ++pairs;
        }
    }
    return total / static_cast<double>(pairs);
}

/// Variance across clients of each client's mean feature value (its B_k plus noise).
double
ClientMeanSpread(const FederatedData& fd)
{
    const Dataset& train = fd.data.train;
    std::vector<double> means;
    for (const auto& part : fd.partition)
    {
        double sum = 0.0;
        for (uint32_t i : part)
        {
            const float* row = train.Row(i);
            sum += std::accumulate(row, row + train.features, 0.0);
        }
        means.push_back(sum / (static_cast<double>(part.size()) * train.features));
    }
    const double grand = std::accumulate(means.begin(), means.end(), 0.0) / means.size();
    double squares = 0.0;
    for (double m : means)
    {
        squares += (m - grand) * (m - grand);
    }
    return squares / static_cast<double>(means.size());
}

TEST(SyntheticLeaf, ShapesAndPartitionCoverTheTrainingSet)
{
    const FederatedData fd = Make(20, 0.5, 0.5, SizeSpec::Leaf(500), 1);
    const Dataset& train = fd.data.train;
    const Dataset& test = fd.data.test;
    EXPECT_EQ(train.features, 60u);
    EXPECT_EQ(test.features, 60u);
    EXPECT_EQ(train.classes, 10u);
    EXPECT_EQ(test.classes, 10u);
    EXPECT_EQ(train.x.size(), train.Size() * 60);
    EXPECT_EQ(test.x.size(), test.Size() * 60);
    ASSERT_EQ(fd.partition.size(), 20u);

    // Client k's training examples are the next contiguous block; each client holds out
    // round(10%) of its examples, so the test set is about a ninth of the training set.
    std::vector<int> seen(train.Size(), 0);
    uint32_t next = 0;
    for (const auto& part : fd.partition)
    {
        ASSERT_GE(part.size(), 45u);  // at least 50 examples, at most 5 held out
        EXPECT_LE(part.size(), 450u); // cap 500, 50 held out
        for (uint32_t i : part)
        {
            ASSERT_EQ(i, next++);
            ++seen[i];
        }
    }
    EXPECT_EQ(next, train.Size());
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
    EXPECT_NEAR(static_cast<double>(test.Size()) / train.Size(), 1.0 / 9.0, 0.01);
    for (uint8_t y : train.y)
    {
        ASSERT_LT(y, 10);
    }
    for (uint8_t y : test.y)
    {
        ASSERT_LT(y, 10);
    }
}

TEST(SyntheticLeaf, TestSplitIsRoundedPerClient)
{
    // 55 examples each: round(5.5) = 6 held out, 49 kept.
    const FederatedData fd = Make(3, 0.0, 0.0, SizeSpec::Equal(55), 1);
    for (const auto& part : fd.partition)
    {
        EXPECT_EQ(part.size(), 49u);
    }
    EXPECT_EQ(fd.data.test.Size(), 18u);
    // A client never loses its last training example, however large the fraction.
    Rng rng(1);
    const FederatedData tiny = MakeSyntheticLeaf(2, 0, 0, 5, 3, SizeSpec::Equal(2), 0.9, rng);
    EXPECT_EQ(tiny.partition[0].size(), 1u);
    EXPECT_EQ(tiny.data.test.Size(), 2u);
}

TEST(SyntheticLeaf, DeterministicForASeed)
{
    const FederatedData a = Make(10, 1.0, 1.0, SizeSpec::Leaf(300), 42);
    const FederatedData b = Make(10, 1.0, 1.0, SizeSpec::Leaf(300), 42);
    const FederatedData c = Make(10, 1.0, 1.0, SizeSpec::Leaf(300), 43);
    EXPECT_EQ(a.data.train.x, b.data.train.x);
    EXPECT_EQ(a.data.train.y, b.data.train.y);
    EXPECT_EQ(a.data.test.x, b.data.test.x);
    EXPECT_EQ(a.data.test.y, b.data.test.y);
    EXPECT_EQ(a.partition, b.partition);
    EXPECT_NE(a.data.train.x, c.data.train.x);
}

TEST(SyntheticLeaf, FeatureVariancesFollowTheDiagonalCovariance)
{
    // Within one client x_j ~ N(v_j, j^-1.2) (j from 1).
    const FederatedData fd = Make(1, 0.0, 0.0, SizeSpec::Equal(20000), 5);
    const Dataset& train = fd.data.train;
    for (uint32_t j : {0u, 9u, 59u})
    {
        double sum = 0.0;
        double squares = 0.0;
        for (size_t i = 0; i < train.Size(); ++i)
        {
            sum += train.Row(i)[j];
        }
        const double mean = sum / train.Size();
        for (size_t i = 0; i < train.Size(); ++i)
        {
            squares += (train.Row(i)[j] - mean) * (train.Row(i)[j] - mean);
        }
        const double expected = std::pow(j + 1.0, -1.2);
        EXPECT_NEAR(squares / train.Size() / expected, 1.0, 0.05) << "feature " << j;
    }
}

TEST(SyntheticLeaf, AlphaDoesNotChangeTheData)
{
    // u_k shifts every class's logit by the same u_k * (sum(x) + 1), which argmax ignores:
    // with the same seed, alpha = 0 and alpha = 1 give the same features and (but for ties
    // broken differently by rounding) the same labels. This is FedProx's generator as
    // published; the test pins it so that a change of model is a deliberate one.
    const FederatedData a0 = Make(30, 0.0, 1.0, SizeSpec::Leaf(1000), 5);
    const FederatedData a1 = Make(30, 1.0, 1.0, SizeSpec::Leaf(1000), 5);
    ASSERT_EQ(a0.data.train.Size(), a1.data.train.Size());
    EXPECT_EQ(a0.data.train.x, a1.data.train.x);
    size_t same = 0;
    for (size_t i = 0; i < a0.data.train.Size(); ++i)
    {
        same += a0.data.train.y[i] == a1.data.train.y[i] ? 1 : 0;
    }
    EXPECT_GE(static_cast<double>(same), 0.999 * a0.data.train.Size());
    EXPECT_NEAR(MeanLabelDistance(a0), MeanLabelDistance(a1), 0.005);
}

TEST(SyntheticLeaf, BetaSpreadsTheClientsFeatureDistributions)
{
    // Each client's mean feature is B_k + (mean of 60 N(0, 1)) + noise: its spread across
    // clients is about beta^2 + 1/60.
    const double flat = ClientMeanSpread(Make(100, 0.0, 0.0, SizeSpec::Equal(100), 9));
    const double spread = ClientMeanSpread(Make(100, 0.0, 1.0, SizeSpec::Equal(100), 9));
    EXPECT_LT(flat, 0.05);
    EXPECT_GT(spread, 0.5);
    EXPECT_LT(spread, 2.0);
}

TEST(SyntheticLeaf, LabelMixesDifferStronglyAcrossClientsEvenAtZeroZero)
{
    // Every client has its own random W_k, so even Synthetic(0, 0) gives clients very
    // different label mixes (IID clients would be near 0 at these sizes); larger beta adds a
    // little more. Measured: mean pairwise total variation 0.87-0.89 at beta 0 over seeds
    // 1-10, 0.889-0.896 at beta 2, higher in every seed.
    const double zero = MeanLabelDistance(Make(100, 0.0, 0.0, SizeSpec::Equal(100), 1));
    const double two = MeanLabelDistance(Make(100, 0.0, 2.0, SizeSpec::Equal(100), 1));
    EXPECT_GT(zero, 0.8);
    EXPECT_GT(two, zero);
}

TEST(SyntheticLeaf, RejectsInvalidArguments)
{
    Rng rng(1);
    const SizeSpec sizes = SizeSpec::Equal(10);
    EXPECT_THROW(MakeSyntheticLeaf(0, 0, 0, 60, 10, sizes, 0.1, rng), std::invalid_argument);
    EXPECT_THROW(MakeSyntheticLeaf(2, 0, 0, 0, 10, sizes, 0.1, rng), std::invalid_argument);
    EXPECT_THROW(MakeSyntheticLeaf(2, 0, 0, 60, 0, sizes, 0.1, rng), std::invalid_argument);
    EXPECT_THROW(MakeSyntheticLeaf(2, 0, 0, 60, 257, sizes, 0.1, rng), std::invalid_argument);
    EXPECT_THROW(MakeSyntheticLeaf(2, -1, 0, 60, 10, sizes, 0.1, rng), std::invalid_argument);
    EXPECT_THROW(MakeSyntheticLeaf(2, 0, NAN, 60, 10, sizes, 0.1, rng), std::invalid_argument);
    EXPECT_THROW(MakeSyntheticLeaf(2, 0, 0, 60, 10, sizes, 1.0, rng), std::invalid_argument);
    EXPECT_THROW(MakeSyntheticLeaf(2, 0, 0, 60, 10, SizeSpec::Equal(0), 0.1, rng),
                 std::invalid_argument);
}

} // namespace
} // namespace fedran
