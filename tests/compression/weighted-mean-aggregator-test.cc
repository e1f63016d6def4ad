#include "compression/codec-spec.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace fedran
{
namespace
{

TEST(WeightedMeanAggregator, WeighsUpdatesBySampleCount)
{
    auto agg = MakeWeightedMeanAggregator();
    agg->Reset(2);
    agg->Add(std::vector<float>{1.0f, -2.0f}, 1.0);
    agg->Add(std::vector<float>{4.0f, 2.0f}, 3.0);
    EXPECT_EQ(agg->Count(), 2u);
    std::vector<float> out(2);
    agg->Result(out);
    EXPECT_FLOAT_EQ(out[0], (1.0f * 1 + 4.0f * 3) / 4);
    EXPECT_FLOAT_EQ(out[1], (-2.0f * 1 + 2.0f * 3) / 4);
}

TEST(WeightedMeanAggregator, EmptyRoundGivesZerosAndResetForgets)
{
    auto agg = MakeWeightedMeanAggregator();
    agg->Reset(3);
    std::vector<float> out(3, 7.0f);
    agg->Result(out);
    EXPECT_EQ(out, std::vector<float>(3, 0.0f));
    agg->Add(std::vector<float>{1, 1, 1}, 2.0);
    agg->Reset(3);
    EXPECT_EQ(agg->Count(), 0u);
    agg->Result(out);
    EXPECT_EQ(out, std::vector<float>(3, 0.0f));
}

TEST(WeightedMeanAggregator, RejectsWrongSizesAndWeights)
{
    auto agg = MakeWeightedMeanAggregator();
    agg->Reset(2);
    EXPECT_THROW(agg->Add(std::vector<float>{1}, 1.0), std::invalid_argument);
    EXPECT_THROW(agg->Add(std::vector<float>{1, 2}, 0.0), std::invalid_argument);
    std::vector<float> out(3);
    EXPECT_THROW(agg->Result(out), std::invalid_argument);
}

TEST(Codec, DefaultAggregatorIsTheWeightedMean)
{
    auto agg = MakeCodec({{"type", "none"}}, "c")->MakeAggregator();
    agg->Reset(1);
    agg->Add(std::vector<float>{2.0f}, 1.0);
    agg->Add(std::vector<float>{5.0f}, 2.0);
    std::vector<float> out(1);
    agg->Result(out);
    EXPECT_FLOAT_EQ(out[0], 4.0f);
}

} // namespace
} // namespace fedran
