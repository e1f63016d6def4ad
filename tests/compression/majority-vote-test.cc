// The majority-vote aggregator of signSGD (Bernstein et al. 2019), on hand-made updates.

#include "compression/codec.h"
#include "quantization-test-util.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace fedran
{
namespace
{

TEST(MajorityVote, VotedSignTimesMeanMagnitudeWithTiesAtZero)
{
    auto vote = MakeMajorityVoteAggregator();
    vote->Reset(6);
    // Three clients; weights must not matter (one client, one vote).
    vote->Add(std::vector<float>{1, 1, -1, 0, 2, -5}, 1.0);
    vote->Add(std::vector<float>{2, -2, -2, 3, -1, -1}, 100.0);
    vote->Add(std::vector<float>{-3, -3, 3, -3, 0, -3}, 0.5);
    EXPECT_EQ(vote->Count(), 3u);
    std::vector<float> result(6);
    vote->Result(result);
    // + + - -> +2; + - - -> -2; - - + -> -2; 0 + - ties; + - 0 ties; - - - -> -3.
    EXPECT_EQ(result, (std::vector<float>{2, -2, -2, 0, 0, -3}));

    vote->Reset(2);
    EXPECT_EQ(vote->Count(), 0u);
    std::vector<float> empty(2, 9.0f);
    vote->Result(empty);
    EXPECT_EQ(empty, (std::vector<float>{0, 0}));
}

TEST(MajorityVote, RejectsWrongSizesAndWeights)
{
    auto vote = MakeMajorityVoteAggregator();
    vote->Reset(3);
    EXPECT_THROW(vote->Add(std::vector<float>(2), 1.0), std::invalid_argument);
    EXPECT_THROW(vote->Add(std::vector<float>(3), 0.0), std::invalid_argument);
    std::vector<float> out(4);
    EXPECT_THROW(vote->Result(out), std::invalid_argument);
}

TEST(MajorityVote, EndToEndThroughTheSignCodec)
{
    using namespace fedran::testing;
    auto codec = MakeFromJson({{"type", "sign"}, {"aggregation", "majority_vote"}});
    const TensorLayout layout({{"v", {4}}});
    // Scales (l1 / d): 1.5, 2.5 and 1.
    const std::vector<std::vector<float>> updates = {{1, 2, -1, -2},
                                                     {-4, 3, -2, 1},
                                                     {-1, -1, 1, 1}};
    auto aggregator = codec->MakeAggregator();
    aggregator->Reset(4);
    for (const auto& update : updates)
    {
        aggregator->Add(DecodeAll(*codec, layout, EncodeWithSeed(*codec, layout, update, 1)), 10.0);
    }
    std::vector<float> result(4);
    aggregator->Result(result);
    // Votes: - + - +, each times (1.5 + 2.5 + 1) / 3.
    const float m = 5.0f / 3.0f;
    EXPECT_EQ(result, (std::vector<float>{-m, m, -m, m}));
}

} // namespace
} // namespace fedran
