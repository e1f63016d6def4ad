// SyntheticClients: Synthetic(alpha, beta) generated one client at a time. Any client alone
// gives the same examples in any order; the sizes and held-out split are MakeSyntheticLeaf's;
// the data has the same statistics as the up-front generator's (label skew across clients,
// feature variances within one).

#include "models/learning/synthetic-clients.h"
#include "models/learning/synthetic-data.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

namespace fedran
{
namespace
{

constexpr uint64_t kStreams = 14ull << 32;

SyntheticClients
Make(uint32_t clients, const SyntheticSpec& spec, uint64_t seed)
{
    Rng sizes(seed, 1);
    return SyntheticClients(clients, spec, seed, kStreams, sizes);
}

/// Mean over client pairs of the total-variation distance between label histograms.
double
MeanLabelDistance(const std::vector<std::vector<double>>& mix)
{
    double total = 0.0;
    size_t pairs = 0;
    for (size_t a = 0; a < mix.size(); ++a)
    {
        for (size_t b = a + 1; b < mix.size(); ++b)
        {
            double d = 0.0;
            for (size_t c = 0; c < mix[a].size(); ++c)
            {
                d += std::abs(mix[a][c] - mix[b][c]);
            }
            total += d / 2;
            ++pairs;
        }
    }
    return total / static_cast<double>(pairs);
}

std::vector<double>
Histogram(const Dataset& data, const std::vector<uint32_t>& rows)
{
    std::vector<double> p(data.classes, 0.0);
    for (uint32_t i : rows)
    {
        p[data.y[i]] += 1.0 / static_cast<double>(rows.size());
    }
    return p;
}

TEST(SyntheticClients, AnyClientAloneGivesTheSameExamplesInAnyOrder)
{
    SyntheticSpec spec;
    spec.samples = SizeSpec::Leaf(2000);
    const SyntheticClients a = Make(100, spec, 3);
    const SyntheticClients b = Make(100, spec, 3);
    for (uint32_t k = 0; k < 40; ++k)
    {
        (void)b.Train(k); // b has generated others first
    }
    const Dataset alone = a.Train(41);
    const Dataset after = b.Train(41);
    EXPECT_EQ(alone.x, after.x);
    EXPECT_EQ(alone.y, after.y);
    EXPECT_EQ(alone.Size(), a.TrainCount(41));
    EXPECT_EQ(alone.x.size(), alone.Size() * 60);
    EXPECT_NE(a.Train(40).x, alone.x);
    // Another seed, other data.
    EXPECT_NE(Make(100, spec, 4).Train(41).x, alone.x);
}

TEST(SyntheticClients, SizesAndHeldOutSplitAreTheUpfrontGenerators)
{
    SyntheticSpec spec;
    spec.samples = SizeSpec::Equal(50);
    spec.testFraction = 0.1;
    spec.testClients = 4;
    const SyntheticClients clients = Make(10, spec, 1);
    for (uint32_t k = 0; k < 10; ++k)
    {
        EXPECT_EQ(clients.TrainCount(k), 45u);
    }
    // Clients 0, 2, 5 and 7 (k = floor(i * 10 / 4)) hold out 5 each.
    EXPECT_EQ(clients.TestSet().Size(), 20u);
    // The sizes come from the same draws as MakeSyntheticLeaf's.
    SyntheticSpec leaf;
    const SyntheticClients skewed = Make(200, leaf, 9);
    Rng rng(9, 1);
    const FederatedData upfront =
        MakeSyntheticLeaf(200, 1.0, 1.0, 60, 10, SizeSpec::Leaf(), 0.1, rng);
    for (uint32_t k = 0; k < 200; ++k)
    {
        ASSERT_EQ(skewed.TrainCount(k), upfront.partition[k].size()) << k;
    }
}

TEST(SyntheticClients, TheDataHasTheUpfrontGeneratorsStatistics)
{
    // Label skew across clients (beta = 1): the mean pairwise label distance of 150 clients is
    // the up-front generator's within sampling noise (each is about 0.6).
    SyntheticSpec spec;
    spec.samples = SizeSpec::Equal(200);
    const SyntheticClients onDemand = Make(150, spec, 5);
    std::vector<std::vector<double>> mix;
    for (uint32_t k = 0; k < 150; ++k)
    {
        const Dataset train = onDemand.Train(k);
        std::vector<uint32_t> rows(train.Size());
        std::iota(rows.begin(), rows.end(), 0u);
        mix.push_back(Histogram(train, rows));
    }
    Rng rng(5, 1);
    const FederatedData upfront =
        MakeSyntheticLeaf(150, 1.0, 1.0, 60, 10, SizeSpec::Equal(200), 0.1, rng);
    std::vector<std::vector<double>> upMix;
    for (const std::vector<uint32_t>& rows : upfront.partition)
    {
        upMix.push_back(Histogram(upfront.data.train, rows));
    }
    const double ours = MeanLabelDistance(mix);
    const double theirs = MeanLabelDistance(upMix);
    EXPECT_GT(ours, 0.3); // clients do differ
    EXPECT_NEAR(ours, theirs, 0.06);

    // Within one client x_j ~ N(v_j, j^-1.2).
    SyntheticSpec big;
    big.samples = SizeSpec::Equal(20000);
    const Dataset one = Make(1, big, 5).Train(0);
    for (uint32_t j : {0u, 9u, 59u})
    {
        double sum = 0.0;
        for (size_t i = 0; i < one.Size(); ++i)
        {
            sum += one.Row(i)[j];
        }
        const double mean = sum / one.Size();
        double squares = 0.0;
        for (size_t i = 0; i < one.Size(); ++i)
        {
            squares += (one.Row(i)[j] - mean) * (one.Row(i)[j] - mean);
        }
        EXPECT_NEAR(squares / one.Size() / std::pow(j + 1.0, -1.2), 1.0, 0.05) << j;
    }
}

} // namespace
} // namespace fedran
