// Tensor partitioning (Codec::SetEncodeThreads): encoding a large tensor split across threads
// gives the same bytes as one thread, for fp16 and through a wrapper; a small tensor and a
// codec that does not partition are unaffected.

#include "compression/codec-spec.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace fedran
{
namespace
{

std::vector<uint8_t>
Encode(const nlohmann::json& spec, const TensorLayout& layout, unsigned threads)
{
    Rng data(3, 1);
    std::vector<float> update(layout.TotalSize());
    for (float& x : update)
    {
        x = static_cast<float>(data.Normal() * 100.0);
    }
    auto codec = MakeCodec(spec, "test");
    codec->SetEncodeThreads(threads);
    Rng rng(5, 2);
    std::vector<uint8_t> payload;
    codec->Encode(layout, update, rng, payload);
    return payload;
}

TEST(TensorPartitioning, SameBytesAtAnyThreadCount)
{
    // Sizes that do not divide evenly, next to a small tensor that stays on one thread.
    const TensorLayout layout({{"big", {1000, 1037}}, {"small", {513}}, {"odd", {300001}}});
    for (const nlohmann::json& spec :
         {nlohmann::json{{"type", "fp16"}},
          nlohmann::json{{"type", "clipped"}, {"base", {{"type", "fp16"}}}, {"clip_value", 50.0}},
          nlohmann::json{{"type", "top_k"}, {"ratio", 0.01}}})
    {
        const std::vector<uint8_t> one = Encode(spec, layout, 1);
        for (unsigned threads : {2u, 3u, 4u, 7u})
        {
            EXPECT_EQ(Encode(spec, layout, threads), one) << spec.dump() << " on " << threads;
        }
    }
}

} // namespace
} // namespace fedran
